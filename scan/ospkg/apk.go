package ospkg

import (
	"context"
	"fmt"
	"os"
	"strings"

	"scand/scan/spdx"
)

const apkInstalled = "lib/apk/db/installed"

// discoverApk reads Alpine's installed database: one paragraph per
// package, one-letter keys (P name, V version, A arch, L licence).
func discoverApk(ctx context.Context, r *os.Root, _ string, res *Result) error {
	data, err := readFile(r, apkInstalled, maxDBBytes)
	if err != nil {
		if !isNotExist(err) {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: not read: %v", apkInstalled, err))
		}
		return nil
	}
	ns := res.Distro.ID
	if ns == "" {
		ns = "alpine"
	}
	_ = stanzas(data, func(lines []string, line int) error {
		var name, version, arch, license string
		for _, l := range lines {
			if len(l) < 2 || l[1] != ':' {
				continue
			}
			v := strings.TrimSpace(l[2:])
			switch l[0] {
			case 'P':
				name = v
			case 'V':
				version = v
			case 'A':
				arch = v
			case 'L':
				license = v
			}
		}
		if name == "" || version == "" {
			return nil
		}
		p := Package{Type: "apk", Name: name, Version: version, Arch: arch, Source: apkInstalled, Line: line,
			PURL: osPURL("apk", ns, strings.ToLower(name), version, [2]string{"arch", arch}, [2]string{"distro", res.Distro.Qualifier()})}
		if license != "" {
			// apk writes SPDX-style expressions ("MIT AND BSD-2-Clause");
			// older packages space-separate several names.
			p.Licenses, p.LicenseSource = []string{spdx.Normalize(license)}, apkInstalled
		}
		res.Packages = append(res.Packages, p)
		return nil
	})
	return ctx.Err()
}
