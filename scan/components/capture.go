package components

import (
	"context"
	"encoding/json"
	"path"
	"slices"
	"strings"

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

// compSiblings are the files a lockfile's parser reads beside it.
var compSiblings = map[string]bool{"package.json": true, "composer.json": true, "pyproject.toml": true, "Pipfile": true, "go.sum": true}

// Reads reports whether Discover reads the file at rel (slash-separated,
// relative to the root): lockfiles and manifests, the files beside them
// their parsers read, and the license data of installed packages (the
// first dependency directory on the path decides, as in Discover's walk:
// package.json in node_modules, the metadata in site-packages, anything
// in vendor, where a Cargo.toml may name any file). An image target
// writes out only the files its scanners read (scan/image).
func Reads(rel string) bool {
	name := path.Base(rel)
	if compLockfileParsers[name] != nil || compIsRequirementsFile(name) || compSiblings[name] {
		return true
	}
	for _, dir := range strings.Split(path.Dir(rel), "/") {
		switch dir {
		case "node_modules":
			return false // package.json, a sibling, was matched above
		case "site-packages", "dist-packages":
			return name == "METADATA" || name == "PKG-INFO" || strings.HasSuffix(name, ".egg-info")
		case "vendor":
			return true
		}
	}
	return false
}

// CaptureReads reports whether CaptureJSON reads the file at rel: what
// Discover reads, and the operating-system package databases.
func CaptureReads(rel string) bool { return Reads(rel) || ospkg.Reads(rel) }
