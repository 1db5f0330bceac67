package spdx

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeLicense(t *testing.T) {
	tests := []struct{ in, want string }{
		{"MIT", "MIT"},
		{"mit", "MIT"},
		{"MIT License", "MIT"},
		{"The MIT License (MIT)", "MIT"},
		{"Apache 2.0", "Apache-2.0"},
		{"Apache-2", "Apache-2.0"},
		{"Apache License, Version 2.0", "Apache-2.0"},
		{"The Apache Software License, Version 2.0", "Apache-2.0"},
		{"ASL 2.0", "Apache-2.0"},
		{"Apache Software License", "Apache Software License"},
		{"GPLv3", "GPL-3.0-only"},
		{"GPLv3+", "GPL-3.0-or-later"},
		{"GPL-3.0 or later", "GPL-3.0-or-later"},
		{"GNU General Public License v2 or later (GPLv2+)", "GPL-2.0-or-later"},
		{"GNU General Public License v3 (GPLv3)", "GPL-3.0-only"},
		{"GNU Lesser General Public License v2.1", "LGPL-2.1-only"},
		{"LGPLv3+", "LGPL-3.0-or-later"},
		{"GNU Affero General Public License v3", "AGPL-3.0-only"},
		{"GPL-2.0", "GPL-2.0-only"},
		{"GPL-2.0+", "GPL-2.0-or-later"},
		{"AGPL-3.0", "AGPL-3.0-only"},
		{"LGPL-2.1+", "LGPL-2.1-or-later"},
		{"GPL-2.0-with-classpath-exception", "GPL-2.0-only WITH Classpath-exception-2.0"},
		{"GPL", "GPL"},
		{"BSD", "BSD"},
		{"BSD License", "BSD License"},
		{"BSD 3-Clause", "BSD-3-Clause"},
		{"New BSD License", "BSD-3-Clause"},
		{"Simplified BSD", "BSD-2-Clause"},
		{"ISC License (ISCL)", "ISC"},
		{"Mozilla Public License 2.0 (MPL 2.0)", "MPL-2.0"},
		{"Eclipse Public License - v 2.0", "EPL-2.0"},
		{"(MIT OR Apache-2.0)", "MIT OR Apache-2.0"},
		{"mit or apache-2.0", "MIT OR Apache-2.0"},
		{"MIT/Apache-2.0", "MIT OR Apache-2.0"},
		{"Apache-2.0 WITH LLVM-exception", "Apache-2.0 WITH LLVM-exception"},
		{"MIT AND (BSD-3-Clause OR GPL-2.0)", "MIT AND (BSD-3-Clause OR GPL-2.0-only)"},
		{"(MIT AND Zlib) OR Apache-2.0", "(MIT AND Zlib) OR Apache-2.0"},
		{"GPLv2 OR MIT", "GPL-2.0-only OR MIT"},
		{"Server Side Public License", "SSPL-1.0"},
		{"The Unlicense", "Unlicense"},
		{"CC0 1.0 Universal", "CC0-1.0"},
		{"SEE LICENSE IN LICENSE.md", "SEE LICENSE IN LICENSE.md"},
		{"  Public   Domain ", "Public Domain"},
		{"UNLICENSED", "UNLICENSED"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Normalize(tc.in); got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, known := range []string{"MIT", "MIT OR Apache-2.0", "GPL-2.0-only WITH Classpath-exception-2.0", "Apache-2.0+"} {
		if !IsSPDX(known) {
			t.Errorf("IsSPDX(%q) = false", known)
		}
	}
	for _, unknown := range []string{"BSD", "GPL", "MIT OR Custom", "LicenseRef-x", "Apache License, Version 2.0", "MIT WITH Nope-exception"} {
		if IsSPDX(unknown) {
			t.Errorf("IsSPDX(%q) = true", unknown)
		}
	}
}

func TestLicenseIdentifyText(t *testing.T) {
	tests := []struct{ file, want string }{
		{"../../testdata/components/gomod/vendor/github.com/google/uuid/LICENSE", "BSD-3-Clause"},
		{"../../testdata/components/gomod/vendor/github.com/pkg/errors/LICENSE", "BSD-2-Clause"},
		{"../../testdata/components/gomod/vendor/github.com/BurntSushi/toml/COPYING", "MIT"},
		{"../../testdata/components/gomod/vendor/gopkg.in/yaml.v3/LICENSE", "Apache-2.0 AND MIT"},
		{"../../testdata/components/cargo/vendor/indexmap/LICENSE-APACHE", "Apache-2.0"},
		{"../../testdata/licenses/go-vendor/vendor/example.com/agpl/LICENSE", "AGPL-3.0-only"},
		{"../../testdata/licenses/go-vendor/vendor/example.com/gpl2/COPYING", "GPL-2.0-only"},
		{"../../testdata/licenses/go-vendor/vendor/example.com/odd/LICENSE.txt", ""},
	}
	for _, tc := range tests {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := IdentifyText(string(data)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, got, tc.want)
		}
	}
	texts := []struct{ text, want string }{
		{"GNU LESSER GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007\n This version of the GNU Lesser General Public License incorporates the terms of the GNU General Public License", "LGPL-3.0-only"},
		{"GNU LESSER GENERAL PUBLIC LICENSE Version 2.1, February 1999", "LGPL-2.1-only"},
		{"GNU GENERAL PUBLIC LICENSE Version 3, 29 June 2007", "GPL-3.0-only"},
		{"Mozilla Public License Version 2.0\n==================================", "MPL-2.0"},
		{"Server Side Public License\nVERSION 1, OCTOBER 16, 2018", "SSPL-1.0"},
		{"This is free and unencumbered software released into the public domain.", "Unlicense"},
		{"ISC License\n\nPermission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies.", "ISC"},
		{"Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted.\n\nTHE SOFTWARE IS PROVIDED \"AS IS\"", "0BSD"},
		{"Redistribution and use in source and binary forms, with or without modification, are permitted provided that ... All advertising materials mentioning features", "BSD-4-Clause"},
	}
	for _, tc := range texts {
		if got := IdentifyText(tc.text); got != tc.want {
			t.Errorf("%.40q: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSPDXIDsInCycloneDXSchema: every id IsSingleID accepts must be
// in the CycloneDX schema's SPDX enum, or CycloneDX output would not
// validate. The list is generated from that enum; this catches an edit.
func TestSPDXIDsInCycloneDXSchema(t *testing.T) {
	var schema struct {
		Enum []string `json:"enum"`
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "schemas", "cyclonedx", "spdx.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	inSchema := map[string]bool{}
	for _, id := range schema.Enum {
		inSchema[id] = true
	}
	for _, id := range strings.Fields(licenseSPDXLicenseIDs + " " + licenseSPDXExceptionIDs) {
		if !inSchema[id] {
			t.Errorf("%s is not in the CycloneDX SPDX enum", id)
		}
	}
}
