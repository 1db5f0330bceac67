package components

import (
	"context"
	"encoding/json"
	"slices"

	"scand/scan/ospkg"
)

// CaptureJSON discovers the target's components and serializes
// them for storage with the scan, so the scan's SBOM never changes when
// the tree does. The operating-system packages of a root file system (an
// unpacked image) are part of it; the license policy (Discover's other
// caller) leaves them out, since a distribution's licences are its own.
func CaptureJSON(ctx context.Context, root string) ([]byte, error) {
	comps, err := Discover(ctx, root)
	if err != nil {
		return nil, err
	}
	installed, err := ospkg.Discover(ctx, root)
	if err != nil {
		return nil, err
	}
	if len(installed.Packages) > 0 {
		comps = append(comps, fromOSPackages(installed.Packages)...)
		slices.SortStableFunc(comps, Compare)
	}
	if comps == nil {
		comps = []Component{}
	}
	return json.Marshal(comps)
}

// fromOSPackages makes operating-system packages components: installed
// software, so not dev and with no scope a lockfile could tell.
func fromOSPackages(pkgs []ospkg.Package) []Component {
	out := make([]Component, 0, len(pkgs))
	for _, p := range pkgs {
		out = append(out, Component{Name: p.Name, Version: p.Version, Ecosystem: p.Type, PURL: p.PURL,
			Source: p.Source, Line: p.Line, Licenses: p.Licenses, LicenseSource: p.LicenseSource})
	}
	return out
}
