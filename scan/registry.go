package scan

// Registry returns every scanner in run order: SPEC.md's scan-type table
// order, built-ins before the wrapped tools of the same type.
func Registry(cfg Config) []Scanner {
	return []Scanner{
		NewDockerfileScanner(cfg),
		NewBaselineScanner(cfg),
		NewBuiltinDASTScanner(cfg),
	}
}
