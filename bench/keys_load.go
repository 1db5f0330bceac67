//go:build ignore

// keys_load is a closed-loop HTTP load generator for one authenticated
// route (by default GET /api/v1/keys/me with an issued key): -c workers
// each send a request, wait for the answer, and send the next, for -d.
// It prints throughput and latency percentiles. bench/keys_load.sh starts
// a daemon, issues the key and runs it.
//
//	go run bench/keys_load.go -url http://127.0.0.1:18766/api/v1/keys/me -key ssk_... -c 16 -d 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8000/api/v1/keys/me", "target URL")
	key := flag.String("key", "", "API key sent as X-API-Key")
	workers := flag.Int("c", 16, "concurrent connections")
	duration := flag.Duration("d", 10*time.Second, "measuring time")
	warmup := flag.Duration("warmup", 2*time.Second, "unmeasured time before measuring")
	flag.Parse()
	if *key == "" {
		fmt.Fprintln(os.Stderr, "keys_load: -key is required")
		os.Exit(2)
	}
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{MaxIdleConns: *workers, MaxIdleConnsPerHost: *workers, DisableCompression: true},
	}

	type result struct {
		latencies []time.Duration
		errors    map[string]int
	}
	results := make([]result, *workers)
	start := time.Now()
	measureFrom := start.Add(*warmup)
	ctx, cancel := context.WithDeadline(context.Background(), measureFrom.Add(*duration))
	defer cancel()
	var wg sync.WaitGroup
	for w := range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[w]
			res.errors = map[string]int{}
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", *url, nil)
				req.Header.Set("X-API-Key", *key)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				elapsed := time.Since(t0)
				if ctx.Err() != nil || t0.Before(measureFrom) {
					continue
				}
				switch {
				case err != nil:
					res.errors[err.Error()]++
				case resp.StatusCode != http.StatusOK:
					res.errors[resp.Status]++
				default:
					res.latencies = append(res.latencies, elapsed)
				}
			}
		}()
	}
	wg.Wait()

	var all []time.Duration
	errs := map[string]int{}
	for _, r := range results {
		all = append(all, r.latencies...)
		for k, v := range r.errors {
			errs[k] += v
		}
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration {
		if len(all) == 0 {
			return 0
		}
		return all[min(len(all)-1, int(float64(len(all))*p))]
	}
	fmt.Printf("%s  c=%d  %v: %d ok, %.0f req/s  p50=%v p90=%v p99=%v max=%v\n",
		*url, *workers, *duration, len(all), float64(len(all))/duration.Seconds(),
		pct(0.50).Round(10*time.Microsecond), pct(0.90).Round(10*time.Microsecond),
		pct(0.99).Round(10*time.Microsecond), pct(1).Round(10*time.Microsecond))
	for k, v := range errs {
		fmt.Printf("  error %q x%d\n", k, v)
	}
	if len(errs) > 0 {
		os.Exit(1)
	}
}
