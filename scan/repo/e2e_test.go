package repo_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"scand/scan"
	"scand/scan/internal/scantest"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/scan/repo"
	"scand/scan/workdir"
)

const leakedToken = "ghp_R8kQ2vX9mT4wL7nB3pZ6yC1dF5hJ0sG2aE4u"

// A repository on a loopback https server that wants a password is
// cloned, scanned (with its history when asked) and removed, and the
// password shows up nowhere: not in the database, the logs or the events.
func TestScanRepositoryEndToEnd(t *testing.T) {
	src := scantest.NewGitRepo(t)
	src.Write("deploy/token.txt", "GITHUB_TOKEN="+leakedToken+"\n")
	src.Commit()
	src.Remove("deploy/token.txt")
	src.Write("main.go", "package main\n")
	head := src.Commit()
	srv := scantest.NewGitServer(t, gitUser, gitPassword)
	url := srv.Serve(t, src, "shop")
	creds := srv.CredentialsFile(t, gitUser, gitPassword)
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer work.Close()
	cfg := scan.Config{Runner: proc.NewRunner(2 * time.Minute), Getenv: func(string) string { return "" }}
	d := scantest.NewDaemon(t, cfg, func(cfg scan.Config) ([]scan.Scanner, scan.TargetPreparer) {
		return registry.All(cfg), registry.Preparers{Repo: repo.New(repo.Options{Config: cfg, Work: work, CredentialsFile: creds,
			CAFile: srv.CAFile, RefuseAddress: refuseLinkLocal, Limits: repo.Limits{Timeout: time.Minute}})}
	})
	for _, history := range []bool{false, true} {
		spec := &scan.TargetSpec{Repo: &scan.RepoSpec{URL: url, History: history}}
		sc := d.Scan(t, url, []string{scan.TypeCode, scan.TypeDependency}, spec)
		if sc.Status != "completed" {
			t.Fatalf("history=%v: scan %s: %s", history, sc.Status, sc.Error)
		}
		targets, err := d.Store.ScanTargetsByID(context.Background(), []string{sc.ID})
		if err != nil {
			t.Fatal(err)
		}
		var res scan.Resolved
		json.Unmarshal([]byte(targets[sc.ID].Resolved), &res)
		if res.Repo == nil || res.Repo.Commit != head {
			t.Errorf("history=%v: resolved %s, want commit %s", history, targets[sc.ID].Resolved, head)
		}
		found := false
		for _, f := range d.Findings(t, sc.ID) {
			if f.Scanner == "secrets" && f.FilePath == "deploy/token.txt" {
				found = true
			}
		}
		if found != history {
			t.Errorf("history=%v: the token only in history was found: %v", history, found)
		}
		// The clone is gone once the scan has ended.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			entries, _ := os.ReadDir(work.Path())
			if len(entries) <= 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("clone left behind: %v", entries)
			}
		}
	}
	if srv.Refused.Load() == 0 {
		t.Fatal("the server never asked for the password: the test proves nothing")
	}
	d.Orch.Stop(30 * time.Second)
	d.Store.Close()
	var db []byte
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, _ := os.ReadFile(d.DBPath + suffix)
		db = append(db, b...)
	}
	if len(db) == 0 {
		t.Fatal("database not read")
	}
	for where, text := range map[string]string{"database": string(db), "logs": d.Logs(), "events": strings.Join(d.Events(), "\n")} {
		if strings.Contains(text, gitPassword) || strings.Contains(text, gitUser+":") {
			t.Errorf("the credential is in the %s", where)
		}
	}
	if !strings.Contains(d.Logs(), "repository cloned") || !strings.Contains(string(db), url) {
		t.Error("logs or database do not mention the clone at all: the check above proves nothing")
	}
}
