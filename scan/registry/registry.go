package scan

import "os/exec"

// Registry returns every scanner in run order: SPEC.md's scan-type table
// order, built-ins before the wrapped tools of the same type.
func Registry(cfg Config) []Scanner {
	return []Scanner{
		// code
		NewSecretsScanner(cfg),
		NewGitHygieneScanner(cfg),
		NewBanditScanner(cfg),
		NewGosecScanner(cfg),
		// dependency
		NewLicensesScanner(cfg),
		NewOSVScanner(cfg),
		NewGovulncheckScanner(cfg),
		NewTrivyScanner(cfg),
		// iac
		NewDockerfileScanner(cfg),
		NewKicsScanner(cfg),
		// baseline
		NewBaselineScanner(cfg),
		// dast
		NewBuiltinDASTScanner(cfg),
		NewZAPScanner(cfg),
		// network
		NewNmapScanner(cfg),
	}
}

// InstallCommand is InstallRecipeFor shaped for the dashboard: ok is false
// when no recipe exists or this system lacks the package manager, so the
// dashboard never offers an install that cannot work.
func InstallCommand(name string) (program string, args []string, ok bool) {
	r, ok := InstallRecipeFor(name)
	if !ok {
		return "", nil, false
	}
	if _, err := exec.LookPath(r.Manager); err != nil {
		return "", nil, false
	}
	return r.Manager, r.Args, true
}
