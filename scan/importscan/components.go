package importscan

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"scand/scan/components"
	"scand/scan/request"
)

// An import's components are the SBOM `scand scan` captured on the CI
// machine: without them the daemon's SBOM, inventory, re-evaluation and
// "versions unknown" warning would know nothing of the targets CI scans.
// They are hostile input like the findings: each is checked as it is
// decoded, and the whole list is bounded, since it is kept as one value.
const (
	importMaxComponents     = 100_000
	importMaxComponentBytes = 32 << 20
	importMaxLicenses       = 64
	importMaxDependsOn      = 10_000
)

// importPURL is a package URL's outline (pkg:type/...); the SBOM writers
// and the inventory take the rest as it is.
var importPURL = regexp.MustCompile(`^pkg:[a-zA-Z][a-zA-Z0-9.+-]*/[^\s]+$`)

// readComponents decodes the components array from dec (positioned before
// its '['), checking each; it returns the list re-encoded in the capture's
// own shape.
func readComponents(dec *json.Decoder, decodeProblem func(error, string, ...any) error) ([]byte, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, decodeProblem(err, "an array of components", "components")
	}
	out := []components.Component{}
	size := 0
	for i := 0; dec.More(); i++ {
		if i == importMaxComponents {
			return nil, problemAt("too_long", fmt.Sprintf("at most %d components", importMaxComponents), nil, "components")
		}
		var c components.Component
		if err := dec.Decode(&c); err != nil {
			return nil, decodeProblem(err, "", "components", i)
		}
		if probs := CheckComponent(c); len(probs) > 0 {
			for j := range probs {
				probs[j].Loc = append([]any{"components", i}, probs[j].Loc...)
			}
			return nil, &ProblemsError{probs}
		}
		size += componentBytes(c)
		if size > importMaxComponentBytes {
			return nil, problemAt("too_long", fmt.Sprintf("components must hold at most %d MiB of text", importMaxComponentBytes>>20), nil, "components")
		}
		out = append(out, c)
	}
	if _, err := dec.Token(); err != nil {
		return nil, decodeProblem(err, "", "components")
	}
	return json.Marshal(out)
}

// componentBytes is the text a component holds, which is what keeping the
// list costs.
func componentBytes(c components.Component) int {
	n := len(c.Name) + len(c.Version) + len(c.Ecosystem) + len(c.PURL) + len(c.Scope) + len(c.Source) +
		len(c.LicenseSource) + len(c.DeclaredRange) + 64
	for _, l := range c.Licenses {
		n += len(l)
	}
	for _, d := range c.DependsOn {
		n += len(d)
	}
	return n
}

// CheckComponent validates one imported component; locations are relative
// to the component.
func CheckComponent(c components.Component) []request.Problem {
	var probs []request.Problem
	add := func(field, msg string, input any) {
		probs = append(probs, request.Problem{Loc: []any{field}, Type: "value_error", Msg: msg, Input: input})
	}
	if msg := checkLabel(c.Name, importMaxTitle); msg != "" {
		add("name", "name "+msg, nil)
	}
	for _, f := range []struct{ name, v string }{{"version", c.Version}, {"declared_range", c.DeclaredRange}, {"ecosystem", c.Ecosystem}} {
		if f.v != "" {
			if msg := checkLabel(f.v, importMaxName); msg != "" {
				add(f.name, f.name+" "+msg, f.v)
			}
		}
	}
	if c.PURL != "" && !validPURL(c.PURL) {
		add("purl", fmt.Sprintf("purl must be a package URL (pkg:type/name...) of at most %d bytes without spaces or control characters", importMaxPath), nil)
	}
	if c.Scope != "" && c.Scope != "direct" && c.Scope != "transitive" {
		add("scope", `scope must be "direct", "transitive" or empty`, c.Scope)
	}
	for _, f := range []struct{ name, v string }{{"source", c.Source}, {"license_source", c.LicenseSource}} {
		if msg := checkFilePath(f.v); msg != "" {
			add(f.name, strings.Replace(msg, "file_path", f.name, 1), f.v)
		}
	}
	if c.Line < 0 || c.LicenseLine < 0 {
		add("line", "line and license_line must not be negative", nil)
	}
	if len(c.Licenses) > importMaxLicenses {
		add("licenses", fmt.Sprintf("at most %d licenses", importMaxLicenses), nil)
	}
	for _, l := range c.Licenses {
		if msg := checkLabel(l, importMaxRule); msg != "" {
			add("licenses", "a license "+msg, nil)
			break
		}
	}
	if len(c.DependsOn) > importMaxDependsOn {
		add("depends_on", fmt.Sprintf("at most %d entries", importMaxDependsOn), nil)
	}
	for _, d := range c.DependsOn {
		if !validPURL(d) {
			add("depends_on", "an entry is not a package URL", nil)
			break
		}
	}
	return probs
}

func validPURL(p string) bool {
	return len(p) <= importMaxPath && utf8.ValidString(p) && importPURL.MatchString(p) && !strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// FitComponents makes a capture fit what an import accepts, for the
// sender: license names and version texts come from the scanned tree, so
// a hostile or odd one (a license's whole text in package.json) is cleaned
// and clipped instead of making the daemon refuse the import; a component
// that still does not pass CheckComponent is left out and counted.
func FitComponents(comps []components.Component) ([]components.Component, int) {
	out := comps[:0]
	dropped, size := 0, 0
	for _, c := range comps {
		c.Version = fitText(c.Version, importMaxName)
		c.DeclaredRange = fitText(c.DeclaredRange, importMaxName)
		c.Ecosystem = fitText(c.Ecosystem, importMaxName)
		if len(c.Licenses) > importMaxLicenses {
			c.Licenses = c.Licenses[:importMaxLicenses]
		}
		for i, l := range c.Licenses {
			c.Licenses[i] = fitText(l, importMaxRule)
		}
		c.Licenses = slices.DeleteFunc(c.Licenses, func(l string) bool { return l == "" })
		if len(out) == importMaxComponents || size+componentBytes(c) > importMaxComponentBytes || len(CheckComponent(c)) > 0 {
			dropped++
			continue
		}
		size += componentBytes(c)
		out = append(out, c)
	}
	return out, dropped
}

// fitText is s as one line of valid UTF-8, at most max bytes.
func fitText(s string, max int) string {
	s = strings.Join(strings.FieldsFunc(strings.ToValidUTF8(s, ""), func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }), " ")
	for len(s) > max {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return strings.TrimSpace(s)
}
