package filekind

import "testing"

func TestFormatName(t *testing.T) {
	for _, tc := range []struct {
		rel, data, want string
	}{
		{"app/config.yaml", "a: 1", "app/config.yaml"},
		{"app/config.yaml.example", "a: 1", "app/config.yaml"},
		{".env.sample", "A=1", ".env"},
		{"roles/db/templates/my.cnf.j2", "[client]", "roles/db/templates/my.cnf"},
		{"config/database.yml.erb", "a: 1", "config/database.yml"},
		{".npmrc.bak.orig", "", ".npmrc"},
		{"x.example", "", "x.txt"}, // the copy of a file named for no format
		{".example", "", ".example"},
		{"notes", "token=abc", "notes.txt"},
		{"docs/Makefile", "TOKEN = abc", "docs/Makefile.txt"},
		{"bin/deploy", "#!/bin/bash\nexport A=1", "bin/deploy.sh"},
		{"bin/deploy", "#!/usr/bin/env zsh\n", "bin/deploy.sh"},
		{"bin/deploy", "#!/usr/bin/env -S LC_ALL=C bash -e\n", "bin/deploy.sh"},
		{"bin/deploy", "#!/usr/bin/env -S\n", "bin/deploy.script"},
		{"bin/tool", "#!/usr/bin/env python3\nimport os", "bin/tool.script"},
		{"bin/tool", "#!", "bin/tool.script"},
		{"Jenkinsfile", "pipeline {}", "Jenkinsfile"},
		{"Dockerfile", "FROM x", "Dockerfile"},
		{"_netrc", "machine x", "_netrc"},
		{"ovh.json", "\ufeff[ovh-eu]\napplication_key=x", "ovh.json.txt"},
		{"ovh.json", "application_key=x", "ovh.json.txt"},
		{"a.json", "  {\"a\": 1}", "a.json"},
		{"a.json", "[\n  {\"a\": 1}]", "a.json"},
		{"a.json", "[1, 2]", "a.json"},
		{"a.json", "// jsonc\n{}", "a.json"},
		{"a.json", "null", "a.json"},
		{"a.json", "", "a.json"},
		{"main.go", "package main", "main.go"},
	} {
		if got := FormatName(tc.rel, []byte(tc.data)); got != tc.want {
			t.Errorf("FormatName(%q, %q) = %q, want %q", tc.rel, tc.data, got, tc.want)
		}
	}
}

// The names FormatName gives are read by the predicates as the formats
// they stand for.
func TestFormatNameKinds(t *testing.T) {
	if !PlainText(FormatName("notes", nil)) || !Config(FormatName("notes", nil)) {
		t.Error("a file of no extension is not plain text")
	}
	if !Shell(FormatName("deploy", []byte("#!/bin/sh\n"))) {
		t.Error("a #!/bin/sh script of no extension is not a shell script")
	}
	if Config(FormatName("tool", []byte("#!/usr/bin/python\n"))) {
		t.Error("a Python script of no extension reads as configuration")
	}
	if !Dotenv(FormatName("prod.env.example", nil)) || PlainText("README.md") {
		t.Error("copies and markup are not judged by their format")
	}
}

func TestMarkdownBlocks(t *testing.T) {
	type block struct{ body, format string }
	for _, tc := range []struct {
		doc  string
		want []block
	}{
		{"# T\n\n```sh\nexport A=1\n```\nprose\n", []block{{"export A=1\n", "block.sh"}}},
		{"```\nA=1\n```", []block{{"A=1\n", "block.txt"}}},
		{"1. Set:\n   ```yaml title=\"x.yml\"\n   a: 1\n   ```\n", []block{{"   a: 1\n", "block.yaml"}}},
		{"~~~ {.ini}\n[a]\n~~~\n", []block{{"[a]\n", "block.ini"}}},
		{"````md\n```sh\nA=1\n```\n````\n", []block{{"```sh\nA=1\n```\n", "block.md"}}},
		{"```TypeScript\nconst a = 1\n```", []block{{"const a = 1\n", "block.typescript"}}},
		{"```console\r\n$ export A=1\r\n```\r\n", []block{{"$ export A=1\r\n", "block.sh"}}},
		{"```dotenv\nA=1\n", []block{{"A=1\n", ".env"}}},                                // left open: to the end
		{"use ``` and ` ``js` `` inline\n", nil},                                        // an inline span, no fence
		{"```js `x`\nA=1\n```", []block{{"", "block.txt"}}},                             // a backtick in the info string: no fence; the last line opens one
		{"> ```json\n> {\"a\": 1}\n> ```\n", []block{{"> {\"a\": 1}\n", "block.json"}}}, // in a quote
		{"```\na\n~~~\nb\n```\n", []block{{"a\n~~~\nb\n", "block.txt"}}},                // a tilde line does not close backticks
	} {
		var got []block
		for _, b := range MarkdownBlocks([]byte(tc.doc)) {
			got = append(got, block{tc.doc[b.Start:b.End], b.Format})
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %q, want %q", tc.doc, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: block %d is %q, want %q", tc.doc, i, got[i], tc.want[i])
			}
		}
	}
}
