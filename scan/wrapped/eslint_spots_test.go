package wrapped

import (
	"path/filepath"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan"
)

// eslintSpot is one known vulnerable spot of a public vulnerable
// application, reproduced in testdata/js-spots (see its README for the
// source of each).
type eslintSpot struct {
	file string
	line int
	cwe  finding.CWE
}

var eslintNodeGoatSpots = []eslintSpot{
	{"nodegoat/app/routes/contributions.js", 7, "CWE-95"},
	{"nodegoat/app/routes/contributions.js", 8, "CWE-95"},
	{"nodegoat/app/routes/contributions.js", 9, "CWE-95"},
	{"nodegoat/app/data/allocations-dao.js", 14, "CWE-943"},
	{"nodegoat/app/routes/profile.js", 8, "CWE-1333"},
	{"nodegoat/app/routes/index.js", 8, "CWE-601"},
	{"nodegoat/app/routes/research.js", 11, "CWE-918"},
	{"nodegoat/app/routes/session.js", 12, "CWE-117"},
}

var eslintJuiceShopSpots = []eslintSpot{
	// The 11 the issue names as missed.
	{"juice-shop/routes/login.ts", 10, "CWE-89"},
	{"juice-shop/routes/search.ts", 10, "CWE-89"},
	{"juice-shop/routes/trackOrder.ts", 9, "CWE-943"},
	{"juice-shop/routes/showProductReviews.ts", 9, "CWE-943"},
	{"juice-shop/routes/fileServer.ts", 21, "CWE-22"},
	{"juice-shop/routes/keyServer.ts", 10, "CWE-22"},
	{"juice-shop/routes/logfileServer.ts", 10, "CWE-22"},
	{"juice-shop/routes/redirect.ts", 11, "CWE-601"},
	{"juice-shop/routes/profileImageUrlUpload.ts", 14, "CWE-918"},
	{"juice-shop/routes/fileUpload.ts", 28, "CWE-611"},
	{"juice-shop/routes/b2bOrder.ts", 12, "CWE-94"},
	// The classes found before.
	{"juice-shop/routes/userProfile.ts", 9, "CWE-95"},
	{"juice-shop/routes/captcha.ts", 10, "CWE-95"},
	{"juice-shop/frontend/src/app/search-result/search-result.component.ts", 14, "CWE-79"},
	{"juice-shop/frontend/src/app/track-result/track-result.component.ts", 12, "CWE-79"},
	{"juice-shop/frontend/src/app/about/about.component.ts", 13, "CWE-79"},
	{"juice-shop/frontend/src/app/administration/administration.component.ts", 12, "CWE-79"},
	{"juice-shop/frontend/src/app/last-login-ip/last-login-ip.component.ts", 12, "CWE-79"},
	{"juice-shop/routes/fileUpload.ts", 18, "CWE-22"},
	{"juice-shop/routes/profileImageUrlUpload.ts", 18, "CWE-22"},
	{"juice-shop/routes/quarantineServer.ts", 10, "CWE-22"},
}

// The real ESLint with scand's configuration finds every known spot of
// NodeGoat (8) and juice-shop (21) with its CWE, and none of scand's own
// rules fires on the safe counterparts.
func TestWrappersIntegrationESLintKnownSpots(t *testing.T) {
	s, v := wrapIntegrationScanner(t, ESLint, nil)
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata", "js-spots"))
	if err != nil {
		t.Fatal(err)
	}
	fs := wrapIntegrationRun(t, s, v, scan.Target{Path: root})
	found := func(sp eslintSpot) bool {
		for _, f := range fs {
			if f.FilePath == sp.file && f.Line == sp.line && f.CWE == sp.cwe {
				return true
			}
		}
		return false
	}
	for _, app := range []struct {
		name  string
		spots []eslintSpot
	}{{"nodegoat", eslintNodeGoatSpots}, {"juice-shop", eslintJuiceShopSpots}} {
		n := 0
		for _, sp := range app.spots {
			if found(sp) {
				n++
			} else {
				t.Errorf("%s: no %s finding at %s:%d", app.name, sp.cwe, sp.file, sp.line)
			}
		}
		t.Logf("known-spots app=%s found=%d of %d", app.name, n, len(app.spots))
	}
	for _, f := range fs {
		if strings.HasPrefix(f.FilePath, "safe/") && strings.HasPrefix(f.RuleID, "scand/") {
			t.Errorf("safe code reported: %s:%d %s", f.FilePath, f.Line, f.RuleID)
		}
	}
}
