package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"scand/scan"
	"scand/scan/netguard"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/scan/vulndb"
)

// statusProbeTimeout bounds the availability probes of `scand status`.
const statusProbeTimeout = 20 * time.Second

// scannerState is one row of `scand status`: GET /dashboard/status's data
// for a scanner.
type scannerState struct {
	Name        string  `json:"name"`
	ScanType    string  `json:"scan_type"`
	Available   bool    `json:"available"`
	Version     *string `json:"version"`
	InstallHint string  `json:"install_hint"`
}

// printStatus is `scand status`: every scanner of the registry in run
// order with its availability, version and install hint, then the
// offline advisory databases and their age (cmd_vulndb.go reads them).
func printStatus(ctx context.Context, getenv func(string) string, dir string, inv []vulndb.Info, maxAge time.Duration, asJSON bool, stdout io.Writer) error {
	settings, err := loadConfig(nil, getenv, io.Discard)
	if err != nil {
		return err
	}
	cfg := scan.Config{Runner: proc.NewRunner(settings.ScannerTimeout), Getenv: getenv, Now: time.Now,
		Targets: netguard.Targets{Allow: settings.TargetAllow}, VulnDBDir: dir}
	scanners := registry.All(cfg)
	probeCtx, cancel := context.WithTimeout(ctx, statusProbeTimeout)
	defer cancel()
	probes := scan.ProbeAll(probeCtx, nil, scanners)
	rows := make([]scannerState, len(scanners))
	available := 0
	for i, s := range scanners {
		p := probes[i]
		rows[i] = scannerState{Name: s.Name(), ScanType: s.Type(), Available: p.OK}
		if p.OK {
			available++
			if p.Version != "" {
				v := p.Version
				rows[i].Version = &v
			}
		} else {
			rows[i].InstallHint = p.Hint
		}
	}
	days := int(maxAge / (24 * time.Hour))
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"scanners": rows, "available": available, "total": len(rows),
			"vulndb_dir": dir, "max_age_days": days, "databases": inv})
	}
	fmt.Fprintf(stdout, "Scanners (%d of %d available, in run order):\n", available, len(rows))
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tTYPE\tAVAILABLE\tVERSION\tINSTALL HINT")
	for _, r := range rows {
		avail, version := "no", "-"
		if r.Available {
			avail = "yes"
		}
		if r.Version != nil {
			version = *r.Version
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Name, r.ScanType, avail, version, r.InstallHint)
	}
	tw.Flush()
	fmt.Fprintln(stdout)
	printInventory(stdout, dir, inv, days)
	return nil
}
