package sbom

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"scand/scan/components"
)

// Flags are global to the test binary; "update" is left to whoever owns
// the package-wide golden files.
var sbomUpdate = flag.Bool("update-sbom", false, "rewrite testdata/sbom/*.golden.json from the current output")

var sbomTestMeta = Meta{
	ScanID:      "5f0c6c2e-3b7a-4d1e-9a51-2f4b8f0f7c11",
	TargetPath:  "/srv/checkouts/components",
	Timestamp:   time.Date(2024, 5, 1, 12, 30, 0, 0, time.FixedZone("CEST", 2*3600)),
	ToolVersion: "0.11.0",
}

func sbomGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("../../testdata/sbom", name)
	if *sbomUpdate {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scan/sbom -run SBOM -update-sbom to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; if the change is intended, rerun with -update-sbom and review the diff", name)
	}
}

// TestSBOMGolden renders the SBOMs of the fixture tree holding every
// lockfile kind, and of an empty target. testdata/sbom/validate.sh checks
// the same files against the official CycloneDX 1.5 and SPDX 2.3 schemas.
func TestSBOMGolden(t *testing.T) {
	comps := discoverFixture(t, "")
	tests := []struct {
		name   string
		render func(Meta, []components.Component) ([]byte, error)
		comps  []components.Component
	}{
		{"cyclonedx.golden.json", CycloneDXJSON, comps},
		{"spdx.golden.json", SPDXJSON, comps},
		{"cyclonedx-empty.golden.json", CycloneDXJSON, nil},
		{"spdx-empty.golden.json", SPDXJSON, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render(sbomTestMeta, tc.comps)
			if err != nil {
				t.Fatal(err)
			}
			sbomGolden(t, tc.name, out)
		})
	}
}

// TestSBOMDeterministic: the input order does not matter, the scan id does.
func TestSBOMDeterministic(t *testing.T) {
	comps := discoverFixture(t, "")
	shuffled := append([]components.Component(nil), comps...)
	rand.New(rand.NewSource(1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, render := range []func(Meta, []components.Component) ([]byte, error){CycloneDXJSON, SPDXJSON} {
		a, _ := render(sbomTestMeta, comps)
		b, _ := render(sbomTestMeta, shuffled)
		if !bytes.Equal(a, b) {
			t.Error("rendering depends on component order")
		}
		other := sbomTestMeta
		other.ScanID = "another-scan"
		c, _ := render(other, comps)
		if bytes.Equal(a, c) {
			t.Error("two scans got the same serial number / namespace")
		}
	}
}

// TestCycloneDXStructure checks what the schema cannot: references resolve,
// bom-refs are unique, dev components are optional, license choices follow
// the SPDX-id / expression / name split.
func TestCycloneDXStructure(t *testing.T) {
	out, err := CycloneDXJSON(sbomTestMeta, discoverFixture(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	var bom struct {
		SerialNumber string `json:"serialNumber"`
		Metadata     struct {
			Timestamp string `json:"timestamp"`
			Component struct {
				BOMRef string `json:"bom-ref"`
				Name   string `json:"name"`
			} `json:"component"`
		} `json:"metadata"`
		Components []struct {
			BOMRef   string `json:"bom-ref"`
			Group    string `json:"group"`
			Name     string `json:"name"`
			Scope    string `json:"scope"`
			PURL     string `json:"purl"`
			Licenses []struct {
				License *struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"license"`
				Expression string `json:"expression"`
			} `json:"licenses"`
			Properties []struct{ Name, Value string } `json:"properties"`
		} `json:"components"`
		Dependencies []struct {
			Ref       string   `json:"ref"`
			DependsOn []string `json:"dependsOn"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(bom.SerialNumber) {
		t.Errorf("serialNumber %q is not a v5 UUID URN", bom.SerialNumber)
	}
	if bom.Metadata.Timestamp != "2024-05-01T10:30:00Z" || bom.Metadata.Component.Name != "components" {
		t.Errorf("metadata = %+v", bom.Metadata)
	}
	refs := map[string]bool{bom.Metadata.Component.BOMRef: true}
	byRef := map[string]int{}
	for i, c := range bom.Components {
		if refs[c.BOMRef] {
			t.Errorf("duplicate bom-ref %s", c.BOMRef)
		}
		refs[c.BOMRef] = true
		byRef[c.BOMRef] = i
		if !strings.HasPrefix(c.BOMRef, c.PURL) {
			t.Errorf("bom-ref %s does not start with the purl %s", c.BOMRef, c.PURL)
		}
		if len(c.Licenses) > 1 {
			for _, l := range c.Licenses {
				if l.Expression != "" {
					t.Errorf("%s: an expression among several license entries", c.BOMRef)
				}
			}
		}
	}
	if _, ok := byRef["pkg:npm/string-width@4.2.3|pnpm-v9/pnpm-lock.yaml"]; !ok {
		t.Error("a purl declared by two lockfiles should get a source-suffixed bom-ref")
	}
	checks := []struct {
		ref, group, name, scope, license string
	}{
		{"pkg:npm/%40angular/core@15.2.9", "@angular", "core", "required", "id:MIT"},
		{"pkg:npm/%40types/node@18.15.11", "@types", "node", "optional", "id:MIT"},
		{"pkg:cargo/anyhow@1.0.75", "", "anyhow", "required", "expr:MIT OR Apache-2.0"},
		{"pkg:pypi/python-dateutil@2.8.2", "", "python_dateutil", "required", "name:Apache Software License"},
		{"pkg:maven/org.junit.jupiter/junit-jupiter@5.10.0", "org.junit.jupiter", "junit-jupiter", "optional", ""},
		{"pkg:composer/psr/log@3.0.0", "psr", "log", "required", "id:MIT"},
	}
	for _, ck := range checks {
		i, ok := byRef[ck.ref]
		if !ok {
			t.Errorf("no component %s", ck.ref)
			continue
		}
		c := bom.Components[i]
		lic := ""
		if len(c.Licenses) > 0 {
			switch l := c.Licenses[0]; {
			case l.Expression != "":
				lic = "expr:" + l.Expression
			case l.License.ID != "":
				lic = "id:" + l.License.ID
			default:
				lic = "name:" + l.License.Name
			}
		}
		if c.Group != ck.group || c.Name != ck.name || c.Scope != ck.scope || lic != ck.license {
			t.Errorf("%s: group %q name %q scope %q license %q; want %q %q %q %q", ck.ref, c.Group, c.Name, c.Scope, lic, ck.group, ck.name, ck.scope, ck.license)
		}
	}
	rootDeps := 0
	for _, d := range bom.Dependencies {
		if !refs[d.Ref] {
			t.Errorf("dependency ref %s is not a bom-ref", d.Ref)
		}
		for _, to := range d.DependsOn {
			if !refs[to] {
				t.Errorf("%s dependsOn unknown ref %s", d.Ref, to)
			}
		}
		if d.Ref == bom.Metadata.Component.BOMRef {
			rootDeps = len(d.DependsOn)
		}
	}
	if rootDeps == 0 {
		t.Error("the target depends on nothing")
	}
}

// TestSPDXStructure checks ids, relationships and LicenseRefs.
func TestSPDXStructure(t *testing.T) {
	out, err := SPDXJSON(sbomTestMeta, discoverFixture(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DocumentNamespace string `json:"documentNamespace"`
		CreationInfo      struct {
			Created  string   `json:"created"`
			Creators []string `json:"creators"`
		} `json:"creationInfo"`
		Packages []struct {
			SPDXID          string `json:"SPDXID"`
			Name            string `json:"name"`
			LicenseDeclared string `json:"licenseDeclared"`
			ExternalRefs    []struct {
				ReferenceLocator string `json:"referenceLocator"`
			} `json:"externalRefs"`
		} `json:"packages"`
		Relationships []struct {
			From string `json:"spdxElementId"`
			Type string `json:"relationshipType"`
			To   string `json:"relatedSpdxElement"`
		} `json:"relationships"`
		Extracted []struct {
			LicenseID string `json:"licenseId"`
		} `json:"hasExtractedLicensingInfos"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.DocumentNamespace, "https://scand.invalid/spdx/components-") || strings.Contains(doc.DocumentNamespace, "#") {
		t.Errorf("documentNamespace = %s", doc.DocumentNamespace)
	}
	if doc.CreationInfo.Created != "2024-05-01T10:30:00Z" || len(doc.CreationInfo.Creators) != 1 || doc.CreationInfo.Creators[0] != "Tool: scand-0.11.0" {
		t.Errorf("creationInfo = %+v", doc.CreationInfo)
	}
	idPattern := regexp.MustCompile(`^SPDXRef-[A-Za-z0-9.\-]+$`)
	ids := map[string]bool{"SPDXRef-DOCUMENT": true}
	for _, p := range doc.Packages {
		if !idPattern.MatchString(p.SPDXID) || ids[p.SPDXID] {
			t.Errorf("bad or duplicate SPDXID %q", p.SPDXID)
		}
		ids[p.SPDXID] = true
	}
	extracted := map[string]bool{}
	for _, e := range doc.Extracted {
		extracted[e.LicenseID] = true
	}
	refPattern := regexp.MustCompile(`LicenseRef-[A-Za-z0-9.\-]+`)
	for _, p := range doc.Packages {
		for _, ref := range refPattern.FindAllString(p.LicenseDeclared, -1) {
			if !extracted[ref] {
				t.Errorf("%s uses %s without hasExtractedLicensingInfos", p.SPDXID, ref)
			}
		}
	}
	connected := map[string]bool{}
	for _, r := range doc.Relationships {
		if !ids[r.From] || !ids[r.To] {
			t.Errorf("relationship %+v names an unknown element", r)
		}
		connected[r.From], connected[r.To] = true, true
	}
	for id := range ids {
		if !connected[id] {
			t.Errorf("%s is in no relationship", id)
		}
	}
	if doc.Relationships[0].Type != "DESCRIBES" || doc.Relationships[0].From != "SPDXRef-DOCUMENT" {
		t.Errorf("first relationship = %+v", doc.Relationships[0])
	}
	want := map[string]string{
		"pkg:npm/%40types/node@18.15.11":     "MIT",
		"pkg:cargo/anyhow@1.0.75":            "MIT OR Apache-2.0",
		"pkg:pypi/python-dateutil@2.8.2":     "LicenseRef-Apache-Software-License OR LicenseRef-BSD-License",
		"pkg:golang/gopkg.in/yaml.v3@v3.0.1": "Apache-2.0 AND MIT",
		"pkg:gem/rake@13.0.6":                "NOASSERTION",
	}
	for _, p := range doc.Packages {
		for _, r := range p.ExternalRefs {
			if w, ok := want[r.ReferenceLocator]; ok {
				if p.LicenseDeclared != w {
					t.Errorf("%s: licenseDeclared %q, want %q", r.ReferenceLocator, p.LicenseDeclared, w)
				}
				delete(want, r.ReferenceLocator)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("packages not found: %v", want)
	}
}

// TestSBOMSmallGraph pins the relationship rules on a hand-made graph: the
// target depends on direct and unknown-scope components and on orphans; a
// dev component is a DEV_DEPENDENCY_OF it; edges resolve within the same
// source first.
func TestSBOMSmallGraph(t *testing.T) {
	comps := []components.Component{
		{Name: "app-dep", Version: "1.0.0", Ecosystem: "npm", PURL: "pkg:npm/app-dep@1.0.0", Scope: "direct", Source: "a/package-lock.json", DependsOn: []string{"pkg:npm/shared@2.0.0"}},
		{Name: "shared", Version: "2.0.0", Ecosystem: "npm", PURL: "pkg:npm/shared@2.0.0", Scope: "transitive", Source: "a/package-lock.json"},
		{Name: "shared", Version: "2.0.0", Ecosystem: "npm", PURL: "pkg:npm/shared@2.0.0", Scope: "transitive", Source: "b/package-lock.json"},
		{Name: "devtool", Version: "3.0.0", Ecosystem: "npm", PURL: "pkg:npm/devtool@3.0.0", Scope: "direct", Dev: true, Source: "a/package-lock.json"},
	}
	out, err := SPDXJSON(Meta{TargetPath: "/"}, comps)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Name          string `json:"name"`
		Relationships []struct {
			From string `json:"spdxElementId"`
			Type string `json:"relationshipType"`
			To   string `json:"relatedSpdxElement"`
		} `json:"relationships"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range doc.Relationships {
		got = append(got, r.From+" "+r.Type+" "+r.To)
	}
	want := []string{
		"SPDXRef-DOCUMENT DESCRIBES SPDXRef-Target",
		"SPDXRef-Target DEPENDS_ON SPDXRef-Package-npm-app-dep-1.0.0",
		"SPDXRef-Package-npm-devtool-3.0.0 DEV_DEPENDENCY_OF SPDXRef-Target",
		"SPDXRef-Target DEPENDS_ON SPDXRef-Package-npm-shared-2.0.0-2",
		"SPDXRef-Package-npm-app-dep-1.0.0 DEPENDS_ON SPDXRef-Package-npm-shared-2.0.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || doc.Name != "target" {
		t.Errorf("name %q relationships:\n%s\nwant:\n%s", doc.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSBOMEmptyTarget: a tree without manifests still yields valid,
// non-null arrays.
func TestSBOMEmptyTarget(t *testing.T) {
	comps, err := components.Discover(context.Background(), t.TempDir())
	if err != nil || comps == nil || len(comps) != 0 {
		t.Fatalf("empty tree: %v, %v", comps, err)
	}
	out, _ := CycloneDXJSON(sbomTestMeta, comps)
	if !bytes.Contains(out, []byte(`"components": []`)) || !bytes.Contains(out, []byte(`"dependencies": []`)) {
		t.Errorf("empty CycloneDX lacks empty arrays:\n%s", out)
	}
}

// discoverFixture discovers the components of testdata/components/<dir>.
func discoverFixture(t *testing.T, dir string) []components.Component {
	t.Helper()
	comps, err := components.Discover(context.Background(), filepath.Join("../../testdata/components", dir))
	if err != nil {
		t.Fatalf("Discover(%s): %v", dir, err)
	}
	return comps
}
