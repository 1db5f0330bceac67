package ui_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"scand/finding"
)

// TestFindingsSortInTheConsole: the scan page lists findings in each order
// the API has, the same rows as GET /scans/{id}/findings?sort=, pages
// forward and back by cursor, jumps to the last page and to a page number
// in that order, keeps the filters, and refuses a cursor of another order
// with a message instead of showing page 1.
func TestFindingsSortInTheConsole(t *testing.T) {
	e := newEnv(t, envOptions{})
	var fs []finding.Finding
	sevs := []finding.Severity{finding.Critical, finding.High, finding.Medium, finding.Low}
	for i := 0; i < 83; i++ {
		fs = append(fs, mkFinding("s"+strconv.Itoa(i), sevs[i%4], []string{"secrets", "dockerfile", "gosec"}[i%3], "rule-"+strconv.Itoa((i*5)%9),
			fmt.Sprintf("src/f%02d.go", (i*7)%13), i%5+1))
	}
	sc := e.seedScan("/srv/sorted", fs)
	c := e.client(t)
	rowLink := regexp.MustCompile(`href="/ui/findings/([0-9a-f]{64})\?scan=`)
	link := func(body, rel string) string {
		m := regexp.MustCompile(`href="([^"]*)"(?: rel="` + rel + `")?>` + map[string]string{"next": "Next", "prev": "← Previous", "last": "Last"}[rel]).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return strings.ReplaceAll(m[1], "&amp;", "&")
	}
	rows := func(body string) []string {
		var out []string
		for _, m := range rowLink.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	apiOrder := func(query string) []string {
		code, body := e.apiDo("GET", "/api/v1/scans/"+sc.ID+"/findings?limit=1000&"+query, "", "")
		var got []struct {
			Fingerprint string `json:"fingerprint"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &got) != nil {
			t.Fatalf("API %s: %d %s", query, code, body)
		}
		var out []string
		for _, f := range got {
			out = append(out, f.Fingerprint)
		}
		return out
	}
	for _, tc := range []struct{ query, api string }{
		{"sort=file", "sort=file"}, {"sort=rule", "sort=rule"}, {"sort=scanner", "sort=scanner"}, {"sort=first_seen", "sort=first_seen"},
		{"sort=rule&severity=high&severity=low", "sort=rule&severity=high,low"}, {"sort=severity", ""},
	} {
		want := apiOrder(tc.api)
		base := "/ui/scans/" + sc.ID + "?limit=25&" + tc.query
		first := c.get(base)
		expect(t, first, http.StatusOK, tc.query)
		checkPageSafe(t, base, first.body)
		// Forward by cursor.
		var got []string
		var pages []string
		for u, i := base, 0; u != ""; i++ {
			if i > 10 {
				t.Fatalf("%s: paging does not end", tc.query)
			}
			p := c.get(u)
			expect(t, p, http.StatusOK, u)
			pages = append(pages, p.body)
			got = append(got, rows(p.body)...)
			u = link(p.body, "next")
			if u != "" && !strings.Contains(u, "sort=") && tc.query != "sort=severity" {
				t.Fatalf("%s: the next link %s drops the order", tc.query, u)
			}
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: the console's order (%d rows) differs from the API's (%d rows)", tc.query, len(got), len(want))
		}
		// Back from the last page by cursor gives the same rows.
		lastURL := link(first.body, "last")
		if len(want) > 25 && lastURL == "" {
			t.Fatalf("%s: no link to the last page", tc.query)
		}
		if lastURL != "" {
			p := c.get(lastURL)
			tail := len(want) % 25
			if tail == 0 {
				tail = 25
			}
			if got := rows(p.body); strings.Join(got, ",") != strings.Join(want[len(want)-tail:], ",") || link(p.body, "next") != "" {
				t.Fatalf("%s: the last page shows %d rows (next %q), want the last %d", tc.query, len(got), link(p.body, "next"), tail)
			}
		}
		var back []string
		for u, i := lastURL, 0; u != ""; i++ {
			if i > 10 {
				t.Fatalf("%s: paging back does not end", tc.query)
			}
			p := c.get(u)
			expect(t, p, http.StatusOK, u)
			back = append(rows(p.body), back...)
			u = link(p.body, "prev")
		}
		if lastURL != "" && strings.Join(back, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: paging back from the last page gives %d rows in another order", tc.query, len(back))
		}
		// A page number in this order.
		p := c.get(base + "&page=2")
		expect(t, p, http.StatusOK, "page 2")
		if len(want) > 25 && strings.Join(rows(p.body), ",") != strings.Join(want[25:min(50, len(want))], ",") {
			t.Fatalf("%s: page 2 is not rows 26-50", tc.query)
		}
	}
	// A cursor of one order refused by another, and a cut one.
	p := c.get("/ui/scans/" + sc.ID + "?limit=25&sort=file")
	next := link(p.body, "next")
	for _, bad := range []string{strings.Replace(next, "sort=file", "sort=rule", 1), strings.Replace(next, "sort=file", "", 1),
		regexp.MustCompile(`after=[^&#]{6}`).ReplaceAllString(next, "after="), "/ui/scans/" + sc.ID + "?sort=file&after=12"} {
		p := c.get(bad)
		expect(t, p, http.StatusUnprocessableEntity, bad)
		if !strings.Contains(p.body, "This page link is not valid") || !strings.Contains(p.body, "first page") {
			t.Fatalf("%s: %s", bad, p.body)
		}
	}
}
