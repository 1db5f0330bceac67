#!/usr/bin/env bash
# Installs the eight wrapped scanners this machine's registries can provide
# (bandit and nmap from Debian; gosec, osv-scanner, govulncheck, kics and
# trivy through the Go module proxy; eslint and its plugins from npm), builds the tiny offline vulnerability
# databases from the fixtures under testdata/wrappers/, and writes the
# environment the integration tests need:
#
#     bash .ci/install-scanners.sh "$env_file" && . "$env_file"
#
# (Without an argument the export lines go to stdout.) Idempotent: Go tools
# are installed into ${SCAND_TOOLS:-$HOME/.cache/scand-tools}/<tool>-<version>/
# and reused when present, so a reused machine does not rebuild trivy
# (~7 minutes on 2 cores). Everything it writes (tools, offline databases)
# goes under that directory or the Go module cache, never into the clone:
# the environment it emits stays valid if the clone moves, and the script
# fails if the clone's `git status` changed while it ran. Any failed step
# stops the script with a non-zero status and says which tool and why.
# Progress goes to stderr.
set -Eeuo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${SCAND_TOOLS:-$HOME/.cache/scand-tools}
BIN=$TOOLS/bin
DBS=$TOOLS/offline-dbs
ENV_OUT=${1:-}

# ESLint 9 and the rule sets the eslint scanner loads (scan/wrapped/eslint.go
# lists the same pins; a test keeps the two in step).
ESLINT_PACKAGES="eslint@9.39.5 eslint-plugin-security@4.1.0 eslint-plugin-no-unsanitized@4.1.5 @microsoft/eslint-plugin-sdl@1.1.0 @typescript-eslint/parser@8.73.0 typescript@5.9.3"
GOSEC_VERSION=v2.29.0
OSV_VERSION=v2.5.0
GOVULNCHECK_VERSION=v1.8.0
KICS_VERSION=v2.2.0
TRIVY_VERSION=v0.74.0

log() { echo "install-scanners: $*" >&2; }
die() {
	echo "install-scanners: FAILED: $*" >&2
	exit 1
}
trap 'die "unexpected error at line $LINENO (exit $?)"' ERR

command -v go >/dev/null || die "the go command is not on PATH"
# What the clone looks like now; compared at the end.
clone_status() { git -C "$ROOT" status --porcelain --untracked-files=all 2>/dev/null || true; }
STATUS_BEFORE=$(clone_status)
command -v python3 >/dev/null || die "python3 is needed to zip the OSV fixture databases"
mkdir -p "$BIN" "$DBS"
# Tools are built with the local toolchain; never fetch another one.
export GOTOOLCHAIN=local

# --- Debian packages -------------------------------------------------------
apt_install() {
	local missing=()
	for pkg in "$@"; do
		command -v "$pkg" >/dev/null || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local sudo=()
	[ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
	log "apt-get install ${missing[*]}"
	"${sudo[@]}" apt-get update -qq >&2 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2 ||
		die "apt-get install ${missing[*]} failed"
}
apt_install bandit nmap

# --- Go-installed tools ----------------------------------------------------
# go_install NAME MODULE/PATH VERSION [BUILT-NAME]
go_install() {
	local name=$1 pkg=$2 version=$3 built=${4:-$1}
	local dir=$TOOLS/$name-$version
	if [ ! -x "$dir/$name" ]; then
		log "go install $pkg@$version"
		local start=$SECONDS
		rm -rf "$dir.tmp"
		mkdir -p "$dir.tmp"
		GOBIN=$dir.tmp go install "$pkg@$version" >&2 || die "go install $pkg@$version failed"
		[ "$built" = "$name" ] || mv "$dir.tmp/$built" "$dir.tmp/$name"
		rm -rf "$dir"
		mv "$dir.tmp" "$dir"
		log "$name $version installed in $((SECONDS - start)) s"
	fi
	ln -sf "$dir/$name" "$BIN/$name"
}

module_dir() { # module_dir MODULE VERSION: the module's directory in the module cache
	go mod download -json "$1@$2" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(d["Error"]) if d.get("Error") else print(d["Dir"])'
}

go_install gosec github.com/securego/gosec/v2/cmd/gosec "$GOSEC_VERSION"
go_install osv-scanner github.com/google/osv-scanner/v2/cmd/osv-scanner "$OSV_VERSION"
go_install govulncheck golang.org/x/vuln/cmd/govulncheck "$GOVULNCHECK_VERSION"
go_install kics github.com/Checkmarx/kics/v2/cmd/console "$KICS_VERSION" console

# KICS reads its query library from disk: copy the module's assets/ beside it.
KICS_DIR=$TOOLS/kics-$KICS_VERSION
if [ ! -d "$KICS_DIR/assets/queries" ]; then
	log "copying the kics $KICS_VERSION query library"
	src=$(module_dir github.com/Checkmarx/kics/v2 "$KICS_VERSION") || die "go mod download of kics $KICS_VERSION failed"
	rm -rf "$KICS_DIR/assets.tmp"
	cp -r "$src/assets" "$KICS_DIR/assets.tmp"
	chmod -R u+w "$KICS_DIR/assets.tmp"
	mv "$KICS_DIR/assets.tmp" "$KICS_DIR/assets"
fi

# Trivy cannot be `go install`ed (the proxy refuses its version list for
# that form) and needs GOEXPERIMENT=jsonv2: build it from a writable copy
# of its module, stamping the version as its release build does.
TRIVY_DIR=$TOOLS/trivy-$TRIVY_VERSION
if [ ! -x "$TRIVY_DIR/trivy" ]; then
	log "building trivy $TRIVY_VERSION from source (several minutes)"
	start=$SECONDS
	src=$(module_dir github.com/aquasecurity/trivy "$TRIVY_VERSION") || die "go mod download of trivy $TRIVY_VERSION failed"
	work=$TOOLS/src/trivy-$TRIVY_VERSION
	rm -rf "$work"
	mkdir -p "$TOOLS/src" "$TRIVY_DIR"
	cp -r "$src" "$work"
	chmod -R u+w "$work"
	(cd "$work" && GOEXPERIMENT=jsonv2 CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build \
		-ldflags "-s -w -X github.com/aquasecurity/trivy/pkg/version/app.ver=${TRIVY_VERSION#v}" \
		-o "$TRIVY_DIR/trivy.tmp" ./cmd/trivy) >&2 || die "building trivy $TRIVY_VERSION failed"
	mv "$TRIVY_DIR/trivy.tmp" "$TRIVY_DIR/trivy"
	rm -rf "$work"
	log "trivy built in $((SECONDS - start)) s"
fi
ln -sf "$TRIVY_DIR/trivy" "$BIN/trivy"

# --- ESLint (npm) -----------------------------------------------------------
# Installed into its own folder, keyed by the package list, with install
# scripts off; the eslint scanner loads its plugins from this folder only.
command -v npm >/dev/null || die "npm is needed to install eslint and its security plugins"
ESLINT_DIR=$TOOLS/eslint-$(printf '%s' "$ESLINT_PACKAGES" | sha256sum | cut -c1-16)
if [ ! -x "$ESLINT_DIR/node_modules/.bin/eslint" ]; then
	log "npm install $ESLINT_PACKAGES"
	rm -rf "$ESLINT_DIR.tmp"
	# shellcheck disable=SC2086 # one word per package
	npm install --prefix "$ESLINT_DIR.tmp" --no-audit --no-fund --ignore-scripts --loglevel=error $ESLINT_PACKAGES >&2 ||
		die "npm install of eslint and its plugins failed"
	rm -rf "$ESLINT_DIR"
	mv "$ESLINT_DIR.tmp" "$ESLINT_DIR"
fi
ln -sf "$ESLINT_DIR/node_modules/.bin/eslint" "$BIN/eslint"

# Every tool must answer its version flag, or CI stops here with the reason.
check() {
	local out
	out=$("$@" 2>&1) || die "$* failed: $(echo "$out" | head -c 300)"
	log "ok: $1: $(echo "$out" | tr -s '\n\t ' ' ' | head -c 120)"
}
check bandit --version
check nmap --version
check "$BIN/gosec" -version
check "$BIN/osv-scanner" --version
check "$BIN/govulncheck" -version
check "$BIN/kics" version
check "$BIN/trivy" --version
check "$BIN/eslint" --version

# --- Offline databases from the committed fixtures -------------------------
VULNDB=$ROOT/testdata/wrappers/vulndb
log "building the offline databases from $VULNDB"
rm -rf "$DBS/osv" "$DBS/trivy" "$DBS/govulndb"
# govulncheck reads the Go vulnerability database as files: a copy under
# the tools directory, so SVC_GOVULN_DB never points into the clone.
cp -r "$VULNDB/govulndb" "$DBS/govulndb" || die "copying the Go vulnerability database fixture failed"
python3 - "$DBS/osv/osv-scalibr" "$VULNDB" <<'PY' || die "building the OSV zips failed"
import glob, os, sys, zipfile
out, src = sys.argv[1], sys.argv[2]
for eco, d in (("npm", "osv/npm"), ("Go", "govulndb/ID")):
    files = sorted(glob.glob(os.path.join(src, d, "*.json")))
    if not files:
        sys.exit(f"no OSV records under {d}")
    os.makedirs(os.path.join(out, eco), exist_ok=True)
    with zipfile.ZipFile(os.path.join(out, eco, "all.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for f in files:
            z.write(f, os.path.basename(f))
PY
# The Trivy DB generator is its own module, so bbolt never enters scand's.
(cd "$ROOT/tools/trivydb" && go build -o "$TOOLS/trivydb-gen" .) >&2 || die "building tools/trivydb failed"
"$TOOLS/trivydb-gen" -out "$DBS/trivy" -now 2026-01-01T00:00:00Z "$VULNDB/osv/npm" "$VULNDB/govulndb/ID" ||
	die "generating the Trivy DB failed"

# gosec and govulncheck load the fixture module with the go command, which
# scand runs with GOPROXY=off: its dependency must already be in the
# module cache. -mod=readonly: a go.sum the download would rewrite is an
# error here, not an edit of the clone.
(cd "$ROOT/testdata/wrappers/tree/goapp" && GOFLAGS=-mod=readonly go mod download) >&2 ||
	die "go mod download for the fixture module failed"

STATUS_AFTER=$(clone_status)
[ "$STATUS_BEFORE" = "$STATUS_AFTER" ] || die "the clone changed while installing (everything belongs under $TOOLS):
$(diff <(printf '%s\n' "$STATUS_BEFORE") <(printf '%s\n' "$STATUS_AFTER") || true)"

emit() {
	cat <<EOF
export PATH="$BIN:\$PATH"
export SVC_OSV_DB="$DBS/osv"
export SVC_GOVULN_DB="$DBS/govulndb"
export SVC_TRIVY_CACHE="$DBS/trivy"
export SVC_KICS_QUERIES="$KICS_DIR/assets/queries"
export SVC_ESLINT_MODULES="$ESLINT_DIR/node_modules"
EOF
}
if [ -n "$ENV_OUT" ]; then
	emit >"$ENV_OUT"
	log "environment written to $ENV_OUT"
else
	emit
fi
log "done"
