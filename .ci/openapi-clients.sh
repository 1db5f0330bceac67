#!/usr/bin/env bash
# Proves an OpenAPI document works with the tools people use on it:
#
#   .ci/openapi-clients.sh OPENAPI_JSON
#
#   1. `redocly lint` (@redocly/cli) with the repository's redocly.yaml:
#      zero errors;
#   2. openapi-typescript generates TypeScript types, and `tsc --noEmit`
#      compiles them with a small program that uses them;
#   3. oapi-codegen generates a Go client, which builds and vets in a
#      temporary module outside the repository's (the client's runtime
#      dependency must never enter scand's go.mod).
#
# Needs on PATH: redocly, openapi-typescript, tsc (npm) and go; the
# oapi-codegen binary in $OAPI_CODEGEN or on PATH. .ci/run installs all of
# them at pinned versions. Exits non-zero, naming the step, on any failure.
set -euo pipefail

# The generated Go client's one dependency, pinned like the tools.
OAPI_RUNTIME_VERSION=v1.8.0

doc=${1:?usage: openapi-clients.sh OPENAPI_JSON}
doc=$(cd "$(dirname "$doc")" && pwd)/$(basename "$doc")
root=$(cd "$(dirname "$0")/.." && pwd)
oapi=${OAPI_CODEGEN:-$(command -v oapi-codegen || true)}
die() { printf 'openapi-clients: FAILED: %s\n' "$*" >&2; exit 1; }
for tool in redocly openapi-typescript tsc go; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is not on PATH"
done
[ -n "$oapi" ] && [ -x "$oapi" ] || die "oapi-codegen not found (set OAPI_CODEGEN)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

timed() { # timed LABEL CMD...: runs CMD, prints its duration
	local label=$1 start=$SECONDS
	shift
	"$@" || die "$label"
	printf 'openapi-clients: %s ok (%d s)\n' "$label" $((SECONDS - start))
}

lint() {
	# Errors fail the step; warnings are printed for a reader to judge.
	(cd "$root" && redocly lint --config redocly.yaml --format=stylish "$doc")
}

typescript() {
	mkdir -p "$tmp/ts"
	openapi-typescript "$doc" --output "$tmp/ts/schema.d.ts"
	cat >"$tmp/ts/use.ts" <<'EOF'
// Uses the generated types the way a client would, so a missing or
// mistyped schema fails to compile rather than passing as "any".
import type { components, paths } from "./schema";

type ScanView = components["schemas"]["ScanView"];
type ErrorBody = components["schemas"]["ErrorBody"];
type ValidationBody = components["schemas"]["ValidationBody"];
type Ready = paths["/ready"]["get"]["responses"][200]["content"]["application/json"];
type StartScan = paths["/api/v1/scans"]["post"]["requestBody"]["content"]["application/json"];

export function describe(s: ScanView, e: ErrorBody, v: ValidationBody, r: Ready): string {
  const first = v.detail[0];
  return `${s.id} ${s.status} ${e.detail} ${first ? first.msg : ""} ${r.status}`;
}
export const start: StartScan = { target_path: "/srv/repo", scan_types: ["code"] };
EOF
	cat >"$tmp/ts/tsconfig.json" <<'EOF'
{
  "compilerOptions": {
    "strict": true, "noEmit": true, "skipLibCheck": false,
    "target": "es2022", "module": "es2022", "moduleResolution": "bundler"
  },
  "files": ["schema.d.ts", "use.ts"]
}
EOF
	tsc --noEmit -p "$tmp/ts/tsconfig.json"
}

goclient() {
	mkdir -p "$tmp/go"
	"$oapi" -generate types,client -package scandclient -o "$tmp/go/client.go" "$doc"
	cat >"$tmp/go/use.go" <<'EOF'
package scandclient

import (
	"context"
	"net/http"
)

// startScan uses the generated client as a program would.
func startScan(ctx context.Context, base, key string) (*PostScansResponse, error) {
	c, err := NewClientWithResponses(base, WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-API-Key", key)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	// target_path is optional (an image or a repository may replace it).
	path := "/srv/repo"
	return c.PostScansWithResponse(ctx, PostScansJSONRequestBody{TargetPath: &path})
}
EOF
	(
		cd "$tmp/go"
		export GOWORK=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
		go mod init scandclient >/dev/null 2>&1
		go get "github.com/oapi-codegen/runtime@$OAPI_RUNTIME_VERSION"
		go mod tidy
		go build ./...
		go vet ./...
	)
}

timed "redocly lint (0 errors)" lint
timed "openapi-typescript + tsc --noEmit" typescript
timed "oapi-codegen Go client: go build + go vet" goclient
