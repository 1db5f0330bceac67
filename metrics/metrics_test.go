package metrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestWriteExposition(t *testing.T) {
	r := New()
	c := r.Counter("scand_things_total", "Things done.\nSecond line with a \\ backslash.", "kind")
	c.Inc("a")
	c.Add(2.5, "a")
	c.Inc(`we"ird` + "\n" + `\x`)
	c.Add(-1, "a") // ignored: counters never go down
	h := r.Histogram("scand_op_seconds", "Op duration.", []float64{0.1, 1}, "op")
	h.Observe(0.1, "x") // le is inclusive
	h.Observe(0.5, "x")
	h.Observe(7, "x")
	r.Gauge("scand_queue", "Queue.", func(ctx context.Context, emit Emit) {
		emit(3)
		emit(4) // duplicate series dropped
	})
	var b strings.Builder
	if err := r.Write(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	want := `# HELP scand_op_seconds Op duration.
# TYPE scand_op_seconds histogram
scand_op_seconds_bucket{op="x",le="0.1"} 1
scand_op_seconds_bucket{op="x",le="1"} 2
scand_op_seconds_bucket{op="x",le="+Inf"} 3
scand_op_seconds_sum{op="x"} 7.6
scand_op_seconds_count{op="x"} 3
# HELP scand_queue Queue.
# TYPE scand_queue gauge
scand_queue 3
# HELP scand_things_total Things done.\nSecond line with a \\ backslash.
# TYPE scand_things_total counter
scand_things_total{kind="a"} 3.5
scand_things_total{kind="we\"ird\n\\x"} 1
`
	if b.String() != want {
		t.Fatalf("exposition:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := c.Value("a"); got != 3.5 {
		t.Errorf("Value = %v, want 3.5", got)
	}
	if got := h.Count("x"); got != 3 {
		t.Errorf("Count = %v, want 3", got)
	}
}

func TestWiringBugsPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"duplicate":   func() { r := New(); r.Counter("a_total", ""); r.Counter("a_total", "") },
		"bad name":    func() { New().Counter("a-b", "") },
		"label count": func() { New().Counter("a_total", "", "x").Inc() },
		"unsorted":    func() { New().Histogram("h", "", []float64{2, 1}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

func TestNilIsInert(t *testing.T) {
	var c *Counter
	var h *Histogram
	c.Inc("x")
	h.Observe(1)
	var r *Registry
	r.Gauge("g", "", func(context.Context, Emit) {})
	if c.Value("x") != 0 || h.Count() != 0 {
		t.Fatal("nil metrics counted")
	}
}

// TestOnceSharesOneComputationPerScrape: two families reading one query
// run it once per scrape, and again on the next scrape.
func TestOnceSharesOneComputationPerScrape(t *testing.T) {
	r := New()
	calls := 0
	type key struct{}
	read := func(ctx context.Context) int {
		return Once(ctx, key{}, func() int { calls++; return calls })
	}
	r.Gauge("scand_a", "", func(ctx context.Context, emit Emit) { emit(float64(read(ctx))) })
	r.Gauge("scand_b", "", func(ctx context.Context, emit Emit) { emit(float64(read(ctx))) })
	for scrape := 1; scrape <= 2; scrape++ {
		var b strings.Builder
		r.Write(context.Background(), &b)
		want := fmt.Sprintf("scand_a %d\n", scrape)
		if !strings.Contains(b.String(), want) || !strings.Contains(b.String(), fmt.Sprintf("scand_b %d\n", scrape)) {
			t.Fatalf("scrape %d:\n%s", scrape, b.String())
		}
	}
	if calls != 2 {
		t.Fatalf("%d computations for 2 scrapes", calls)
	}
}
