// Package dockerfile is the built-in `dockerfile` scanner (scan type iac):
// it finds the Dockerfiles and Containerfiles of a tree, parses them
// without a Docker engine (parse.go) and applies the rule table in the
// comment below.
package dockerfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/rules"
	"scand/scan/tree"
)

// The dockerfile scanner (scan type iac) audits every Dockerfile of a source
// tree without a Docker engine: it parses each file (see parse.go) and
// applies the rules below.
//
// Files: Dockerfile, Dockerfile.*, *.Dockerfile, *.dockerfile, Containerfile
// and Containerfile.* (a Dockerfile.dockerignore is an ignore file, not a
// Dockerfile). The directories no project owns (tree.SkipDir: VCS
// metadata, node_modules, vendor, virtualenvs, ...) are skipped, symlinks
// are not followed, and files over 1 MiB are skipped with a log line. A
// file with no FROM is not a Dockerfile and yields nothing.
//
// Lines: a finding points at the 1-based line of the offending word. Inside
// an instruction continued over several lines that is the continuation line
// holding the word (the `curl -k` three lines below the RUN), inside a RUN
// heredoc it is the body line. Rules about a whole stage (no USER, no
// HEALTHCHECK) point at the stage's FROM line.
//
// Stages: a FROM naming an earlier stage (`FROM build`) is not a base image
// and inherits that stage's USER, HEALTHCHECK and ENV; ARGs declared before
// the first FROM are substituted into image references. "Final stage" is the
// last stage of the file, which is what `docker build` produces without
// --target. ONBUILD triggers are not analysed (they run in child images).
// RUN rules only apply to POSIX shells: a stage with a non-POSIX SHELL or a
// Windows base image is skipped by them.
//
// Rules (rule_id, metadata.rule_name, severity, CWE):
//
//	DF001 latest-tag                          medium CWE-1104  FROM image:latest
//	DF002 untagged-base-image                 medium CWE-1104  FROM image with neither tag nor digest
//	DF003 base-image-not-pinned-by-digest     info   CWE-829   FROM image:tag without @sha256 digest
//	DF004 no-user-in-final-stage              medium CWE-250   final stage never sets USER (runs as root)
//	DF005 root-user-in-final-stage            medium CWE-250   final stage's last USER is root or 0
//	DF006 add-remote-url                      medium CWE-494   ADD <url> without --checksum
//	DF007 add-instead-of-copy                 low    CWE-16    ADD of local files that are not archives
//	DF008 remote-script-piped-to-shell        high   CWE-494   curl/wget ... | sh (or sh -c "$(curl ...)")
//	DF009 secret-in-env-or-arg                high   CWE-798   ENV/ARG password, secret, token, api key... with a literal value
//	DF010 apt-install-recommends              low    CWE-16    apt-get install without --no-install-recommends
//	DF011 apt-lists-not-removed               low    CWE-16    apt-get update/install without rm -rf /var/lib/apt/lists/* in the same RUN
//	DF012 apt-upgrade                         info   CWE-16    apt-get upgrade / dist-upgrade / full-upgrade
//	DF013 sudo-in-run                         medium CWE-250   sudo (or doas) in RUN
//	DF014 ssh-port-exposed                    medium CWE-16    EXPOSE 22
//	DF015 world-writable-permissions          medium CWE-732   chmod 777 / o+w / a+rwx, COPY/ADD --chmod=777
//	DF016 no-healthcheck                      info   CWE-16    final stage has no HEALTHCHECK
//	DF017 build-context-copied-without-ignore medium CWE-538   COPY . . / ADD . . with no .dockerignore beside the Dockerfile
//	DF018 apk-add-without-no-cache            low    CWE-16    apk add without --no-cache
//	DF019 pip-install-without-no-cache-dir    low    CWE-16    pip install without --no-cache-dir
//	DF020 relative-workdir                    low    CWE-16    WORKDIR with a relative path
//	DF021 maintainer-deprecated               info   CWE-477   MAINTAINER instruction
//	DF022 overridden-cmd-or-entrypoint        low    CWE-1164  CMD/ENTRYPOINT overridden later in the same stage
//	DF023 cd-in-run                           info   CWE-16    cd in RUN instead of WORKDIR
//	DF024 tls-verification-disabled           high   CWE-295   curl -k/--insecure, wget --no-check-certificate
//	DF025 plain-http-download                 medium CWE-319   curl/wget/ADD of an http:// URL (loopback excepted)
//	DF026 npm-unsafe-perm                     medium CWE-250   npm ... --unsafe-perm
//	DF027 shell-form-entrypoint               low    CWE-16    ENTRYPOINT in shell form (signals do not reach the app)
//	DF028 apt-package-not-pinned              low    CWE-1357  apt-get/apt install of a package without =version
//	DF029 apk-package-not-pinned              low    CWE-1357  apk add of a package without =version (or ~, <, >)
//	DF030 pip-package-not-pinned              low    CWE-1357  pip install of a package without ==version (requirements/constraints files exempt)
//	DF031 npm-package-not-pinned              low    CWE-1357  npm install/add of a named package without @version
//	DF032 gem-package-not-pinned              low    CWE-1357  gem install without -v/--version or name:version
//	DF033 pipe-without-pipefail               low    CWE-754   RUN with a pipe and no `set -o pipefail` (or SHELL with -o pipefail) before it
//	DF034 rpm-cache-not-cleaned               low    CWE-16    yum/dnf/zypper install without yum/dnf clean all, zypper clean, or removing the cache in the same RUN
//	DF035 rpm-install-interactive             low    CWE-16    yum/dnf install without -y, zypper install without -n/--non-interactive or -y
//	DF036 rpm-package-not-pinned              low    CWE-1357  yum/dnf install without name-version, zypper install without =version
//
// Exceptions that keep the noise down, each for a documented reason:
// DF001-DF003 skip `scratch` and references that stay unresolved after ARG
// substitution; DF004 skips base images whose reference says "nonroot"
// (distroless, Chainguard), which set a non-root USER themselves, and
// images built FROM scratch, which have no users at all (a static binary
// chosen by whoever builds it); DF009
// skips names ending in _FILE, _PATH, _DIR, ... (they point at a secret,
// they are not one), values that are a variable reference and booleans; its
// snippet and metadata carry only a redacted value. DF010 is not raised when
// the file configures APT::Install-Recommends; DF011, DF018 and DF019 are
// not raised when the RUN uses a BuildKit cache mount for that cache, and
// DF019 not when the stage sets PIP_NO_CACHE_DIR. DF017 accepts either
// .dockerignore or <dockerfile name>.dockerignore in the Dockerfile's
// directory (the build context is assumed to be that directory).
// DF028-DF032 and DF036 report once per command, listing the unpinned
// packages in metadata.packages, and skip arguments that are options,
// variables, local files or URLs; DF028-DF030 also skip packages installed
// from a requirements or constraints file, which pins them there. DF033 is
// not raised when the stage's SHELL sets -o pipefail, nor for a shell that
// lacks the option (a RUN's script is read as POSIX sh, so the fix is
// `SHELL ["/bin/bash", "-o", "pipefail", "-c"]` or `set -o pipefail`).
//
// Findings carry metadata.instruction_line, the line of the instruction a
// continuation line belongs to, which is where KICS reports the same
// problem: the equivalence table in package finding merges the two.

// dockerfileMaxSize bounds what is read of one file: a Dockerfile is a few
// kilobytes, anything over a megabyte is not one worth parsing.
const dockerfileMaxSize = 1 << 20

// dockerfileRules is the rule table; read-only.
var dockerfileRules = rules.Table{Scanner: "dockerfile", ScanType: scan.TypeIaC, Rules: []rules.Rule{
	rules.New("DF001", "latest-tag", finding.Medium, "CWE-1104", "Base image uses the mutable :latest tag",
		"Pin the base image to a specific version tag (and ideally a digest: image:1.2.3@sha256:...) so builds are reproducible and an upstream change cannot silently alter the image."),
	rules.New("DF002", "untagged-base-image", finding.Medium, "CWE-1104", "Base image has no tag",
		"An untagged image means :latest. Pin a specific version tag (and ideally a digest) so builds are reproducible."),
	rules.New("DF003", "base-image-not-pinned-by-digest", finding.Info, "CWE-829", "Base image is not pinned by digest",
		"Tags can be re-pointed by whoever controls the registry. Append the digest (image:tag@sha256:...) and update it deliberately, e.g. with Dependabot or Renovate."),
	rules.New("DF004", "no-user-in-final-stage", finding.Medium, "CWE-250", "Final stage runs as root (no USER)",
		"Create an unprivileged user and switch to it before the final CMD/ENTRYPOINT, e.g. `RUN useradd -r -u 10001 app` then `USER 10001`."),
	rules.New("DF005", "root-user-in-final-stage", finding.Medium, "CWE-250", "Final stage switches to the root user",
		"End the final stage with `USER <non-root uid>`; do the root-only steps before it."),
	rules.New("DF006", "add-remote-url", finding.Medium, "CWE-494", "ADD downloads a remote file without integrity check",
		"Use `ADD --checksum=sha256:<digest> <url> <dest>`, or download with curl/wget in a RUN and verify the checksum or signature before use."),
	rules.New("DF007", "add-instead-of-copy", finding.Low, "CWE-16", "ADD used where COPY suffices",
		"ADD silently extracts archives and fetches URLs; use COPY for local files and directories so the instruction does only what it says."),
	rules.New("DF008", "remote-script-piped-to-shell", finding.High, "CWE-494", "Remote script piped into an interpreter",
		"Download the script to a file, verify its checksum or signature, then run it; or install the software from a package manager or a pinned release artifact."),
	rules.New("DF009", "secret-in-env-or-arg", finding.High, "CWE-798", "Secret value in ENV or ARG",
		"ENV and ARG values are stored in the image metadata and history, readable by anyone who can pull the image. Pass secrets at build time with `RUN --mount=type=secret` and at run time via environment or a secret store; rotate the exposed value."),
	rules.New("DF010", "apt-install-recommends", finding.Low, "CWE-16", "apt-get install without --no-install-recommends",
		"Add --no-install-recommends so only the required packages (and their attack surface) end up in the image."),
	rules.New("DF011", "apt-lists-not-removed", finding.Low, "CWE-16", "APT package lists left in the image",
		"End the same RUN with `&& rm -rf /var/lib/apt/lists/*` (or use a BuildKit cache mount for /var/lib/apt) so stale package indexes do not bloat the layer."),
	rules.New("DF012", "apt-upgrade", finding.Info, "CWE-16", "apt-get upgrade in the image build",
		"Upgrading every package makes the build non-reproducible; rebuild from a newer, pinned base image instead, and install specific package versions where needed."),
	rules.New("DF013", "sudo-in-run", finding.Medium, "CWE-250", "sudo used in RUN",
		"RUN already has the privileges of the current USER; switch with `USER root` for the steps that need it and back to the unprivileged user afterwards, and do not install sudo in the image."),
	rules.New("DF014", "ssh-port-exposed", finding.Medium, "CWE-16", "SSH port 22 exposed",
		"Do not run an SSH daemon in a container; use `docker exec`/`kubectl exec` for debugging and remove EXPOSE 22."),
	rules.New("DF015", "world-writable-permissions", finding.Medium, "CWE-732", "World-writable file permissions",
		"Grant only what is needed (e.g. 755 for directories, 644 for files) and give ownership to the runtime user with chown or COPY --chown instead of opening the file to everyone."),
	rules.New("DF016", "no-healthcheck", finding.Info, "CWE-16", "Final stage has no HEALTHCHECK",
		"Add a HEALTHCHECK (e.g. `HEALTHCHECK CMD wget -qO- http://127.0.0.1:8080/healthz || exit 1`) so the runtime can detect a hung container; use `HEALTHCHECK NONE` to record a deliberate choice."),
	rules.New("DF017", "build-context-copied-without-ignore", finding.Medium, "CWE-538", "Whole build context copied without a .dockerignore",
		"Add a .dockerignore next to the Dockerfile excluding .git, .env, credentials, keys and build output, or copy only the files the image needs."),
	rules.New("DF018", "apk-add-without-no-cache", finding.Low, "CWE-16", "apk add without --no-cache",
		"Use `apk add --no-cache ...` so the package index is not stored in the layer."),
	rules.New("DF019", "pip-install-without-no-cache-dir", finding.Low, "CWE-16", "pip install without --no-cache-dir",
		"Use `pip install --no-cache-dir ...` (or ENV PIP_NO_CACHE_DIR=1) so pip's download cache is not stored in the layer."),
	rules.New("DF020", "relative-workdir", finding.Low, "CWE-16", "WORKDIR uses a relative path",
		"Use an absolute path; a relative WORKDIR depends on every earlier WORKDIR, including the base image's."),
	rules.New("DF021", "maintainer-deprecated", finding.Info, "CWE-477", "MAINTAINER is deprecated",
		"Replace it with `LABEL org.opencontainers.image.authors=\"...\"`."),
	rules.New("DF022", "overridden-cmd-or-entrypoint", finding.Low, "CWE-1164", "CMD or ENTRYPOINT overridden later in the same stage",
		"Only the last CMD and the last ENTRYPOINT of a stage take effect; remove the earlier one so the file says what the image does."),
	rules.New("DF023", "cd-in-run", finding.Info, "CWE-16", "cd used in RUN",
		"Use WORKDIR to change directory; it is explicit, applies to later instructions and is easier to review."),
	rules.New("DF024", "tls-verification-disabled", finding.High, "CWE-295", "Download with TLS certificate verification disabled",
		"Remove -k/--insecure/--no-check-certificate; if a private CA is needed, add it to the trust store (COPY ca.crt + update-ca-certificates) or pass --cacert."),
	rules.New("DF025", "plain-http-download", finding.Medium, "CWE-319", "Download over plain HTTP",
		"Use https:// and verify a checksum or signature of what is downloaded; a network attacker can replace plain-HTTP content."),
	rules.New("DF026", "npm-unsafe-perm", finding.Medium, "CWE-250", "npm run with --unsafe-perm",
		"--unsafe-perm runs package lifecycle scripts as root; install as an unprivileged USER instead, or use --ignore-scripts where possible."),
	rules.New("DF027", "shell-form-entrypoint", finding.Low, "CWE-16", "ENTRYPOINT in shell form",
		"Shell form runs the program under /bin/sh -c, which does not forward SIGTERM, so the container cannot stop gracefully; use the exec form ENTRYPOINT [\"/app\", \"arg\"]."),
	rules.New("DF028", "apt-package-not-pinned", finding.Low, "CWE-1357", "apt package installed without a pinned version",
		"Pin the versions you tested (`apt-get install -y --no-install-recommends curl=8.5.0-2ubuntu10.6`) so a rebuild cannot pull a different, possibly compromised or broken, package."),
	rules.New("DF029", "apk-package-not-pinned", finding.Low, "CWE-1357", "apk package installed without a pinned version",
		"Pin the versions you tested (`apk add --no-cache curl=8.5.0-r0`) so a rebuild cannot pull a different package."),
	rules.New("DF030", "pip-package-not-pinned", finding.Low, "CWE-1357", "pip package installed without a pinned version",
		"Pin exact versions (`pip install flask==3.0.3`), or install from a requirements file with pinned versions and hashes (`pip install --require-hashes -r requirements.txt`)."),
	rules.New("DF031", "npm-package-not-pinned", finding.Low, "CWE-1357", "npm package installed without a pinned version",
		"Pin the version (`npm install -g typescript@5.4.5`), or install the project's dependencies from its lockfile with `npm ci`."),
	rules.New("DF032", "gem-package-not-pinned", finding.Low, "CWE-1357", "gem installed without a pinned version",
		"Pin the version (`gem install bundler -v 2.5.9` or `bundler:2.5.9`), or install from a Gemfile.lock with `bundle install`."),
	rules.New("DF033", "pipe-without-pipefail", finding.Low, "CWE-754", "RUN pipes a command without pipefail",
		"A pipe's status is its last command's, so `curl ... | tar x` succeeds when the download fails. Set `SHELL [\"/bin/bash\", \"-o\", \"pipefail\", \"-c\"]` before the RUN, or start the script with `set -o pipefail`."),
	rules.New("DF034", "rpm-cache-not-cleaned", finding.Low, "CWE-16", "yum/dnf/zypper cache left in the image",
		"End the same RUN with `&& yum clean all` (`dnf clean all`, `zypper clean -a`) or remove /var/cache/yum (dnf, zypp), so package metadata does not bloat the layer."),
	rules.New("DF035", "rpm-install-interactive", finding.Low, "CWE-16", "yum/dnf/zypper install without automatic confirmation",
		"Add -y (yum, dnf) or -n/--non-interactive (zypper): a build waiting for an answer fails or hangs."),
	rules.New("DF036", "rpm-package-not-pinned", finding.Low, "CWE-1357", "yum/dnf/zypper package installed without a pinned version",
		"Pin the versions you tested (`yum install -y httpd-2.4.57`, `zypper install -y curl=8.6.0`) so a rebuild cannot pull a different package."),
}}

type dockerfileScanner struct {
	scan.Builtin
	cfg scan.Config
}

// New returns the built-in Dockerfile auditor.
func New(cfg scan.Config) scan.Scanner {
	return &dockerfileScanner{Builtin: scan.NewBuiltin("dockerfile", scan.TypeIaC), cfg: cfg}
}

// Scan walks t.Path and audits every Dockerfile found.
func (s *dockerfileScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	root := t.Path
	if _, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("dockerfile: %w", err)
	}
	out := []finding.Finding{}
	walk := tree.Walk{Ignore: t.Ignored, Unreadable: func(p string, err error) {
		// An unreadable directory must not abort the whole scan.
		s.cfg.Log().Warn("dockerfile: cannot read", "path", p, "error", err)
	}}
	err := walk.Files(ctx, root, func(abs, rel string) error {
		name := filepath.Base(abs)
		if !dockerfileIsDockerfileName(name) {
			return nil
		}
		data, err := tree.ReadCapped(abs, dockerfileMaxSize)
		if errors.Is(err, tree.ErrTooLarge) {
			s.cfg.Log().Warn("dockerfile: file too large, skipped", "path", abs, "error", err)
			return nil
		}
		if err != nil {
			s.cfg.Log().Warn("dockerfile: cannot read", "path", abs, "error", err)
			return nil
		}
		dir := filepath.Dir(abs)
		hasIgnore := dockerfileFileExists(filepath.Join(dir, ".dockerignore")) ||
			dockerfileFileExists(filepath.Join(dir, name+".dockerignore"))
		out = append(out, dockerfileAnalyze(rel, dockerfileParse(string(data)), hasIgnore)...)
		return nil
	})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, fmt.Errorf("dockerfile: %w", err)
	}
	return out, nil
}

func dockerfileFileExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// dockerfileIsDockerfileName reports whether a file name is one of the
// Dockerfile naming conventions. Prefixes are case-sensitive on purpose: a
// Go source file named dockerfile.go is not a Dockerfile.
func dockerfileIsDockerfileName(name string) bool {
	if strings.HasSuffix(name, ".dockerignore") {
		return false
	}
	switch {
	case name == "Dockerfile", name == "Containerfile", name == "dockerfile", name == "containerfile":
		return true
	case strings.HasPrefix(name, "Dockerfile.") && len(name) > len("Dockerfile."),
		strings.HasPrefix(name, "Containerfile.") && len(name) > len("Containerfile."):
		return true
	case strings.HasSuffix(name, ".Dockerfile") && len(name) > len(".Dockerfile"),
		strings.HasSuffix(name, ".dockerfile") && len(name) > len(".dockerfile"):
		return true
	}
	return false
}

// dockerfileStage is one FROM ... section.
type dockerfileStage struct {
	index  int
	from   *dockerfileInstruction
	name   string // lower-case AS name, "" when unnamed
	image  string // image reference after ARG substitution
	parent *dockerfileStage
	body   []*dockerfileInstruction
	// posix is false when RUN is not run by a POSIX shell (SHELL
	// ["powershell", ...] or a Windows base image).
	posix bool
	// windows is set for Windows base images, whose users work differently.
	windows bool
}

// inherited walks the stage and the earlier stages it is built FROM, most
// recent instruction first, and returns the first instruction with the
// keyword.
func (st *dockerfileStage) inherited(keyword string) *dockerfileInstruction {
	for s := st; s != nil; s = s.parent {
		for i := len(s.body) - 1; i >= 0; i-- {
			if s.body[i].keyword == keyword {
				return s.body[i]
			}
		}
	}
	return nil
}

// label is how a finding names its stage in metadata.
func (st *dockerfileStage) label() string {
	if st.name != "" {
		return st.name
	}
	return fmt.Sprint(st.index)
}

// dockerfileAnalysis collects the findings of one file.
type dockerfileAnalysis struct {
	path      string
	file      *dockerfileFile
	hasIgnore bool
	out       []finding.Finding
	// aptNoRecommendsConfigured is set when the file writes an APT config
	// that disables recommends, which makes DF010 moot.
	aptNoRecommendsConfigured bool
	// cur is the instruction being checked: a finding on one of its
	// continuation lines records the instruction's own line.
	cur *dockerfileInstruction
}

func (a *dockerfileAnalysis) add(id string, line int, detail string, snippet string, meta map[string]any) {
	if snippet == "" {
		snippet = strings.TrimSpace(a.file.physical(line))
	}
	if meta == nil {
		meta = map[string]any{}
	}
	if _, set := meta[finding.MetaInstructionLine]; !set {
		meta[finding.MetaInstructionLine] = line
		if a.cur != nil && line >= a.cur.line {
			meta[finding.MetaInstructionLine] = a.cur.line
		}
	}
	a.out = append(a.out, dockerfileRules.Finding(id, a.path, line, detail, snippet, meta))
}

// dockerfileAnalyze applies every rule to one parsed file.
func dockerfileAnalyze(relPath string, f *dockerfileFile, hasIgnore bool) []finding.Finding {
	a := &dockerfileAnalysis{path: relPath, file: f, hasIgnore: hasIgnore}
	for _, l := range f.lines {
		if strings.Contains(l, "Install-Recommends") {
			a.aptNoRecommendsConfigured = true
		}
	}
	globalArgs := map[string]string{}
	var stages []*dockerfileStage
	var cur *dockerfileStage
	for _, in := range f.instructions {
		a.cur = in
		if in.keyword == "FROM" {
			cur = a.newStage(in, len(stages), stages, globalArgs)
			stages = append(stages, cur)
			continue
		}
		if cur == nil {
			if in.keyword == "ARG" {
				for _, w := range dockerfileWords(in.args, f.escape) {
					name, value, hasValue := strings.Cut(w.text, "=")
					if hasValue {
						globalArgs[name] = value
					}
				}
				a.checkSecretAssignments(in, nil)
			}
			continue
		}
		cur.body = append(cur.body, in)
		if in.keyword == "SHELL" && len(in.exec) > 0 {
			cur.posix = dockerfileIsPOSIXShell(in.exec[0])
		}
		a.checkInstruction(cur, in)
	}
	if len(stages) == 0 {
		return nil
	}
	for _, st := range stages {
		a.checkStageCommands(st)
	}
	a.cur = nil
	a.checkFinalStage(stages[len(stages)-1])
	return a.out
}

// newStage records a FROM and applies the base-image rules.
func (a *dockerfileAnalysis) newStage(in *dockerfileInstruction, index int, earlier []*dockerfileStage, globalArgs map[string]string) *dockerfileStage {
	st := &dockerfileStage{index: index, from: in, posix: true}
	words := dockerfileWords(in.args, a.file.escape)
	if len(words) >= 3 && strings.EqualFold(words[len(words)-2].text, "AS") {
		st.name = strings.ToLower(words[len(words)-1].text)
		words = words[:len(words)-2]
	}
	if len(words) == 0 {
		return st
	}
	imageWord := words[0]
	image, resolved := dockerfileExpandArgs(imageWord.text, globalArgs)
	st.image = image
	lower := strings.ToLower(image)
	for _, e := range earlier {
		if e.name != "" && e.name == lower {
			st.parent = e
			st.posix = e.posix
			st.windows = e.windows
			return st
		}
	}
	if strings.Contains(lower, "windows") || strings.Contains(lower, "nanoserver") || strings.Contains(lower, "servercore") {
		st.posix = false
		st.windows = true
	}
	if lower == "scratch" {
		return st
	}
	if !resolved {
		// The tag or digest comes from a build argument without a default;
		// whoever runs the build decides it, so nothing can be said here.
		return st
	}
	ref := dockerfileParseImageRef(image)
	meta := map[string]any{"image": image, "stage": st.label()}
	line := imageWord.line
	switch {
	case ref.digest != "":
	case ref.tag == "latest":
		a.add("DF001", line, fmt.Sprintf("FROM %s uses the :latest tag, which changes whenever the publisher pushes.", image), "", meta)
	case ref.tag == "":
		a.add("DF002", line, fmt.Sprintf("FROM %s has no tag, so Docker pulls :latest.", image), "", meta)
	default:
		a.add("DF003", line, fmt.Sprintf("FROM %s is pinned by tag only.", image), "", meta)
	}
	return st
}

// dockerfileImageRef is a parsed image reference.
type dockerfileImageRef struct{ name, tag, digest string }

func dockerfileParseImageRef(ref string) dockerfileImageRef {
	var r dockerfileImageRef
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		r.digest = ref[i+1:]
		ref = ref[:i]
	}
	slash := strings.LastIndexByte(ref, '/')
	if c := strings.LastIndexByte(ref, ':'); c > slash {
		r.tag = ref[c+1:]
		ref = ref[:c]
	}
	r.name = ref
	return r
}

// dockerfileExpandArgs substitutes $NAME, ${NAME} and ${NAME:-default}
// style references with the global ARG defaults. resolved is false when a
// reference has no value, in which case the reference is left in place.
func dockerfileExpandArgs(s string, vars map[string]string) (string, bool) {
	resolved := true
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		var name, op, word string
		end := i
		if s[i+1] == '{' {
			close := strings.IndexByte(s[i:], '}')
			if close < 0 {
				b.WriteString(s[i:])
				resolved = false
				break
			}
			inner := s[i+2 : i+close]
			end = i + close
			name = inner
			for _, candidate := range []string{":-", ":+", "-", "+"} {
				if j := strings.Index(inner, candidate); j > 0 {
					name, op, word = inner[:j], candidate, inner[j+len(candidate):]
					break
				}
			}
		} else {
			j := i + 1
			for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j == i+1 {
				b.WriteByte(s[i])
				continue
			}
			name = s[i+1 : j]
			end = j - 1
		}
		value, ok := vars[name]
		switch op {
		case ":-":
			if !ok || value == "" {
				value, ok = word, true
			}
		case "-":
			if !ok {
				value, ok = word, true
			}
		case ":+":
			if ok && value != "" {
				value = word
			} else {
				value, ok = "", true
			}
		case "+":
			if ok {
				value = word
			} else {
				value, ok = "", true
			}
		}
		if !ok {
			resolved = false
			b.WriteString(s[i : end+1])
		} else {
			b.WriteString(value)
		}
		i = end
	}
	return b.String(), resolved
}

// dockerfilePOSIXShells are the shells whose scripts the RUN rules can read.
var dockerfilePOSIXShells = map[string]bool{"sh": true, "bash": true, "ash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "busybox": true}

func dockerfileIsPOSIXShell(p string) bool { return dockerfilePOSIXShells[dockerfileBase(p)] }

// dockerfileIsInterpreter reports whether piping a download into program
// executes it: POSIX shells and script interpreters (python3.12 included).
func dockerfileIsInterpreter(program string) bool {
	p := strings.TrimRight(program, "0123456789.")
	if dockerfilePOSIXShells[p] {
		return true
	}
	switch p {
	case "fish", "python", "perl", "ruby", "node", "php":
		return true
	}
	return false
}

// checkInstruction applies the rules that look at one instruction.
func (a *dockerfileAnalysis) checkInstruction(st *dockerfileStage, in *dockerfileInstruction) {
	esc := a.file.escape
	meta := func() map[string]any { return map[string]any{"stage": st.label(), "instruction": in.keyword} }
	switch in.keyword {
	case "ENV", "ARG":
		a.checkSecretAssignments(in, st)
	case "EXPOSE":
		for _, w := range dockerfileWords(in.args, esc) {
			port, proto, _ := strings.Cut(w.text, "/")
			if proto != "" && !strings.EqualFold(proto, "tcp") {
				continue
			}
			lo, hi, isRange := strings.Cut(port, "-")
			if !isRange {
				hi = lo
			}
			if dockerfileAtoi(lo) <= 22 && dockerfileAtoi(hi) >= 22 && dockerfileAtoi(lo) > 0 {
				a.add("DF014", w.line, fmt.Sprintf("EXPOSE %s publishes the SSH port.", w.text), "", meta())
			}
		}
	case "WORKDIR":
		words := dockerfileWords(in.args, esc)
		if len(words) > 0 {
			dir := words[0].text
			if !strings.HasPrefix(dir, "/") && !strings.HasPrefix(dir, "$") && !strings.HasPrefix(dir, `\`) &&
				!(len(dir) >= 2 && dir[1] == ':') {
				a.add("DF020", words[0].line, fmt.Sprintf("WORKDIR %s is relative.", dir), "", meta())
			}
		}
	case "MAINTAINER":
		a.add("DF021", in.line, "", "", meta())
	case "ENTRYPOINT":
		if !in.isExec() && strings.TrimSpace(in.args.s) != "" {
			a.add("DF027", in.line, "", "", meta())
		}
	case "ADD", "COPY":
		a.checkCopy(st, in)
	}
}

// checkCopy applies the COPY/ADD rules.
func (a *dockerfileAnalysis) checkCopy(st *dockerfileStage, in *dockerfileInstruction) {
	meta := func() map[string]any { return map[string]any{"stage": st.label(), "instruction": in.keyword} }
	var sources []dockerfileWord
	if in.isExec() {
		for i, s := range in.exec {
			if i < len(in.exec)-1 {
				sources = append(sources, dockerfileWord{text: s, line: in.line})
			}
		}
	} else {
		words := dockerfileWords(in.args, a.file.escape)
		if len(words) > 1 {
			sources = words[:len(words)-1]
		}
	}
	if mode, ok := in.flag("chmod"); ok && dockerfileModeWorldWritable(mode) {
		a.add("DF015", in.line, fmt.Sprintf("%s --chmod=%s makes the copied files writable by every user.", in.keyword, mode), "", meta())
	}
	_, fromStage := in.flag("from")
	if !fromStage && !a.hasIgnore {
		for _, s := range sources {
			if s.text == "." || s.text == "./" || s.text == "*" || s.text == "./*" {
				a.add("DF017", s.line, fmt.Sprintf("%s %s copies the whole build context and there is no .dockerignore beside %s.", in.keyword, s.text, path.Base(a.path)), "", meta())
				break
			}
		}
	}
	if in.keyword != "ADD" || len(sources) == 0 {
		return
	}
	_, hasChecksum := in.flag("checksum")
	allLocalPlain := true
	for _, s := range sources {
		lower := strings.ToLower(s.text)
		remote := strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") ||
			strings.HasPrefix(lower, "ftp://") || strings.HasPrefix(lower, "git@") || strings.HasPrefix(lower, "git://")
		if remote {
			allLocalPlain = false
			if !hasChecksum {
				a.add("DF006", s.line, fmt.Sprintf("ADD fetches %s at build time without verifying it.", s.text), "", meta())
			}
			if strings.HasPrefix(lower, "http://") && !dockerfileIsLoopbackURL(lower) {
				a.add("DF025", s.line, fmt.Sprintf("ADD fetches %s over plain HTTP.", s.text), "", meta())
			}
			continue
		}
		if strings.Contains(s.text, "$") || strings.HasPrefix(s.text, "<<") || dockerfileIsArchive(lower) {
			allLocalPlain = false
		}
	}
	if allLocalPlain {
		a.add("DF007", in.line, "ADD copies only local, non-archive sources.", "", meta())
	}
}

// dockerfileIsArchive reports whether ADD would auto-extract the source.
func dockerfileIsArchive(name string) bool {
	for _, ext := range []string{".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".tar.lz", ".tar.lzma"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

func dockerfileIsLoopbackURL(u string) bool {
	rest := u[strings.Index(u, "://")+3:]
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if h, _, ok := strings.Cut(host, ":"); ok && !strings.HasPrefix(host, "[") {
		host = h
	}
	return host == "localhost" || strings.HasPrefix(host, "127.") || strings.HasPrefix(host, "[::1]")
}

// dockerfileModeWorldWritable reports whether a chmod mode gives write
// permission to "others": numeric modes with the others digit's write bit
// (777, 0666, 757) unless the sticky bit is set (1777 is the right mode for
// a shared /tmp), and symbolic clauses like o+w, a+rwx, a=rw.
func dockerfileModeWorldWritable(mode string) bool {
	if mode == "" {
		return false
	}
	numeric := true
	for _, c := range mode {
		if c < '0' || c > '7' {
			numeric = false
		}
	}
	if numeric {
		if len(mode) < 3 || len(mode) > 4 {
			return false
		}
		others := mode[len(mode)-1] - '0'
		if len(mode) == 4 && (mode[0]-'0')&1 != 0 {
			return false
		}
		return others&2 != 0
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+=-")
		if i < 0 {
			continue
		}
		who, op, perms := clause[:i], clause[i], clause[i+1:]
		if op == '-' || !strings.ContainsAny(who, "ao") {
			continue
		}
		if strings.Contains(perms, "w") && !strings.Contains(perms, "t") {
			return true
		}
	}
	return false
}

// dockerfileSecretSuffixes are name endings that say the variable points
// at a secret or describes one rather than holding it.
var dockerfileSecretSuffixes = map[string]bool{
	"FILE": true, "PATH": true, "DIR": true, "LENGTH": true, "LEN": true, "MIN": true, "MAX": true, "TYPE": true,
	"URL": true, "URI": true, "HOST": true, "PORT": true, "ENDPOINT": true, "NAME": true, "ID": true, "ENABLED": true,
	"TTL": true, "EXPIRY": true, "TIMEOUT": true, "HEADER": true, "ALGORITHM": true, "FORMAT": true, "VERSION": true,
	"REGION": true, "LOCATION": true, "MODE": true, "POLICY": true,
}

// dockerfileIsSecretName reports whether an ENV/ARG name says it holds a
// credential. Matching is on `_`-separated parts so TOKENIZERS_PARALLELISM
// or PWD (the working directory) do not match.
func dockerfileIsSecretName(name string) bool {
	parts := strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(parts) == 0 || dockerfileSecretSuffixes[parts[len(parts)-1]] {
		return false
	}
	for i, p := range parts {
		for _, s := range []string{"PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "PRIVATEKEY", "ACCESSKEY", "SECRETKEY", "CREDENTIALS", "CREDENTIAL"} {
			if strings.HasSuffix(p, s) {
				return true
			}
		}
		if p == "PASS" {
			return true
		}
		if p == "KEY" && i > 0 {
			switch parts[i-1] {
			case "API", "PRIVATE", "ACCESS", "SECRET", "AUTH", "ENCRYPTION", "SIGNING", "MASTER", "LICENSE":
				return true
			}
		}
	}
	return false
}

// dockerfileIsLiteralSecret reports whether an assigned value is a literal
// that could be a credential (not empty, not a variable reference, not a
// boolean or single digit).
func dockerfileIsLiteralSecret(v string) bool {
	if v == "" || strings.HasPrefix(v, "$") {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "none", "null", "0", "1":
		return false
	}
	return true
}

// dockerfileRedact keeps enough of a value to recognise it and no more.
func dockerfileRedact(v string) string {
	if len(v) >= 12 {
		return v[:3] + "********"
	}
	return "********"
}

// checkSecretAssignments applies DF009 to ENV and ARG. st is nil for
// global ARGs.
func (a *dockerfileAnalysis) checkSecretAssignments(in *dockerfileInstruction, st *dockerfileStage) {
	words := dockerfileWords(in.args, a.file.escape)
	type pair struct {
		name, value string
		line        int
	}
	var pairs []pair
	if in.keyword == "ENV" && len(words) >= 2 && !strings.Contains(words[0].text, "=") {
		// Legacy form: ENV NAME value with spaces.
		vals := make([]string, 0, len(words)-1)
		for _, w := range words[1:] {
			vals = append(vals, w.text)
		}
		pairs = append(pairs, pair{words[0].text, strings.Join(vals, " "), words[0].line})
	} else {
		for _, w := range words {
			if name, value, ok := strings.Cut(w.text, "="); ok {
				pairs = append(pairs, pair{name, value, w.line})
			}
		}
	}
	for _, p := range pairs {
		if !dockerfileIsSecretName(p.name) || !dockerfileIsLiteralSecret(p.value) {
			continue
		}
		redacted := dockerfileRedact(p.value)
		meta := map[string]any{"instruction": in.keyword, "variable": p.name, "redacted_value": redacted}
		if st != nil {
			meta["stage"] = st.label()
		}
		a.add("DF009", p.line, fmt.Sprintf("%s %s is set to a literal value (%s).", in.keyword, p.name, redacted),
			fmt.Sprintf("%s %s=%s", in.keyword, p.name, redacted), meta)
	}
}

func dockerfileAtoi(s string) int {
	n := 0
	if s == "" || len(s) > 6 {
		return -1
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// checkStageCommands applies the RUN rules and the per-stage CMD and
// ENTRYPOINT rule.
func (a *dockerfileAnalysis) checkStageCommands(st *dockerfileStage) {
	var lastCmd, lastEntrypoint *dockerfileInstruction
	for _, in := range st.body {
		a.cur = in
		switch in.keyword {
		case "CMD", "ENTRYPOINT":
			prev := &lastCmd
			if in.keyword == "ENTRYPOINT" {
				prev = &lastEntrypoint
			}
			if *prev != nil {
				a.add("DF022", (*prev).line, fmt.Sprintf("This %s has no effect: line %d sets it again in the same stage.", in.keyword, in.line), "",
					map[string]any{"stage": st.label(), "instruction": in.keyword, "overridden_by_line": in.line})
			}
			*prev = in
		case "RUN":
			if st.posix {
				a.checkRun(st, in)
			}
		}
	}
}

// runCommands returns the commands a RUN executes, including the body of a
// heredoc fed to a shell.
func (a *dockerfileAnalysis) runCommands(in *dockerfileInstruction) []dockerfileShellCmd {
	if in.isExec() {
		if len(in.exec) >= 3 && dockerfileIsPOSIXShell(in.exec[0]) && in.exec[1] == "-c" {
			return dockerfileShellParse(dockerfileSingleLine(in.exec[2], in.line))
		}
		var c dockerfileShellCmd
		for _, e := range in.exec {
			c.words = append(c.words, dockerfileWord{text: e, line: in.line})
		}
		return []dockerfileShellCmd{c}
	}
	// Blank out heredoc markers so `RUN <<EOF` is an empty command and
	// `RUN python3 <<EOF` runs python3, without shifting offsets.
	main := in.args
	if len(in.heredocs) > 0 {
		b := []byte(main.s)
		for _, h := range in.heredocs {
			for i := h.markerOff; i < h.markerEnd; i++ {
				b[i] = ' '
			}
		}
		main.s = string(b)
	}
	cmds := dockerfileShellParse(main)
	bodyIsShell := len(cmds) == 0
	for _, c := range cmds {
		if dockerfileIsPOSIXShell(c.name()) && !c.hasArg("-c") {
			bodyIsShell = true
		}
	}
	if bodyIsShell {
		for _, h := range in.heredocs {
			// A body with a shebang for another interpreter is not shell.
			first, _, _ := strings.Cut(h.body.s, "\n")
			if shebang, ok := strings.CutPrefix(first, "#!"); ok {
				fields := strings.Fields(shebang)
				interp := ""
				if len(fields) > 0 {
					interp = dockerfileBase(fields[0])
				}
				if interp == "env" && len(fields) > 1 {
					interp = dockerfileBase(fields[1])
				}
				if !dockerfileIsPOSIXShell(interp) {
					continue
				}
			}
			cmds = append(cmds, dockerfileShellParse(h.body)...)
		}
	}
	return cmds
}

// dockerfileCacheMount reports whether the RUN mounts a BuildKit cache whose target
// contains dir.
func dockerfileCacheMount(in *dockerfileInstruction, dir string) bool {
	for _, f := range in.flags {
		if f.name != "mount" || !strings.Contains(f.value, "type=cache") {
			continue
		}
		for _, kv := range strings.Split(f.value, ",") {
			k, v, _ := strings.Cut(kv, "=")
			if (k == "target" || k == "dst" || k == "destination") && strings.Contains(v, dir) {
				return true
			}
		}
	}
	return false
}

// checkRun applies the rules that read a RUN's commands.
func (a *dockerfileAnalysis) checkRun(st *dockerfileStage, in *dockerfileInstruction) {
	cmds := a.runCommands(in)
	meta := func() map[string]any { return map[string]any{"stage": st.label(), "instruction": "RUN"} }
	// aptInstall is the first apt-get update/install of the RUN: the step
	// that fetches package lists into the layer.
	var aptInstall, apkAdd *dockerfileWord
	aptListsRemoved, apkCacheRemoved := false, false
	sawCd := false
	pipNoCache := a.stageSetsEnv(st, "PIP_NO_CACHE_DIR", in)
	// DF033: a SHELL with -o pipefail, or `set -o pipefail` earlier in
	// this RUN, makes pipes safe.
	pipefail, reportedPipe := a.stageShellPipefail(st, in), false
	var rpmInstall *dockerfileWord
	rpmCacheCleaned := false
	for i, c := range cmds {
		// DF013: the first real word being sudo means the step escalates.
		for _, w := range c.words {
			if dockerfileIsAssignment(w.text) || dockerfileShellKeywords[w.text] {
				continue
			}
			if b := dockerfileBase(w.text); b == "sudo" || b == "doas" {
				a.add("DF013", w.line, "", "", meta())
			}
			break
		}
		p := c.program()
		if p < 0 {
			continue
		}
		prog := c.words[p]
		name := dockerfileBase(prog.text)
		switch {
		case name == "curl" || name == "wget":
			// DF008: the download feeds, through any filters, an
			// interpreter.
			for j := i; j < len(cmds) && cmds[j].pipeNext && j+1 < len(cmds); j++ {
				if dockerfileIsInterpreter(cmds[j+1].name()) {
					a.add("DF008", prog.line, fmt.Sprintf("%s output is piped into %s.", name, cmds[j+1].name()), "", meta())
					break
				}
			}
			for _, w := range c.args() {
				t := w.text
				insecure := false
				if name == "curl" {
					insecure = t == "-k" || t == "--insecure" ||
						(len(t) > 1 && t[0] == '-' && t[1] != '-' && dockerfileIsLetters(t[1:]) && strings.Contains(t[1:], "k"))
				} else {
					insecure = t == "--no-check-certificate"
				}
				if insecure {
					a.add("DF024", w.line, fmt.Sprintf("%s %s disables certificate verification.", name, t), "", meta())
				}
				if lower := strings.ToLower(t); strings.HasPrefix(lower, "http://") && !dockerfileIsLoopbackURL(lower) {
					a.add("DF025", w.line, fmt.Sprintf("%s fetches %s over plain HTTP.", name, t), "", meta())
				}
			}
		case dockerfileIsInterpreter(name):
			// DF008, substitution form: sh -c "$(curl ...)", bash <(wget ...).
			for _, w := range c.args() {
				for _, pat := range []string{"$(curl", "$(wget", "<(curl", "<(wget", "`curl", "`wget"} {
					if strings.Contains(w.text, pat) {
						a.add("DF008", w.line, fmt.Sprintf("%s runs the output of %s.", name, strings.TrimLeft(pat, "$<(`")), "", meta())
						break
					}
				}
			}
		case name == "apt-get" || name == "apt":
			sub, ok := c.subcommand()
			if !ok {
				break
			}
			switch sub.text {
			case "update":
				if aptInstall == nil {
					w := prog
					aptInstall = &w
				}
			case "install":
				if aptInstall == nil {
					w := prog
					aptInstall = &w
				}
				a.unpinned("DF028", prog, dockerfilePackageArgs(c, sub, dockerfileAptValueFlags), func(p string) bool {
					return strings.Contains(p, "=") || strings.HasSuffix(p, ".deb")
				}, meta())
				if !c.hasArg("--no-install-recommends") && !a.aptNoRecommendsConfigured {
					a.add("DF010", prog.line, "", "", meta())
				}
			case "upgrade", "dist-upgrade", "full-upgrade":
				a.add("DF012", sub.line, fmt.Sprintf("%s %s upgrades every installed package.", name, sub.text), "", meta())
			}
		case name == "apk":
			if sub, ok := c.subcommand(); ok && sub.text == "add" && !c.hasArg("--no-cache") && apkAdd == nil {
				w := prog
				apkAdd = &w
			}
			if sub, ok := c.subcommand(); ok && sub.text == "add" {
				a.unpinned("DF029", prog, dockerfilePackageArgs(c, sub, dockerfileApkValueFlags), func(p string) bool {
					return strings.ContainsAny(p, "=~<>")
				}, meta())
			}
		case name == "yum" || name == "dnf" || name == "microdnf" || name == "zypper":
			if sub, ok := c.subcommand(); ok && (sub.text == "clean" || sub.text == "cc") {
				rpmCacheCleaned = true
			}
			rpmInstall = a.checkRPM(c, prog, name, rpmInstall, meta)
		case name == "gem":
			if sub, ok := c.subcommand(); ok && sub.text == "install" && !c.hasArg("-v", "--version") {
				a.unpinned("DF032", prog, dockerfilePackageArgs(c, sub, dockerfileGemValueFlags), func(p string) bool {
					return strings.Contains(p, ":") || strings.HasSuffix(p, ".gem")
				}, meta())
			}

		case name == "rm":
			for _, w := range c.args() {
				if strings.HasPrefix(w.text, "/var/lib/apt/lists") {
					aptListsRemoved = true
				}
				if strings.HasPrefix(w.text, "/var/cache/apk") {
					apkCacheRemoved = true
				}
				if strings.HasPrefix(w.text, "/var/cache/yum") || strings.HasPrefix(w.text, "/var/cache/dnf") || strings.HasPrefix(w.text, "/var/cache/zypp") {
					rpmCacheCleaned = true
				}
			}
		case name == "chmod":
			if mode, ok := dockerfileChmodMode(c.args()); ok && dockerfileModeWorldWritable(mode.text) {
				a.add("DF015", mode.line, fmt.Sprintf("chmod %s makes files writable by every user.", mode.text), "", meta())
			}
		case name == "npm":
			for _, w := range c.args() {
				if w.text == "--unsafe-perm" || w.text == "--unsafe-perm=true" {
					a.add("DF026", w.line, "", "", meta())
				}
			}
		case name == "cd":
			if !sawCd {
				sawCd = true
				a.add("DF023", prog.line, "", "", meta())
			}
		}
		if name == "npm" && dockerfileNPMInstalls(c) {
			sub, _ := c.subcommand()
			a.unpinned("DF031", prog, dockerfilePackageArgs(c, sub, dockerfileNPMValueFlags), func(p string) bool {
				at := strings.LastIndexByte(p, '@')
				return at > 0 || strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") || strings.Contains(p, ":") || strings.HasSuffix(p, ".tgz")
			}, meta())
		}
		if dockerfileIsPipInstall(c) && !c.hasArg("--no-cache-dir") && !pipNoCache && !dockerfileCacheMount(in, "pip") {
			a.add("DF019", prog.line, "", "", meta())
		}
		if dockerfileIsPipInstall(c) && !c.hasArg("-r", "--requirement", "-c", "--constraint") {
			a.unpinned("DF030", prog, dockerfilePipPackages(c), func(p string) bool {
				return strings.Contains(p, "==") || strings.Contains(p, " @ ") || strings.Contains(p, "://") ||
					strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") || strings.HasSuffix(p, ".whl") || strings.HasSuffix(p, ".tar.gz")
			}, meta())
		}
		if c.pipeNext && !pipefail && !reportedPipe && a.stageShellIsPOSIX(st) {
			reportedPipe = true
			a.add("DF033", prog.line, fmt.Sprintf("%s's output is piped without pipefail, so its failure is ignored.", name), "", meta())
		}
		if name == "set" && dockerfileSetsPipefail(c) {
			pipefail = true
		}
	}
	if rpmInstall != nil {
		cleaned := rpmCacheCleaned || dockerfileCacheMount(in, "/var/cache/yum") || dockerfileCacheMount(in, "/var/cache/dnf") ||
			dockerfileCacheMount(in, "/var/cache/zypp")
		if !cleaned {
			a.add("DF034", rpmInstall.line, "", "", meta())
		}
	}
	if aptInstall != nil && !aptListsRemoved && !dockerfileCacheMount(in, "/var/lib/apt") {
		a.add("DF011", aptInstall.line, "", "", meta())
	}
	if apkAdd != nil && !apkCacheRemoved && !dockerfileCacheMount(in, "/var/cache/apk") {
		a.add("DF018", apkAdd.line, "", "", meta())
	}
}

// stageSetsEnv reports whether the environment variable name is set before
// the instruction upto, in its stage or a stage it is built from.
func (a *dockerfileAnalysis) stageSetsEnv(st *dockerfileStage, name string, upto *dockerfileInstruction) bool {
	for s := st; s != nil; s = s.parent {
		for _, in := range s.body {
			if in == upto {
				break
			}
			if in.keyword != "ENV" {
				continue
			}
			for _, w := range dockerfileWords(in.args, a.file.escape) {
				if w.text == name || strings.HasPrefix(w.text, name+"=") {
					return true
				}
			}
		}
	}
	return false
}

func dockerfileIsLetters(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// dockerfileChmodMode returns chmod's mode argument, skipping its options.
func dockerfileChmodMode(args []dockerfileWord) (dockerfileWord, bool) {
	for _, w := range args {
		switch {
		case strings.HasPrefix(w.text, "--"):
			continue
		case len(w.text) > 1 && w.text[0] == '-' && strings.Trim(w.text[1:], "RvfcH") == "":
			continue
		}
		return w, true
	}
	return dockerfileWord{}, false
}

// dockerfileIsPipInstall matches pip install, pip3.12 install and
// python -m pip install.
func dockerfileIsPipInstall(c dockerfileShellCmd) bool {
	name := c.name()
	args := c.args()
	base := strings.TrimRight(name, "0123456789.")
	switch base {
	case "pip":
	case "python":
		for i := 0; i+1 < len(args); i++ {
			if args[i].text == "-m" && args[i+1].text == "pip" {
				args = args[i+2:]
				goto sub
			}
		}
		return false
	default:
		return false
	}
sub:
	for _, w := range args {
		if strings.HasPrefix(w.text, "-") {
			continue
		}
		return w.text == "install"
	}
	return false
}

// checkFinalStage applies the rules about the image the build produces.
func (a *dockerfileAnalysis) checkFinalStage(st *dockerfileStage) {
	meta := func() map[string]any { return map[string]any{"stage": st.label()} }
	root := st
	for root.parent != nil {
		root = root.parent
	}
	baseImage := strings.ToLower(root.image)
	if user := st.inherited("USER"); user != nil {
		words := dockerfileWords(user.args, a.file.escape)
		if len(words) > 0 {
			name, _, _ := strings.Cut(words[0].text, ":")
			if name == "root" || name == "0" {
				a.add("DF005", user.line, fmt.Sprintf("The last USER of the final stage is %s.", words[0].text), "", meta())
			}
		}
	} else if !st.windows && baseImage != "" && baseImage != "scratch" && !strings.Contains(baseImage, "nonroot") {
		a.add("DF004", st.from.line, "No USER instruction in the final stage, so the container runs as the base image's user, usually root.", "", meta())
	}
	if st.inherited("HEALTHCHECK") == nil {
		a.add("DF016", st.from.line, "", "", meta())
	}
}
