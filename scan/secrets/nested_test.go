package secrets

import (
	"testing"

	"scand/scan"
)

// TestSecretsNestedVendorBlock: a vendor's name on a block's line carries
// to the credential keys inside the block, and only inside it.
func TestSecretsNestedVendorBlock(t *testing.T) {
	c := NewContent(scan.Config{})
	cases := []struct {
		name, rel, data string
		wantLine        int // 0: no finding
	}{
		{"yaml block", "values.yaml", "sumologic:\n  accessId: suDkVYKjXZAwsz\n", 2},
		{"json object", "app.json", "{\n  \"MessageBird\": {\n    \"AccessKey\": \"F9P6fMvHVLr3jtKLQuIpu2Y5X\"\n  }\n}\n", 3},
		{"hcl block", "main.tf", "provider \"sumologic\" {\n  access_id = \"su9OL59biWiJu7\"\n}\n", 2},
		{"after the block ends", "values.yaml", "sumologic:\n  region: us2\nother:\n  accessId: suDkVYKjXZAwsz\n", 0},
		{"after the closing brace", "main.tf", "provider \"sumologic\" {\n  region = \"us2\"\n}\naccess_id = \"su9OL59biWiJu7\"\n", 0},
		{"key that names no credential", "values.yaml", "heroku:\n  app_uuid: 3d61cde2-c8a2-4597-a961-692d65070ecb\n", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Scan([]byte(tc.data), tc.rel)
			if tc.wantLine == 0 {
				if len(got) != 0 {
					t.Fatalf("want no finding, got %s at line %d", got[0].Finding.RuleID, got[0].Finding.Line)
				}
				return
			}
			if len(got) != 1 || got[0].Finding.Line != tc.wantLine {
				t.Fatalf("want one finding at line %d, got %+v", tc.wantLine, got)
			}
		})
	}
}

// TestSecretsPrefilters: the cheap line tests must pass every line their
// rule can match, or the rule goes blind.
func TestSecretsPrefilters(t *testing.T) {
	for _, l := range []string{"token: s.ZC9Ecf4M5g9o34Q6RkzGsj0z", "batchkey: hvb.JGbZZaCkOSgsZ56uhGlTK2zyC1j2mwhy0VLp4",
		"recoverykey: hvr.JGbZZaCkOSgsZ56uhGlTK2zyC1j2mwhy0VLp4", "x = hvs.CAESIP2jTxc9S2K7Z6CtcFWQv7"} {
		if !secretsHasVaultShape([]byte(l)) {
			t.Errorf("vault prefilter drops %q", l)
		}
	}
	for _, l := range []string{"s.makeClient(args)", "token := s.Token()", "this.vault.token"} {
		if secretsHasVaultShape([]byte(l)) {
			t.Errorf("vault prefilter passes %q", l)
		}
	}
	if !secretsHasHexRun64([]byte(`k = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"`)) ||
		secretsHasHexRun64([]byte(`k = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b7869"`)) {
		t.Error("hex-run prefilter wrong at 64 digits")
	}
}
