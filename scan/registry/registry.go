// Package registry is the one ordered list of scanners, the install
// recipes the dashboard offers and runs, and the image and repository
// preparers (Targets). It is the only package that imports every scanner
// and preparer package; main's wiring hands its list and its preparers to
// the orchestrator, which sees them only through the scan seam.
package registry

import (
	"os/exec"

	"scand/scan"
	"scand/scan/baseline"
	"scand/scan/dast"
	"scand/scan/dockerfile"
	"scand/scan/excerpt"
	"scand/scan/githygiene"
	"scand/scan/licenses"
	"scand/scan/secrets"
	"scand/scan/wrapped"
)

// Redactor is what marks secrets in the code excerpts kept around
// findings: the secrets scanner's own rules, so an excerpt shows a secret
// exactly as its finding does.
func Redactor(cfg scan.Config) excerpt.Redactor {
	return secrets.NewContent(cfg).RedactedLines
}

// All returns every scanner in run order: SPEC.md's scan-type table order,
// built-ins before the wrapped tools of the same type.
func All(cfg scan.Config) []scan.Scanner {
	return []scan.Scanner{
		// code
		secrets.New(cfg),
		githygiene.New(cfg),
		wrapped.Bandit(cfg),
		wrapped.Gosec(cfg),
		wrapped.ESLint(cfg),
		// dependency
		licenses.New(cfg),
		wrapped.OSV(cfg),
		wrapped.Govulncheck(cfg),
		wrapped.Trivy(cfg),
		// iac
		dockerfile.New(cfg),
		wrapped.Kics(cfg),
		// baseline
		baseline.New(cfg),
		// dast
		dast.New(cfg),
		wrapped.ZAP(cfg),
		// network
		wrapped.Nmap(cfg),
	}
}

// InstallCommand is installRecipeFor shaped for the dashboard: ok is false
// when no recipe exists or this system lacks the package manager, so the
// dashboard never offers an install that cannot work.
func InstallCommand(name string) (program string, args []string, ok bool) {
	r, ok := installRecipeFor(name)
	if !ok {
		return "", nil, false
	}
	if _, err := exec.LookPath(r.Manager); err != nil {
		return "", nil, false
	}
	return r.Manager, r.Args, true
}

// installRecipe is how POST /dashboard/install/{scanner} installs a tool
// through the system package manager: a fixed argument list, never a
// shell and never a name taken from the request.
type installRecipe struct {
	Manager string
	Args    []string
}

// installRecipeFor returns the recipe for scanners whose tool is a Debian
// package. The Go-built tools have none: installing them needs a module
// proxy, which an air-gapped box does not have.
func installRecipeFor(name string) (installRecipe, bool) {
	pkg := map[string]string{"bandit": "bandit", "nmap": "nmap", "git-hygiene": "git"}[name]
	if pkg == "" {
		return installRecipe{}, false
	}
	return installRecipe{Manager: "apt-get", Args: []string{"install", "-y", pkg}}, true
}
