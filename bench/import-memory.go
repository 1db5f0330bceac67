//go:build ignore

// import-memory streams a generated body to POST /api/v1/scans/import and
// samples the daemon's resident memory (/proc/<pid>/status) while it is
// read, printing the answer, the time it took and the peak RSS.
//
//	go run bench/import-memory.go -url http://127.0.0.1:18767 -key K -pid PID -findings 1000000
//	go run bench/import-memory.go -url ... -pid PID -spaces 300   # "{" then 300 MiB of spaces
//
// bench/import-memory.sh starts a daemon and runs both.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

func rssKiB(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return -1
}

func main() {
	base := flag.String("url", "http://127.0.0.1:8000", "daemon base URL")
	key := flag.String("key", "", "API key with write scope (empty in dev mode)")
	pid := flag.Int("pid", 0, "daemon process id, for RSS sampling")
	findings := flag.Int("findings", 0, "findings in a generated import")
	spaces := flag.Int("spaces", 0, "MiB of spaces after a lone '{' instead of an import")
	flag.Parse()

	pr, pw := io.Pipe()
	var sent atomic.Int64
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		count := func(n int, _ error) { sent.Add(int64(n)) }
		if *spaces > 0 {
			count(w.WriteString("{"))
			chunk := strings.Repeat(" ", 1<<20)
			for i := 0; i < *spaces; i++ {
				if n, err := w.WriteString(chunk); err != nil {
					pw.CloseWithError(err)
					return
				} else {
					count(n, nil)
				}
			}
		} else {
			count(w.WriteString(`{"target":"bench/import-memory","scan_types":["code"],"findings":[`))
			for i := 0; i < *findings; i++ {
				sum := sha256.Sum256([]byte(strconv.Itoa(i)))
				sep := ","
				if i == 0 {
					sep = ""
				}
				n, err := fmt.Fprintf(w, `%s{"scanner":"secrets","scan_type":"code","severity":"low","title":"t%d","rule_id":"r%d","file_path":"d%d/f%d.go","line":%d,"fingerprint":"%s"}`,
					sep, i, i%50, i%1000, i, i%500+1, hex.EncodeToString(sum[:]))
				if err != nil {
					pw.CloseWithError(err)
					return
				}
				count(n, nil)
			}
			count(w.WriteString(`]}`))
		}
		pw.CloseWithError(w.Flush())
	}()

	baseline := rssKiB(*pid, "VmRSS")
	peak := baseline
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				if r := rssKiB(*pid, "VmRSS"); r > peak {
					peak = r
				}
			}
		}
	}()
	req, _ := http.NewRequest("POST", *base+"/api/v1/scans/import", pr)
	req.Header.Set("Content-Type", "application/json")
	if *key != "" {
		req.Header.Set("X-API-Key", *key)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	took := time.Since(start)
	close(stop)
	if err != nil {
		fmt.Printf("request failed after %v (%d MiB sent): %v\n", took.Round(time.Millisecond), sent.Load()>>20, err)
	} else {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		fmt.Printf("status %d after %v, %d MiB sent; %.200s\n", resp.StatusCode, took.Round(time.Millisecond), sent.Load()>>20, body)
	}
	time.Sleep(200 * time.Millisecond)
	fmt.Printf("daemon RSS: before %d MiB, peak %d MiB (growth %d MiB), after %d MiB, VmHWM %d MiB\n",
		baseline>>10, peak>>10, (peak-baseline)>>10, rssKiB(*pid, "VmRSS")>>10, rssKiB(*pid, "VmHWM")>>10)
}
