package reevalapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/api/httpio"
	"scand/api/review"
	"scand/auth"
	"scand/scan"
	"scand/scan/reevaluate"
	"scand/sse"
	"scand/store"
)

func statusOf(err error) int {
	var he *httpio.Error
	if errors.As(err, &he) {
		return he.Status
	}
	if err != nil {
		return 500
	}
	return 0
}

// TestRoutes: a run over no target completes; an unknown or invalid
// target is a 422 naming it; cancelling an ended run is a 409, an unknown
// one a 404; without an engine the start is a 503.
func TestRoutes(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "scand.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bus := sse.NewBus(nil)
	orch := scan.NewOrchestrator(scan.OrchestratorOptions{Store: st, Bus: bus})
	e := reevaluate.New(reevaluate.Options{Store: st, Orchestrator: orch, Bus: bus, PollInterval: -1})
	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer e.Stop(5 * time.Second)
	log := slog.New(slog.DiscardHandler)
	h := &Handlers{Store: st, Engine: e, Log: log, Audit: &review.Recorder{Store: st, Log: log},
		Principal: func(context.Context) auth.Principal { return auth.Principal{ID: "k1", Name: "ci"} }}
	do := func(fn func(http.ResponseWriter, *http.Request) error, method, path, id, body string) (*httptest.ResponseRecorder, error) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.SetPathValue("id", id)
		w := httptest.NewRecorder()
		return w, fn(w, r)
	}
	w, err := do(h.handleStart, "POST", "/reevaluations", "", "")
	if err != nil || w.Code != http.StatusAccepted {
		t.Fatalf("start: %v %d", err, w.Code)
	}
	var v View
	json.Unmarshal(w.Body.Bytes(), &v)
	if v.Trigger != "manual" || v.CreatedBy != "ci" || v.ID == "" {
		t.Fatalf("view: %+v", v)
	}
	deadline := time.Now().Add(10 * time.Second)
	for v.Status != "completed" {
		if time.Now().After(deadline) {
			t.Fatalf("run did not complete: %+v", v)
		}
		time.Sleep(10 * time.Millisecond)
		w, _ = do(h.handleGet, "GET", "/reevaluations/"+v.ID, v.ID, "")
		json.Unmarshal(w.Body.Bytes(), &v)
	}
	for body, want := range map[string]string{`{"targets":[99]}`: "no such target: 99", `{"targets":[0]}`: "positive", `{"targets":"all"}`: "valid", `[1]`: "object"} {
		_, err := do(h.handleStart, "POST", "/reevaluations", "", body)
		if statusOf(err) != 422 || !strings.Contains(strings.ToLower(errString(err)), strings.ToLower(want)) {
			t.Errorf("%s: %v, want 422 %q", body, err, want)
		}
	}
	if _, err := do(h.handleCancel, "POST", "/", v.ID, ""); statusOf(err) != 409 {
		t.Fatalf("cancel an ended run: %v", err)
	}
	if _, err := do(h.handleCancel, "POST", "/", "nope", ""); statusOf(err) != 404 {
		t.Fatalf("cancel an unknown run: %v", err)
	}
	if _, err := do(h.handleGet, "GET", "/", "nope", ""); statusOf(err) != 404 {
		t.Fatalf("get an unknown run: %v", err)
	}
	w, err = do(h.handleList, "GET", "/reevaluations?limit=5", "", "")
	var list []View
	if err != nil || json.Unmarshal(w.Body.Bytes(), &list) != nil || len(list) != 1 || list[0].ID != v.ID {
		t.Fatalf("list: %v %s", err, w.Body.String())
	}
	h.Engine = nil
	if _, err := do(h.handleStart, "POST", "/reevaluations", "", ""); statusOf(err) != 503 {
		t.Fatalf("no engine: %v", err)
	}
}

func errString(err error) string {
	var he *httpio.Error
	if errors.As(err, &he) {
		b, _ := json.Marshal(he.Fields)
		return he.Detail + string(b)
	}
	if err == nil {
		return ""
	}
	return err.Error()
}
