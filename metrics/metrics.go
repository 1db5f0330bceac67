// Package metrics keeps scand's counters and histograms in memory and
// writes them, with values collected at scrape time, in the Prometheus
// text exposition format (version 0.0.4). It imports nothing of scand's,
// so any package (auth, hook, scan, api) may count into a *Registry that
// main.go hands it; a nil *Registry, *Counter or *Histogram counts nothing,
// so code under test needs no registry.
//
// Only the standard library is used (DESIGN.md: one direct dependency).
package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Registry is every metric family of one daemon.
type Registry struct {
	mu       sync.Mutex
	families map[string]family
}

// family is one metric name: its HELP, TYPE and samples.
type family interface {
	write(ctx context.Context, w *strings.Builder)
}

// New returns an empty registry.
func New() *Registry { return &Registry{families: map[string]family{}} }

// register adds f under name; registering a name twice is a wiring bug
// (two packages would share one series), so it panics at startup.
func (r *Registry) register(name string, f family) {
	if !validName(name) {
		panic("metrics: invalid metric name " + strconv.Quote(name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.families[name]; dup {
		panic("metrics: " + name + " registered twice")
	}
	r.families[name] = f
}

// Counter registers a counter family. By convention name ends in _total.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	c := &Counter{head: head{name: name, help: help, labels: labels}, values: map[string]*counterValue{}}
	if r != nil {
		r.register(name, c)
	}
	return c
}

// Histogram registers a histogram family with the given upper bounds
// (ascending; +Inf is implied).
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	if !sort.Float64sAreSorted(buckets) {
		panic("metrics: buckets of " + name + " are not ascending")
	}
	h := &Histogram{head: head{name: name, help: help, labels: labels}, buckets: buckets, values: map[string]*histValue{}}
	if r != nil {
		r.register(name, h)
	}
	return h
}

// Emit hands one sample of a collected family to the registry: its value
// and its label values in the order the family declared the label names.
type Emit func(value float64, labelValues ...string)

// CollectFunc computes a family's samples at scrape time (a gauge read
// from the store or the file system). ctx carries the scrape's deadline.
type CollectFunc func(ctx context.Context, emit Emit)

// Gauge registers a gauge family whose samples collect computes at each
// scrape.
func (r *Registry) Gauge(name, help string, collect CollectFunc, labels ...string) {
	r.collected(name, help, "gauge", collect, labels)
}

// CounterFunc registers a counter family whose samples are read at scrape
// time from a count kept elsewhere (a stored aggregate that only grows).
func (r *Registry) CounterFunc(name, help string, collect CollectFunc, labels ...string) {
	r.collected(name, help, "counter", collect, labels)
}

func (r *Registry) collected(name, help, typ string, collect CollectFunc, labels []string) {
	if r == nil {
		return
	}
	r.register(name, &collectedFamily{head: head{name: name, help: help, labels: labels}, typ: typ, collect: collect})
}

// Write writes every family, sorted by name, in the text format. Each
// family is rendered into memory first, so a collector that runs out of
// time leaves its family out rather than a half-written one.
func (r *Registry) Write(ctx context.Context, w io.Writer) error {
	r.mu.Lock()
	names := make([]string, 0, len(r.families))
	for n := range r.families {
		names = append(names, n)
	}
	fams := make([]family, len(names))
	sort.Strings(names)
	for i, n := range names {
		fams[i] = r.families[n]
	}
	r.mu.Unlock()
	ctx = context.WithValue(ctx, scrapeKey{}, &scrape{values: map[any]any{}})
	var b strings.Builder
	for _, f := range fams {
		f.write(ctx, &b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type scrapeKey struct{}

// scrape is one Write's memo of values several families share.
type scrape struct {
	mu     sync.Mutex
	values map[any]any
}

// Once returns compute's result, computed at most once per scrape for key:
// several families read from one query (the store's aggregates, the
// readiness checks) without running it once per family. Outside a scrape
// it just computes.
func Once[T any](ctx context.Context, key any, compute func() T) T {
	s, _ := ctx.Value(scrapeKey{}).(*scrape)
	if s == nil {
		return compute()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.values[key]; ok {
		return v.(T)
	}
	v := compute()
	s.values[key] = v
	return v
}

// ContentType is the media type of Write's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// head is what every family has: name, help and label names.
type head struct {
	name   string
	help   string
	labels []string
}

func (h head) writeHead(b *strings.Builder, typ string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", h.name, escapeHelp(h.help), h.name, typ)
}

// key joins label values into a map key; \xff never occurs in UTF-8.
func (h head) key(values []string) string {
	if len(values) != len(h.labels) {
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", h.name, len(h.labels), len(values)))
	}
	return strings.Join(values, "\xff")
}

// series renders name{l1="v1",...} with extra pairs appended (le).
func (h head) series(name string, values []string, extra ...string) string {
	if len(h.labels) == 0 && len(extra) == 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	n := 0
	pair := func(k, v string) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(escapeLabel(v))
		b.WriteByte('"')
	}
	for i, l := range h.labels {
		pair(l, values[i])
	}
	for i := 0; i+1 < len(extra); i += 2 {
		pair(extra[i], extra[i+1])
	}
	b.WriteByte('}')
	return b.String()
}

// Counter is a family of monotonically increasing counts.
type Counter struct {
	head
	mu     sync.Mutex
	values map[string]*counterValue
}

type counterValue struct {
	labels []string
	v      float64
}

// Inc adds one to the series with these label values.
func (c *Counter) Inc(labelValues ...string) { c.Add(1, labelValues...) }

// Add adds v (negative values are ignored: a counter never goes down).
func (c *Counter) Add(v float64, labelValues ...string) {
	if c == nil || v < 0 || math.IsNaN(v) {
		return
	}
	k := c.key(labelValues)
	c.mu.Lock()
	defer c.mu.Unlock()
	cv := c.values[k]
	if cv == nil {
		cv = &counterValue{labels: append([]string(nil), labelValues...)}
		c.values[k] = cv
	}
	cv.v += v
}

// Value is the current count of one series (tests).
func (c *Counter) Value(labelValues ...string) float64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cv := c.values[c.key(labelValues)]; cv != nil {
		return cv.v
	}
	return 0
}

func (c *Counter) write(_ context.Context, b *strings.Builder) {
	c.writeHead(b, "counter")
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range sortedKeys(c.values) {
		cv := c.values[k]
		fmt.Fprintf(b, "%s %s\n", c.series(c.name, cv.labels), formatFloat(cv.v))
	}
}

// Histogram is a family of distributions (durations, sizes).
type Histogram struct {
	head
	buckets []float64
	mu      sync.Mutex
	values  map[string]*histValue
}

type histValue struct {
	labels []string
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

// Observe records v in the series with these label values.
func (h *Histogram) Observe(v float64, labelValues ...string) {
	if h == nil || math.IsNaN(v) {
		return
	}
	k := h.key(labelValues)
	i := sort.SearchFloat64s(h.buckets, v) // first bound >= v: le is inclusive
	h.mu.Lock()
	defer h.mu.Unlock()
	hv := h.values[k]
	if hv == nil {
		hv = &histValue{labels: append([]string(nil), labelValues...), counts: make([]uint64, len(h.buckets)+1)}
		h.values[k] = hv
	}
	hv.counts[i]++
	hv.sum += v
	hv.n++
}

// Count is the number of observations of one series (tests).
func (h *Histogram) Count(labelValues ...string) uint64 {
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if hv := h.values[h.key(labelValues)]; hv != nil {
		return hv.n
	}
	return 0
}

func (h *Histogram) write(_ context.Context, b *strings.Builder) {
	h.writeHead(b, "histogram")
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, k := range sortedKeys(h.values) {
		hv := h.values[k]
		var cum uint64
		for i, le := range h.buckets {
			cum += hv.counts[i]
			fmt.Fprintf(b, "%s %d\n", h.series(h.name+"_bucket", hv.labels, "le", formatFloat(le)), cum)
		}
		fmt.Fprintf(b, "%s %d\n", h.series(h.name+"_bucket", hv.labels, "le", "+Inf"), hv.n)
		fmt.Fprintf(b, "%s %s\n", h.series(h.name+"_sum", hv.labels), formatFloat(hv.sum))
		fmt.Fprintf(b, "%s %d\n", h.series(h.name+"_count", hv.labels), hv.n)
	}
}

// collectedFamily is a gauge or counter computed at scrape time.
type collectedFamily struct {
	head
	typ     string
	collect CollectFunc
}

func (f *collectedFamily) write(ctx context.Context, b *strings.Builder) {
	type sample struct {
		series string
		v      float64
	}
	var samples []sample
	seen := map[string]bool{}
	f.collect(ctx, func(v float64, labelValues ...string) {
		f.key(labelValues) // panics on a wiring bug: wrong label count
		s := f.series(f.name, labelValues)
		if seen[s] {
			return // a duplicate series would make the exposition invalid
		}
		seen[s] = true
		samples = append(samples, sample{s, v})
	})
	f.writeHead(b, f.typ)
	sort.Slice(samples, func(i, j int) bool { return samples[i].series < samples[j].series })
	for _, s := range samples {
		fmt.Fprintf(b, "%s %s\n", s.series, formatFloat(s.v))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// escapeLabel escapes a label value: a scanner name or route comes from
// scand, but a value must never be able to end the quoted string.
func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\\\"\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func escapeHelp(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(s)
}

// validName is the metric and label name grammar [a-zA-Z_:][a-zA-Z0-9_:]*.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// DurationBuckets suit operations from a millisecond to about a minute
// (API requests).
func DurationBuckets() []float64 {
	return []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}
}

// LongDurationBuckets suit scanner runs: a tenth of a second to an hour.
func LongDurationBuckets() []float64 {
	return []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}
}
