package scan

import (
	"context"
	"sync"

	"scand/finding"
	"scand/scan/excerpt"
	"scand/store/excerpts"
)

// excerptBatch is how many excerpts a scanner worker gathers before it
// compresses them and hands them to the spool.
const excerptBatch = 256

// excerptSink cuts the excerpt of each finding a scan stores and spools
// them; flush writes them to the database in key order before the scan
// completes. A failure to read or store one costs that excerpt, never the
// scan: it is logged once.
type excerptSink struct {
	o       *Orchestrator
	scanID  string
	b       *excerpt.Builder
	spool   *excerpts.Spool
	mu      sync.Mutex
	pending []excerpts.Item
	failed  bool
	// committed is closed when the write flush started is over.
	committed chan struct{}
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
	spool, err := o.store.SpoolExcerpts(ctx, sc.Seq)
	if err != nil {
		b.Close()
		o.log.Warn("code excerpts not kept", "scan_id", scanID, "error", err.Error())
		return nil
	}
	return &excerptSink{o: o, scanID: scanID, b: b, spool: spool}
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
	var full []excerpts.Item
	if len(x.pending) >= excerptBatch {
		full, x.pending = x.pending, nil
	}
	x.mu.Unlock()
	if full != nil {
		x.fail(x.spool.Add(ctx, full))
	}
}

// flush spools what is pending and starts writing every spooled excerpt
// beside the ingest's own Finish (sorting and writing the findings): the
// one writer connection interleaves their transactions, and the spool's
// sort runs while the findings are written. The returned func waits for
// the write; Finish calls it before the scan completes, so the scan's
// first reader has its excerpts.
func (x *excerptSink) flush(ctx context.Context) (wait func()) {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	rest := x.pending
	x.pending = nil
	x.mu.Unlock()
	if err := x.spool.Add(ctx, rest); err != nil {
		x.fail(err)
		return nil
	}
	x.committed = make(chan struct{})
	go func() {
		defer close(x.committed)
		x.fail(x.spool.Commit(ctx))
	}()
	return x.wait
}

// wait returns once a write flush started is over.
func (x *excerptSink) wait() {
	if x.committed != nil {
		<-x.committed
	}
}

func (x *excerptSink) fail(err error) {
	if err == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.failed {
		x.failed = true
		x.o.log.Warn("code excerpts not stored", "scan_id", x.scanID, "error", err.Error())
	}
}

func (x *excerptSink) close(ctx context.Context) {
	if x == nil {
		return
	}
	x.wait()
	x.spool.Close()
	x.b.Close()
}
