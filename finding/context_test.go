package finding

import "testing"

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/test_api.py": true, "src/app/__tests__/cart.js": true, "pkg/server_test.go": true,
		"web/cart.spec.ts": true, "web/cart.test.jsx": true, "testdata/keys/server.key": true,
		"docs/examples/config.yaml": true, "fixtures/users.json": true, "conftest.py": true, "test_models.py": true,
		"spec/models/user_spec.rb": true, "Test/Unit.cs": true,
		"src/app.py": false, "latest/config.yml": false, "contest/app.go": false, "attestation.go": false,
		"https://host/tests/": false, "": false, "src/testing/helpers.go": false,
	} {
		if got := IsTestPath(p); got != want {
			t.Errorf("IsTestPath(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestApplyTestContextThroughPrepare(t *testing.T) {
	raw := []Finding{
		{Scanner: "secrets", ScanType: "code", RuleID: "private-key-rsa", FilePath: "tests/certs/server.key", Line: 1, Severity: Critical, CWE: "CWE-321", Snippet: "-----BEGIN RSA PRIVATE KEY-----"},
		{Scanner: "bandit", ScanType: "code", RuleID: "B101", FilePath: "tests/test_api.py", Line: 3, Severity: Low, Snippet: "assert r.ok"},
		{Scanner: "bandit", ScanType: "code", RuleID: "B101", FilePath: "src/api.py", Line: 3, Severity: Low, Snippet: "assert r.ok"},
		{Scanner: "zap", ScanType: "dast", RuleID: "10038", FilePath: "https://shop/tests/", Severity: Medium},
		{Scanner: "gosec", ScanType: "code", RuleID: "G104", FilePath: "pkg/x_test.go", Line: 9, Severity: Info, Snippet: "f()"},
	}
	out := Prepare("s1", raw, nil, nil)
	got := map[string]Finding{}
	for _, f := range out {
		got[f.FilePath] = f
	}
	check := func(path string, sev Severity, context any, before any) {
		t.Helper()
		f, ok := got[path]
		if !ok {
			t.Fatalf("%s missing from %+v", path, out)
		}
		if f.Severity != sev || f.Metadata[MetaContext] != context || f.Metadata[MetaSeverityBeforeContext] != before {
			t.Errorf("%s: severity %s context %v before %v; want %s %v %v", path, f.Severity, f.Metadata[MetaContext],
				f.Metadata[MetaSeverityBeforeContext], sev, context, before)
		}
	}
	check("tests/certs/server.key", High, ContextTest, "critical")
	check("tests/test_api.py", Info, ContextTest, "low")
	check("src/api.py", Low, nil, nil)
	check("https://shop/tests/", Medium, nil, nil)
	check("pkg/x_test.go", Info, ContextTest, nil)
	if raw[0].Severity != Critical || raw[0].Metadata != nil {
		t.Errorf("Prepare modified its input: %+v", raw[0])
	}
}
