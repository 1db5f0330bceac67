package licenses

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"scand/finding"
	"scand/scan"
	"scand/scan/components"
)

type licenseRow struct {
	rule      string
	severity  finding.Severity
	file      string
	line      int
	component string
}

// TestLicensesScannerFixtures runs the scanner over one fixture tree per
// license source and pins every finding: rule, severity, file and line of
// the license data. Components that must raise nothing (MIT, "MIT OR
// GPL-3.0-or-later", a bare "BSD", a package.json nested inside a package)
// are in the trees too, so a finding for them fails the comparison.
func TestLicensesScannerFixtures(t *testing.T) {
	const venv = "venv/lib/python3.12/site-packages/"
	tests := map[string][]licenseRow{
		"npm-policy": {
			{"license-network-copyleft", finding.High, "package-lock.json", 33, "agpl-lib"},
			{"license-strong-copyleft", finding.High, "package-lock.json", 37, "both-lib"},
			{"license-source-available", finding.Medium, "package-lock.json", 41, "busl-lib"},
			{"license-weak-copyleft", finding.Low, "package-lock.json", 45, "classpath-lib"},
			{"license-unknown", finding.Medium, "package-lock.json", 49, "custom-lib"},
			{"license-strong-copyleft", finding.Low, "package-lock.json", 58, "gpl-devtool"},
			{"license-strong-copyleft", finding.High, "package-lock.json", 62, "gpl-lib"},
			{"license-weak-copyleft", finding.Info, "package-lock.json", 67, "lgpl-devtool"},
			{"license-weak-copyleft", finding.Low, "package-lock.json", 71, "lgpl-lib"},
			{"license-weak-copyleft", finding.Low, "package-lock.json", 79, "mpl-lib"},
			{"license-missing", finding.Medium, "node_modules/nolicense-lib/package.json", 2, "nolicense-lib"},
			{"license-unknown", finding.Medium, "package-lock.json", 86, "private-lib"},
			{"license-network-copyleft", finding.High, "package-lock.json", 90, "sspl-db"},
			{"license-data-unavailable", finding.Info, "package-lock.json", 0, ""},
		},
		"python-venv": {
			{"license-network-copyleft", finding.High, venv + "agpl_expr-0.1.dist-info/METADATA", 4, "agpl-expr"},
			{"license-strong-copyleft", finding.High, venv + "gplpkg-1.0.dist-info/METADATA", 7, "gplpkg"},
			{"license-weak-copyleft", finding.Low, venv + "lgplfree-2.0.dist-info/METADATA", 4, "lgplfree"},
			{"license-missing", finding.Medium, venv + "missingmeta-1.0.dist-info/METADATA", 1, "missingmeta"},
			{"license-data-unavailable", finding.Info, "requirements.txt", 0, ""},
		},
		"go-vendor": {
			{"license-network-copyleft", finding.High, "vendor/example.com/agpl/LICENSE", 1, "example.com/agpl"},
			{"license-strong-copyleft", finding.High, "vendor/example.com/gpl2/COPYING", 1, "example.com/gpl2"},
			{"license-unknown", finding.Medium, "vendor/example.com/odd/LICENSE.txt", 1, "example.com/odd"},
		},
		"clean": {},
	}
	s := New(scan.Config{})
	for dir, want := range tests {
		t.Run(dir, func(t *testing.T) {
			root, _ := filepath.Abs(filepath.Join("../../testdata/licenses", dir))
			fs, err := s.Scan(context.Background(), scan.Target{ScanID: "t", Path: root})
			if err != nil {
				t.Fatal(err)
			}
			got := []licenseRow{}
			for _, f := range fs {
				comp, _ := f.Metadata["component"].(string)
				got = append(got, licenseRow{f.RuleID, f.Severity, f.FilePath, f.Line, comp})
				if f.Scanner != "licenses" || f.ScanType != scan.TypeDependency || f.CWE != "" || f.Title == "" || f.Description == "" {
					t.Errorf("%s: malformed finding %+v", f.RuleID, f)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("findings differ")
				for i := 0; i < len(got) || i < len(want); i++ {
					var g, w licenseRow
					if i < len(got) {
						g = got[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if g != w {
						t.Errorf("  #%d got %+v\n      want %+v", i, g, w)
					}
				}
			}
		})
	}
}

func TestLicensesScannerMetadataAndSeam(t *testing.T) {
	s := New(scan.Config{})
	if s.Name() != "licenses" || s.Type() != scan.TypeDependency {
		t.Errorf("name/type = %s/%s", s.Name(), s.Type())
	}
	if v, hint, ok := s.Available(context.Background()); v != "builtin" || hint != "" || !ok {
		t.Errorf("Available = %q %q %v", v, hint, ok)
	}
	root, _ := filepath.Abs("../../testdata/licenses/npm-policy")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Scan(ctx, scan.Target{Path: root}); err == nil {
		t.Error("cancelled scan: want an error")
	}
	if _, err := s.Scan(context.Background(), scan.Target{Path: filepath.Join(root, "missing")}); err == nil {
		t.Error("missing target: want an error")
	}
	fs, err := s.Scan(context.Background(), scan.Target{Path: root})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Metadata["component"] != "agpl-lib" {
			continue
		}
		want := map[string]any{"component": "agpl-lib", "version": "1.2.0", "purl": "pkg:npm/agpl-lib@1.2.0",
			"license": "AGPL-3.0-only", "ecosystem": "npm", "dependency": "direct", "dev": false,
			"declared_in": "package-lock.json", "license_class": "network-copyleft"}
		if !reflect.DeepEqual(f.Metadata, want) {
			t.Errorf("metadata = %v\nwant %v", f.Metadata, want)
		}
		return
	}
	t.Error("no finding for agpl-lib")
}

func TestLicenseClassify(t *testing.T) {
	tests := []struct {
		licenses []string
		want     licenseClass
		decisive string
	}{
		{[]string{"MIT"}, licenseClassPermissive, "MIT"},
		{[]string{"AGPL-3.0-or-later"}, licenseClassNetwork, "AGPL-3.0-or-later"},
		{[]string{"SSPL-1.0"}, licenseClassNetwork, "SSPL-1.0"},
		{[]string{"GPL-2.0-or-later"}, licenseClassStrong, "GPL-2.0-or-later"},
		{[]string{"GPL-2.0+"}, licenseClassStrong, "GPL-2.0-or-later"},
		{[]string{"EUPL-1.2"}, licenseClassStrong, "EUPL-1.2"},
		{[]string{"LGPL-3.0-only"}, licenseClassWeak, "LGPL-3.0-only"},
		{[]string{"EPL-2.0"}, licenseClassWeak, "EPL-2.0"},
		{[]string{"GPL-3.0-only WITH GCC-exception-3.1"}, licenseClassWeak, "GPL-3.0-only WITH GCC-exception-3.1"},
		{[]string{"GPL-2.0-only WITH Autoconf-exception-2.0"}, licenseClassStrong, "GPL-2.0-only WITH Autoconf-exception-2.0"},
		{[]string{"MIT OR GPL-3.0-only"}, licenseClassPermissive, "MIT"},
		{[]string{"MIT AND GPL-3.0-only"}, licenseClassStrong, "GPL-3.0-only"},
		{[]string{"(MIT OR LGPL-2.1-only) AND MPL-2.0"}, licenseClassWeak, "MPL-2.0"},
		{[]string{"GPL-3.0-only", "MIT"}, licenseClassPermissive, "MIT"},
		{[]string{"BUSL-1.1"}, licenseClassSourceAvailable, "BUSL-1.1"},
		{[]string{"Elastic-2.0 OR AGPL-3.0-only"}, licenseClassSourceAvailable, "Elastic-2.0"},
		{[]string{"BSD License"}, licenseClassPermissive, "BSD License"},
		{[]string{"Apache Software License"}, licenseClassPermissive, "Apache Software License"},
		{[]string{"GNU Library or Lesser General Public License (LGPL)"}, licenseClassWeak, "GNU Library or Lesser General Public License (LGPL)"},
		{[]string{"GPL"}, licenseClassStrong, "GPL"},
		{[]string{"Affero GPL"}, licenseClassNetwork, "Affero GPL"},
		{[]string{"UNLICENSED"}, licenseClassUnknown, "UNLICENSED"},
		{[]string{"Unlicense"}, licenseClassPermissive, "Unlicense"},
		{[]string{"Proprietary"}, licenseClassUnknown, "Proprietary"},
		{[]string{"Dual License"}, licenseClassUnknown, "Dual License"},
		{[]string{components.LicenseUnidentified}, licenseClassUnknown, components.LicenseUnidentified},
		{[]string{"LicenseRef-acme OR MIT"}, licenseClassPermissive, "MIT"},
	}
	for _, tc := range tests {
		c, d := licenseClassify(tc.licenses)
		if c != tc.want || d != tc.decisive {
			t.Errorf("licenseClassify(%q) = %d %q, want %d %q", tc.licenses, c, d, tc.want, tc.decisive)
		}
	}
}
