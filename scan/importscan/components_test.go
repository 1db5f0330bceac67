package importscan

import (
	"strings"
	"testing"

	"scand/scan/components"
)

// What a scanned tree puts in a capture (a license's whole text, a version
// with a newline) is fitted to the import's limits; a component the daemon
// would refuse whatever its text is left out and counted.
func TestFitComponents(t *testing.T) {
	longText := "Permission is hereby granted,\nfree of charge, " + strings.Repeat("to any person ", 100)
	comps := []components.Component{
		{Name: "a", PURL: "pkg:npm/a@1.0.0", Version: "1.0.0\n", Licenses: []string{longText, "\t", "MIT"}},
		{Name: "b", PURL: "javascript:alert(1)"},
		{Name: "", PURL: "pkg:npm/c"},
		{Name: "d", PURL: "pkg:npm/d", Source: "../../etc/passwd"},
	}
	got, dropped := FitComponents(comps)
	if dropped != 3 || len(got) != 1 {
		t.Fatalf("kept %d, dropped %d; want 1 and 3: %+v", len(got), dropped, got)
	}
	a := got[0]
	if a.Version != "1.0.0" || len(a.Licenses) != 2 || a.Licenses[1] != "MIT" || len(a.Licenses[0]) > importMaxRule ||
		!strings.HasPrefix(a.Licenses[0], "Permission is hereby granted, free of charge,") {
		t.Errorf("fitted %+v", a)
	}
	if probs := CheckComponent(a); len(probs) != 0 {
		t.Errorf("the fitted component is refused: %+v", probs)
	}
}
