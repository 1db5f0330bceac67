//go:build ignore

// sbom-cyclonedx prints scand's SBOM for a directory, for comparing with
// other SBOM tools (bench/sbom-compare.sh):
//
//	go run bench/sbom-cyclonedx.go [-format cyclonedx|spdx|components] DIR
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"scand/scan/components"
	"scand/scan/sbom"
)

func main() {
	format := flag.String("format", "cyclonedx", "cyclonedx, spdx or components (the raw discovery result)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run bench/sbom-cyclonedx.go [-format F] DIR")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	comps, err := components.Discover(ctx, flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "discovery:", err)
		if comps == nil {
			os.Exit(1)
		}
	}
	meta := sbom.Meta{ScanID: "bench", TargetPath: flag.Arg(0), Timestamp: time.Unix(0, 0), ToolVersion: "dev"}
	var out []byte
	switch *format {
	case "cyclonedx":
		out, err = sbom.CycloneDXJSON(meta, comps)
	case "spdx":
		out, err = sbom.SPDXJSON(meta, comps)
	case "components":
		out, err = json.MarshalIndent(comps, "", "  ")
	default:
		err = fmt.Errorf("unknown format %q", *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
