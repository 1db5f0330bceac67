package scan

import (
	"context"
	"time"

	"scand/scan/vulndb"
	"scand/sse"
	"scand/store"
)

// DefaultMaxDataAge is SVC_VULNDB_MAX_AGE_DAYS's default: offline advisory
// data older than this makes a scan's warning and a notification.
const DefaultMaxDataAge = 7 * 24 * time.Hour

// DataSourcer is implemented by scanners that read offline advisory data
// (osv-scanner, govulncheck, trivy): the databases they would read now,
// with their build dates. The orchestrator records them with every scan
// the scanner ran in.
type DataSourcer interface {
	DataSources(ctx context.Context) []vulndb.Info
}

// dataSourcesOf asks a scanner that ran which databases it read.
func dataSourcesOf(ctx context.Context, s Scanner) []vulndb.Info {
	if d, ok := s.(DataSourcer); ok {
		return d.DataSources(ctx)
	}
	return nil
}

// recordDataAge stores the databases a scan used with their age now, and
// returns the stale ones' warnings. A failure to store is logged: it must
// not fail the scan.
func (o *Orchestrator) recordDataAge(ctx context.Context, scanID string, sources []vulndb.Info) (names, warnings []string) {
	if len(sources) == 0 {
		return nil, nil
	}
	maxAge := o.maxDataAge
	if maxAge <= 0 {
		maxAge = DefaultMaxDataAge
	}
	rows := make([]store.ScanDataSource, 0, len(sources))
	seen := map[string]bool{}
	for _, src := range sources {
		if seen[src.Name] {
			continue
		}
		seen[src.Name] = true
		src = src.WithAge(o.now(), maxAge)
		w := src.Warning(int(maxAge / (24 * time.Hour)))
		rows = append(rows, store.ScanDataSource{Name: src.Name, Tool: src.Tool, Path: src.Path, Source: src.Source,
			BuiltAt: src.BuiltAt, AgeDays: src.AgeDays, Stale: src.Stale, Warning: w})
		if w != "" {
			names, warnings = append(names, src.Name), append(warnings, w)
		}
	}
	if err := o.store.SetScanDataSources(ctx, scanID, rows); err != nil {
		o.log.Warn("cannot record the advisory data a scan used", "scan_id", scanID, "error", err.Error())
	}
	return names, warnings
}

// warnStaleData publishes ScanStaleData for a completed scan that used
// stale advisory data.
func (o *Orchestrator) warnStaleData(ctx context.Context, scanID, target string, names, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	o.log.Warn("scan used stale advisory data", "scan_id", scanID, "databases", names)
	o.bus.Publish(ctx, sse.Event{Name: sse.ScanStaleData, Data: sse.ScanStaleDataData{ScanID: scanID, TargetPath: target,
		Databases: names, Warnings: warnings}, At: o.now()})
}
