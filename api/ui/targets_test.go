package ui_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"scand/finding"
)

var (
	targetLink   = regexp.MustCompile(`<a href="(/ui/targets/[0-9]+)" title="/srv/tgt">`)
	scanRowLink  = regexp.MustCompile(`<td><a href="/ui/scans/([0-9a-f-]+)"><code>`)
	olderScans   = regexp.MustCompile(`<a href="([^"]*)" rel="next">Older scans`)
	ariaInvalid  = regexp.MustCompile(`<textarea id="t-labels"[^>]*aria-invalid="true"`)
	targetOnScan = regexp.MustCompile(`<dt>Target page</dt><dd><a href="(/ui/targets/[0-9]+)">`)
)

// TestTargetPageThroughTheConsole: /ui/targets links each target's page,
// which shows what the target is, its open findings by severity with links
// into /ui/findings, its scans keyset-paged newest first, and, for write
// keys only, a form that names and labels it through PATCH /targets/{id}'s
// own validation.
func TestTargetPageThroughTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{AuthRequired: true})
	_, writeKey := e.issueKey("alice", "read", "write")
	_, readKey := e.issueKey("reader", "read")
	var scanIDs []string
	for i := 0; i < 30; i++ {
		fs := []finding.Finding{mkFinding("low", finding.Low, "secrets", "r1", "a.go", 1)}
		if i == 29 {
			fs = append(fs, mkFinding("crit", finding.Critical, "secrets", "r2", "b.go", 2), mkFinding("high", finding.High, "secrets", "r3", "c.go", 3))
		}
		scanIDs = append(scanIDs, e.seedScan("/srv/tgt", fs).ID)
	}
	other := e.seedScan("/srv/other", nil)

	c := e.client(t)
	c.login(writeKey)
	list := c.get("/ui/targets")
	expect(t, list, http.StatusOK, "targets")
	m := targetLink.FindStringSubmatch(list.body)
	if m == nil {
		t.Fatalf("the targets list does not link the target's page:\n%s", list.body)
	}
	tURL := m[1]
	page := c.get(tURL)
	expect(t, page, http.StatusOK, "target page")
	checkPageSafe(t, tURL, page.body)
	for _, want := range []string{"<dt>Kind</dt><dd>dir</dd>", `<span class="path">/srv/tgt</span>`,
		`<a href="/ui/findings?target=` + strings.TrimPrefix(tURL, "/ui/targets/") + `&amp;severity=critical">1</a>`,
		`&amp;severity=high">1</a>`, `&amp;severity=low">1</a>`, `&amp;severity=medium">0</a>`, `id="target-findings"`} {
		if !strings.Contains(page.body, want) {
			t.Fatalf("the target page lacks %q", want)
		}
	}
	// Two pages of scans, newest first, every scan once, none of another
	// target's.
	var seen []string
	next := tURL
	for pages := 0; next != ""; pages++ {
		if pages > 2 {
			t.Fatal("the scans do not end after two pages")
		}
		p := c.get(next)
		expect(t, p, http.StatusOK, next)
		for _, m := range scanRowLink.FindAllStringSubmatch(p.body, -1) {
			seen = append(seen, m[1])
		}
		next = ""
		if m := olderScans.FindStringSubmatch(p.body); m != nil {
			next = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(seen) != len(scanIDs) {
		t.Fatalf("the pages list %d scans, want %d", len(seen), len(scanIDs))
	}
	for i, id := range seen {
		if want := scanIDs[len(scanIDs)-1-i]; id != want {
			t.Fatalf("scan %d is %s, want %s (newest first, each once)", i, id, want)
		}
		if id == other.ID {
			t.Fatal("another target's scan is listed")
		}
	}
	expect(t, c.get(tURL+"?before=x"), http.StatusUnprocessableEntity, "a cut cursor")
	expect(t, c.get("/ui/targets/999999"), http.StatusNotFound, "an unknown target")
	expect(t, c.get("/ui/targets/abc"), http.StatusNotFound, "a non-numeric id")

	// The scan page links back to its target.
	sp := c.get("/ui/scans/" + scanIDs[3])
	if m := targetOnScan.FindStringSubmatch(sp.body); m == nil || m[1] != tURL {
		t.Fatalf("the scan page links the target as %v, want %s", m, tURL)
	}

	// Labels and name through the form, then through the API's eyes.
	c.get(tURL)
	p := c.post(tURL, url.Values{"name": {"Payments API"}, "labels": {"team=payments\r\n\r\nenv = prod\r\n"}})
	expect(t, p, http.StatusSeeOther, "save labels")
	page = c.get(p.loc)
	if !strings.Contains(page.body, "Target saved.") || !strings.Contains(page.body, "<h1>Target Payments API</h1>") ||
		!strings.Contains(page.body, `<span class="pill">env=prod</span>`) || !strings.Contains(page.body, `<span class="pill">team=payments</span>`) {
		t.Fatalf("after saving: %s", page.body)
	}
	code, body := e.apiDo("GET", "/api/v1/targets/"+strings.TrimPrefix(tURL, "/ui/targets/"), readKey, "")
	var got struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &got) != nil || got.Name != "Payments API" || len(got.Labels) != 2 || got.Labels["env"] != "prod" {
		t.Fatalf("the API sees %d %s", code, body)
	}
	// The API's rules refuse a bad key; a line without "=" is refused by
	// the form. Either way the page comes back filled in and nothing is
	// saved.
	for _, bad := range []string{"bad key!=x", "team=payments\nnovalue"} {
		c.get(tURL)
		p := c.post(tURL, url.Values{"name": {"Renamed"}, "labels": {bad}})
		expect(t, p, http.StatusUnprocessableEntity, "bad labels "+bad)
		if !ariaInvalid.MatchString(p.body) || !strings.Contains(p.body, "The target was not saved") || !strings.Contains(p.body, `value="Renamed"`) {
			t.Fatalf("the refused form for %q: %s", bad, p.body)
		}
	}
	if _, body := e.apiDo("GET", "/api/v1/targets/"+strings.TrimPrefix(tURL, "/ui/targets/"), readKey, ""); !strings.Contains(body, `"Payments API"`) {
		t.Fatalf("a refused form changed the target: %s", body)
	}

	// A read key sees the page without the form and cannot post it.
	r := e.client(t)
	r.login(readKey)
	page = r.get(tURL)
	expect(t, page, http.StatusOK, "target page for a read key")
	if strings.Contains(page.body, `name="labels"`) {
		t.Fatal("a read key is offered the label form")
	}
	expect(t, r.post(tURL, url.Values{"labels": {"team=x"}}), http.StatusForbidden, "labels by a read key")
}
