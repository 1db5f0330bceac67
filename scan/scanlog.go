package scan

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"scand/sse"
	"scand/store"
)

// logStart is the one log line an operator sees when a scan starts.
func (o *Orchestrator) logStart(sc store.Scan) {
	o.log.Info("scan started", append([]any{"scan_id", sc.ID, "scan_types", sc.ScanTypes}, targetAttrs(sc)...)...)
}

// logEnd is the one log line when a scan ends, whatever ended it: it reads
// the outcome back from the store, so every path that finishes a scan
// (completion, failure, cancellation, shutdown, a panic) is covered.
func (o *Orchestrator) logEnd(ctx context.Context, id string, start time.Time) {
	dur := o.now().Sub(start)
	sc, err := o.store.ScanByID(ctx, id)
	if err != nil {
		o.log.Error("scan ended; its outcome cannot be read", "scan_id", id, "duration_ms", dur.Milliseconds(), "error", err.Error())
		return
	}
	args := append([]any{"scan_id", sc.ID, "scan_types", sc.ScanTypes}, targetAttrs(sc)...)
	args = append(args, "status", sc.Status, "findings", sc.FindingsCount,
		slog.Group("severity_counts", "critical", sc.SeverityCounts["critical"], "high", sc.SeverityCounts["high"],
			"medium", sc.SeverityCounts["medium"], "low", sc.SeverityCounts["low"], "info", sc.SeverityCounts["info"]),
		"scanners_run", len(sc.ScannersRun), "scanners_skipped", len(sc.ScannersSkipped), "duration_ms", dur.Milliseconds())
	level := slog.LevelInfo
	if sc.Status == store.StatusFailed {
		level = slog.LevelError
		args = append(args, "error", sc.Error)
	}
	o.log.Log(ctx, level, "scan finished", args...)
}

// targetAttrs names what a scan points at. A target URL is logged without
// its user information, query and fragment: they are where credentials
// and tokens hide.
func targetAttrs(sc store.Scan) []any {
	out := []any{"target_path", sc.TargetPath}
	if sc.TargetURL != nil {
		out = append(out, "target_url", logSafeURL(*sc.TargetURL))
	}
	if sc.TargetHost != nil {
		out = append(out, "target_host", *sc.TargetHost)
	}
	return out
}

func logSafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
}

// TerminalEvent is the event that ended a finished scan, rebuilt from the
// stored scan: what a client that subscribes after the event stream's
// buffer expired gets, so it never waits forever on a finished scan.
func TerminalEvent(sc store.Scan) sse.Event {
	ev := sse.Event{Scan: sc.ID}
	switch sc.Status {
	case store.StatusCompleted:
		c := sc.SeverityCounts
		var dur float64
		if sc.CompletedAt != nil {
			dur = roundSeconds(sc.CompletedAt.Sub(sc.StartedAt))
		}
		ev.Name = sse.ScanComplete
		ev.Data = sse.ScanCompleteData{ScanID: sc.ID, TargetPath: sc.TargetPath, FindingsCount: sc.FindingsCount, RiskScore: sc.RiskScore,
			SeverityCounts: sse.SeverityCounts{Critical: c["critical"], High: c["high"], Medium: c["medium"], Low: c["low"], Info: c["info"]},
			DurationS:      dur}
	case store.StatusFailed:
		ev.Name = sse.ScanFailed
		ev.Data = sse.ScanFailedData{ScanID: sc.ID, TargetPath: sc.TargetPath, Error: sc.Error}
	default:
		ev.Name = sse.ScanCancelled
		ev.Data = sse.ScanCancelledData{ScanID: sc.ID, TargetPath: sc.TargetPath}
	}
	return ev
}
