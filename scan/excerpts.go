package scan

import (
	"context"
	"sync"

	"scand/finding"
	"scand/scan/excerpt"
	"scand/store/excerpts"
)

// excerptBatch is how many excerpts wait before one write transaction.
const excerptBatch = 256

// excerptSink cuts the excerpt of each finding a scan stores and writes
// them in batches. A failure to read or store one costs that excerpt,
// never the scan: it is logged once.
type excerptSink struct {
	o       *Orchestrator
	scanID  string
	seq     int64
	b       *excerpt.Builder
	mu      sync.Mutex
	pending []excerpts.Item
	failed  bool
}

// newExcerptSink prepares the excerpts of a scan of the tree at root (a
// prepared image's unpacked files when prep has them); nil keeps none.
func (o *Orchestrator) newExcerptSink(ctx context.Context, scanID, root string, prep *Prepared) *excerptSink {
	if o.redact == nil || root == "" || root == "/" {
		return nil
	}
	sc, err := o.store.ScanByID(ctx, scanID)
	if err != nil {
		return nil
	}
	var unmap func(string) (string, bool)
	if prep != nil {
		unmap = prep.UnmapPath
	}
	b, err := excerpt.New(root, unmap, o.redact)
	if err != nil || b == nil {
		return nil
	}
	return &excerptSink{o: o, scanID: scanID, seq: sc.Seq, b: b}
}

func (x *excerptSink) observe(ctx context.Context, f finding.Finding) {
	if x == nil {
		return
	}
	e := x.b.Excerpt(f)
	if e == nil {
		return
	}
	x.mu.Lock()
	x.pending = append(x.pending, excerpts.Item{Fingerprint: f.Fingerprint, Excerpt: e})
	full := len(x.pending) >= excerptBatch
	x.mu.Unlock()
	if full {
		x.flush(ctx)
	}
}

func (x *excerptSink) flush(ctx context.Context) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.pending) == 0 {
		return
	}
	err := x.o.store.PutExcerpts(ctx, x.seq, x.pending)
	x.pending = x.pending[:0]
	if err != nil && !x.failed {
		x.failed = true
		x.o.log.Warn("code excerpts not stored", "scan_id", x.scanID, "error", err.Error())
	}
}

func (x *excerptSink) close(ctx context.Context) {
	if x == nil {
		return
	}
	x.flush(ctx)
	x.b.Close()
}
