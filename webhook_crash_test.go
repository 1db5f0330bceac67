package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// webhookCrashDaemon is one run of the real scand binary.
type webhookCrashDaemon struct {
	cmd  *exec.Cmd
	base string
	mu   sync.Mutex
	logs bytes.Buffer
	done chan error
}

func webhookCrashStart(t *testing.T, bin, db string) *webhookCrashDaemon {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "SVC_ADDR=127.0.0.1:0", "SVC_DB=" + db, "SVC_LOG_LEVEL=debug"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &webhookCrashDaemon{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			d.mu.Lock()
			d.logs.Write(line)
			d.logs.WriteByte('\n')
			d.mu.Unlock()
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "scand listening" {
				addr <- rec.Addr
			}
		}
		d.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	select {
	case a := <-addr:
		d.base = "http://" + a
	case err := <-d.done:
		t.Fatalf("scand exited before listening: %v\n%s", err, d.log())
	case <-time.After(30 * time.Second):
		t.Fatalf("scand did not start:\n%s", d.log())
	}
	return d
}

func (d *webhookCrashDaemon) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logs.String()
}

func (d *webhookCrashDaemon) call(t *testing.T, method, path, body string, out any) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, d.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

type webhookCrashDelivery struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Attempt      int    `json:"attempt"`
	ResponseNote string `json:"response_note"`
}

func (d *webhookCrashDaemon) deliveries(t *testing.T, webhookID string) []webhookCrashDelivery {
	t.Helper()
	var out []webhookCrashDelivery
	if code := d.call(t, "GET", "/api/v1/webhooks/"+webhookID+"/deliveries", "", &out); code != 200 {
		t.Fatalf("deliveries: %d", code)
	}
	return out
}

func webhookCrashWait(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookCrashRecovery kills the daemon with SIGKILL while a delivery
// is in flight and proves, against the real binary and database file, that
// after a restart every delivery arrives, in order, and none is left in
// delivering.
func TestWebhookCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the daemon")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "scand")
	buildCtx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(buildCtx, "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "scand.db")

	// The receiver's port: reserved, then closed, so it is down.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	receiverAddr := ln.Addr().String()
	ln.Close()

	first := webhookCrashStart(t, bin, db)
	var created struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	body := fmt.Sprintf(`{"name":"crash","url":"http://%s/hook","event_filter":["webhook.test"]}`, receiverAddr)
	if code := first.call(t, "POST", "/api/v1/webhooks", body, &created); code != 201 || len(created.Secret) != 32 {
		t.Fatalf("create webhook: %d %+v", code, created)
	}
	const deliveries = 6
	var ids []string
	for i := 0; i < deliveries; i++ {
		var q struct {
			DeliveryID string `json:"delivery_id"`
		}
		if code := first.call(t, "POST", "/api/v1/webhooks/"+created.ID+"/test", "", &q); code != 202 || q.DeliveryID == "" {
			t.Fatalf("test delivery: %d %+v", code, q)
		}
		ids = append(ids, q.DeliveryID)
	}
	// Receiver down: the head is refused and backs off; nothing behind it moves.
	webhookCrashWait(t, 20*time.Second, "a refused attempt", func() bool {
		ds := first.deliveries(t, created.ID)
		head := ds[len(ds)-1]
		return head.Attempt >= 1 && strings.Contains(head.ResponseNote, "refused")
	})

	// Now a receiver that accepts and never answers: the next attempt hangs
	// with its row in delivering, and that is when the daemon dies.
	hole, err := net.Listen("tcp", receiverAddr)
	if err != nil {
		t.Fatalf("re-listen on the reserved port: %v", err)
	}
	var holeConns []net.Conn
	var holeMu sync.Mutex
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			holeMu.Lock()
			holeConns = append(holeConns, c)
			holeMu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	webhookCrashWait(t, 30*time.Second, "a delivery in flight", func() bool {
		for _, d := range first.deliveries(t, created.ID) {
			if d.Status == "delivering" {
				return true
			}
		}
		return false
	})
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	hole.Close()
	holeMu.Lock()
	for _, c := range holeConns {
		c.Close()
	}
	holeMu.Unlock()

	// The real receiver comes up on the same port.
	var mu sync.Mutex
	var arrivals []string
	var badSignatures int
	recvLn, err := net.Listen("tcp", receiverAddr)
	if err != nil {
		t.Fatalf("receiver listen: %v", err)
	}
	receiver := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		sig := r.Header.Get("X-Svc-Signature")
		ts, v1, _ := strings.Cut(strings.TrimPrefix(sig, "t="), ",v1=")
		mac := hmac.New(sha256.New, []byte(created.Secret))
		mac.Write([]byte(ts + "."))
		mac.Write(raw)
		mu.Lock()
		if !hmac.Equal([]byte(v1), []byte(hex.EncodeToString(mac.Sum(nil)))) {
			badSignatures++
		}
		arrivals = append(arrivals, r.Header.Get("X-Svc-Delivery"))
		mu.Unlock()
	}))
	receiver.Listener.Close()
	receiver.Listener = recvLn
	receiver.Start()
	defer receiver.Close()

	second := webhookCrashStart(t, bin, db)
	webhookCrashWait(t, 60*time.Second, "every delivery to succeed", func() bool {
		for _, d := range second.deliveries(t, created.ID) {
			if d.Status != "succeeded" {
				return false
			}
		}
		return true
	})
	if !strings.Contains(second.log(), "put back in the queue") {
		t.Errorf("the restart did not report resetting the interrupted delivery:\n%s", second.log())
	}

	mu.Lock()
	got := append([]string(nil), arrivals...)
	bad := badSignatures
	mu.Unlock()
	if bad != 0 {
		t.Errorf("%d requests failed signature verification", bad)
	}
	index := map[string]int{}
	for i, id := range ids {
		index[id] = i
	}
	seen := map[string]bool{}
	highest := -1
	for _, id := range got {
		i, ok := index[id]
		if !ok {
			t.Fatalf("unknown delivery %q arrived", id)
		}
		// At-least-once allows a repeat of the current head, never a step back.
		if i < highest {
			t.Errorf("delivery %d arrived after delivery %d: out of order (%v)", i, highest, got)
		}
		highest = max(highest, i)
		seen[id] = true
	}
	if len(seen) != deliveries {
		t.Errorf("%d of %d deliveries arrived: %v", len(seen), deliveries, got)
	}
	for _, d := range second.deliveries(t, created.ID) {
		if d.Status != "succeeded" {
			t.Errorf("delivery %s left %s", d.ID, d.Status)
		}
	}

	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-second.done:
		if err != nil {
			t.Errorf("clean stop: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Error("scand did not stop on SIGTERM")
	}
	for name, d := range map[string]*webhookCrashDaemon{"first": first, "second": second} {
		if strings.Contains(d.log(), created.Secret) {
			t.Errorf("the webhook secret appears in the %s run's log", name)
		}
	}
	t.Logf("arrivals after restart: %d for %d deliveries", len(got), deliveries)
}
