package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// getRaw fetches a URL and returns the status and body.
func getRaw(t *testing.T, url string) (int, []byte) {
	t.Helper()
	return getRawKey(t, url, "")
}

// getRawKey is getRaw with a Bearer key ("" for none).
func getRawKey(t *testing.T, url, key string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// plantTree writes a tree in which the secrets scanner finds n secrets
// (bench/scale-tree.go, the generator the scale benchmark uses).
func plantTree(t *testing.T, gen string, n int, dir string) {
	t.Helper()
	if out, err := exec.Command(gen, "-n", fmt.Sprint(n), dir).CombinedOutput(); err != nil {
		t.Fatalf("scale-tree -n %d: %v\n%s", n, err, out)
	}
}

// TestBinaryBackupDuringAScanAndRestore takes `scand backup` and
// POST /admin/backup while a scan is writing 100k findings: both verify;
// `scand restore` puts the backup in place of a new database, and a
// daemon started on it serves every verdict, comment and completed scan
// the original had when the backup was taken, compared through the API.
func TestBinaryBackupDuringAScanAndRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100k findings")
	}
	work := t.TempDir()
	gen := filepath.Join(work, "scale-tree")
	if out, err := exec.Command("go", "build", "-o", gen, "./bench/scale-tree.go").CombinedOutput(); err != nil {
		t.Fatalf("build scale-tree: %v\n%s", err, out)
	}
	small, big := filepath.Join(work, "small"), filepath.Join(work, "big")
	plantTree(t, gen, 40, small)
	plantTree(t, gen, 100000, big)

	env := baseEnv(t)
	env["SVC_RATE_LIMIT_ENABLED"] = "false"
	env["SVC_BACKUP_DIR"] = filepath.Join(work, "api-backups")
	a := startScand(t, env)
	addrA := listenAddr(t, a.stderr.String, a.exited)
	waitReady(t, addrA)
	baseA := "http://" + addrA + "/api/v1"
	start := func(tree string) string {
		var sc struct{ ID string }
		if code := keyCall(t, "POST", baseA+"/scans", "", `{"target_path":"`+tree+`","scan_types":["code"]}`, &sc); code/100 != 2 {
			t.Fatalf("start scan of %s: %d", tree, code)
		}
		return sc.ID
	}
	status := func(base, id string) string {
		var sc struct{ Status string }
		keyCall(t, "GET", base+"/scans/"+id, "", "", &sc)
		return sc.Status
	}
	waitStatus := func(base, id string, within time.Duration, ok ...string) string {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			s := status(base, id)
			for _, want := range ok {
				if s == want {
					return s
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("scan %s is %q after %v, want one of %v", id, s, within, ok)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// What the backup must keep: a completed scan, verdicts and comments.
	done := start(small)
	waitStatus(baseA, done, 60*time.Second, "completed")
	var findings []struct{ Fingerprint string }
	keyCall(t, "GET", baseA+"/scans/"+done+"/findings?limit=5000", "", "", &findings)
	if len(findings) < 10 {
		t.Fatalf("small scan found %d findings, want 40", len(findings))
	}
	verdicts := []string{"false_positive", "accepted_risk", "wont_fix", "triaged", "fixed"}
	for i, v := range verdicts {
		fp := findings[i].Fingerprint
		if code := keyCall(t, "PATCH", baseA+"/findings/"+fp+"/state", "", `{"status":"`+v+`","note":"verdict `+v+`"}`, nil); code != 200 {
			t.Fatalf("verdict %s: %d", v, code)
		}
		if i < 3 {
			if code := keyCall(t, "POST", baseA+"/findings/"+fp+"/comments", "", `{"text":"comment on `+v+`"}`, nil); code != 201 {
				t.Fatalf("comment: %d", code)
			}
		}
	}

	// The big scan writes while the backups run.
	// The ingest writes the database only once its scanners are done
	// (it sorts in a scratch file first): wait until the database and
	// its WAL have grown by 4 MiB, so the backups run while rows go in.
	dbSize := func() float64 {
		m := scrapeMetrics(t, addrA, "scand_database_size_bytes", "scand_database_wal_size_bytes")
		var db, wal float64
		fmt.Sscan(m["scand_database_size_bytes"], &db)
		fmt.Sscan(m["scand_database_wal_size_bytes"], &wal)
		return db + wal
	}
	before := dbSize()
	writing := start(big)
	waitStatus(baseA, writing, 60*time.Second, "running")
	for deadline := time.Now().Add(120 * time.Second); dbSize() < before+4<<20; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) || status(baseA, writing) != "running" {
			t.Fatalf("the 100k scan (%s) never wrote 4 MiB to the database", status(baseA, writing))
		}
	}
	if s := status(baseA, writing); s != "running" {
		t.Fatalf("the 100k scan is %s before the backup started: the backup would not run during a scan", s)
	}
	backup := filepath.Join(work, "nightly.db")
	cli := exec.Command(buildScand(t), "backup", "-json", "-db", env["SVC_DB"], backup)
	cli.Env = []string{"PATH=" + os.Getenv("PATH")}
	var cliOut, cliErr bytes.Buffer
	cli.Stdout, cli.Stderr = &cliOut, &cliErr
	var apiBackup struct {
		Integrity string `json:"integrity"`
		Path      string `json:"path"`
	}
	apiDone := make(chan int, 1)
	go func() {
		apiDone <- keyCall(t, "POST", baseA+"/admin/backup", "", `{"name":"during-scan.db"}`, &apiBackup)
	}()
	if err := cli.Run(); err != nil {
		t.Fatalf("scand backup during a scan: %v\n%s%s", err, cliOut.String(), cliErr.String())
	}
	if code := <-apiDone; code != 201 || apiBackup.Integrity != "ok" {
		t.Fatalf("POST /admin/backup during a scan: %d %+v", code, apiBackup)
	}
	stillWriting := status(baseA, writing)
	var sum struct {
		Integrity     string `json:"integrity"`
		SchemaVersion int    `json:"schema_version"`
		Tables        []struct {
			Name string `json:"name"`
			Rows int64  `json:"rows"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(cliOut.Bytes(), &sum); err != nil || sum.Integrity != "ok" || sum.SchemaVersion == 0 {
		t.Fatalf("backup summary %s (%v)", cliOut.String(), err)
	}
	rows := map[string]int64{}
	for _, tb := range sum.Tables {
		rows[tb.Name] = tb.Rows
	}
	t.Logf("backup taken while the 100k scan was writing (its status after the backup: %s): %d findings rows, %d scans", stillWriting, rows["findings"], rows["scans"])
	// A snapshot: before the scan's rows, part of them (its transactions
	// are chunks), or all of them, never a row that was not committed.
	if n := rows["findings"]; n < int64(len(findings)) || n > int64(len(findings))+100000 {
		t.Fatalf("backup holds %d findings rows, want between %d and %d", n, len(findings), len(findings)+100000)
	}
	if rows["triage_states"] != int64(len(verdicts)) || rows["finding_comments"] != 3 {
		t.Fatalf("backup holds %d verdicts and %d comments, want %d and 3", rows["triage_states"], rows["finding_comments"], len(verdicts))
	}

	// What the original serves for everything taken before the backup.
	_, wantFindings := getRaw(t, baseA+"/scans/"+done+"/findings?limit=5000")
	_, wantScan := getRaw(t, baseA+"/scans/"+done)
	wantComments := map[string][]byte{}
	wantHistory := map[string][]byte{}
	for _, f := range findings {
		_, wantComments[f.Fingerprint] = getRaw(t, baseA+"/findings/"+f.Fingerprint+"/comments")
		_, wantHistory[f.Fingerprint] = getRaw(t, baseA+"/findings/"+f.Fingerprint+"/history")
	}

	// Restore refuses while the daemon holds the database, and touches
	// nothing.
	refused := exec.Command(buildScand(t), "restore", "-db", env["SVC_DB"], backup)
	refused.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, err := refused.CombinedOutput()
	if code := refused.ProcessState.ExitCode(); err == nil || code != 2 || !strings.Contains(string(out), fmt.Sprintf("pid %d", a.cmd.Process.Pid)) {
		t.Fatalf("restore over a running daemon's database: exit %d, %s", code, out)
	}
	if aside, _ := filepath.Glob(env["SVC_DB"] + ".before-restore-*"); len(aside) != 0 {
		t.Fatalf("a refused restore moved the database aside: %v", aside)
	}

	restored := filepath.Join(work, "restored", "scand.db")
	os.MkdirAll(filepath.Dir(restored), 0o700)
	// A database to replace, so restore has something to keep aside.
	if out, err := exec.Command(buildScand(t), "backup", "-db", env["SVC_DB"], restored).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	res := exec.Command(buildScand(t), "restore", "-db", restored, backup)
	res.Env = []string{"PATH=" + os.Getenv("PATH")}
	if out, err := res.CombinedOutput(); err != nil || !strings.Contains(string(out), "integrity ok") || !strings.Contains(string(out), "before-restore-") {
		t.Fatalf("scand restore: %v\n%s", err, out)
	}
	if aside, _ := filepath.Glob(restored + ".before-restore-*"); len(aside) != 1 {
		t.Fatalf("replaced database kept aside: %v", aside)
	}
	if ok := integrityCheck(t, restored); ok != "ok" {
		t.Fatalf("restored database: integrity_check %q", ok)
	}

	envB := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": restored}
	b := startScand(t, envB)
	addrB := listenAddr(t, b.stderr.String, b.exited)
	waitReady(t, addrB)
	baseB := "http://" + addrB + "/api/v1"
	if code, got := getRaw(t, baseB+"/scans/"+done+"/findings?limit=5000"); code != 200 || !jsonEqual(got, wantFindings) {
		t.Fatalf("restored findings (with verdicts) of the completed scan differ:\n%s\nwant\n%s", got, wantFindings)
	}
	if _, got := getRaw(t, baseB+"/scans/"+done); !jsonEqual(got, wantScan) {
		t.Fatalf("restored scan differs:\n%s\nwant\n%s", got, wantScan)
	}
	for fp, want := range wantComments {
		if _, got := getRaw(t, baseB+"/findings/"+fp+"/comments"); !jsonEqual(got, want) {
			t.Fatalf("comments of %s differ:\n%s\nwant\n%s", fp, got, want)
		}
		if _, got := getRaw(t, baseB+"/findings/"+fp+"/history"); !jsonEqual(got, wantHistory[fp]) {
			t.Fatalf("verdict history of %s differs:\n%s\nwant\n%s", fp, got, wantHistory[fp])
		}
	}
	// The scan the snapshot caught mid-way is not passed off as complete.
	if s := status(baseB, writing); s == "completed" {
		t.Fatalf("the scan that was writing during the backup is %s on the restored database", s)
	}
	for _, p := range []*scandProcess{a, b} {
		p.cmd.Process.Signal(syscall.SIGTERM)
		p.wait(t, 60*time.Second)
	}
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// integrityCheck runs PRAGMA integrity_check on a closed database file.
func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}
