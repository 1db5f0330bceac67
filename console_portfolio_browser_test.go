package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConsolePortfolioWalkInChromium (issue 25's third bar) walks the
// portfolio pages in a real browser under the console's strict CSP:
// targets → a target's page (its labels set through the form) → that
// target's findings, paged by cursor and filtered → the vulnerability of
// a finding → the component → and back through the browser's history,
// each page as it was. No CSP violation, no script error, no request that
// leaves the daemon.
func TestConsolePortfolioWalkInChromium(t *testing.T) {
	chromium := findChromiumBinary()
	if chromium == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium not installed; apt-get install chromium to run this test")
	}
	shots := os.Getenv("SCAND_UI_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	root := t.TempDir()
	tools := t.TempDir()
	osv := filepath.Join(tools, "osv-scanner")
	if err := os.WriteFile(osv, []byte(fakeOSVScanner), 0o755); err != nil {
		t.Fatal(err)
	}
	osvDB := filepath.Join(tools, "osvdb", "osv-scalibr", "npm")
	if err := os.MkdirAll(osvDB, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(osvDB, "all.zip"), []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two targets: "shop" holds 64 leaked tokens and a vulnerable lodash,
	// "api" a few tokens and a fixed lodash.
	rng := rand.New(rand.NewPCG(25, 3))
	token := func() string {
		const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		b := make([]byte, 36)
		for i := range b {
			b[i] = alnum[rng.IntN(len(alnum))]
		}
		return "ghp_" + string(b)
	}
	for dir, n := range map[string]int{"shop": 64, "api": 3} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "TOKEN_%d=%s\n", i, token())
		}
		version := map[string]string{"shop": "4.17.20", "api": "4.17.21"}[dir]
		for name, body := range map[string]string{"deploy.env": b.String(), "package-lock.json": lodashLock(version)} {
			if err := os.WriteFile(filepath.Join(root, dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := map[string]string{"SVC_ADDR": "127.0.0.1:0", "SVC_DB": filepath.Join(t.TempDir(), "scand.db"), "SVC_SCAN_ROOTS": root,
		"SVC_SECRETS_HISTORY": "0", "HOME": t.TempDir(), "SVC_OSV_SCANNER_PATH": osv, "SVC_OSV_DB": filepath.Join(tools, "osvdb")}
	d := startScheduleDaemon(t, env)
	for _, dir := range []string{"shop", "api"} {
		var sc struct {
			ID string `json:"id"`
		}
		if code := d.call(t, "POST", "/api/v1/scans", fmt.Sprintf(`{"target_path":%q,"scan_types":["code","dependency"]}`, filepath.Join(root, dir)), &sc); code != 200 {
			t.Fatalf("start scan of %s: %d", dir, code)
		}
		deadline := time.Now().Add(90 * time.Second)
		for {
			var got struct {
				Status string `json:"status"`
			}
			d.call(t, "GET", "/api/v1/scans/"+sc.ID, "", &got)
			if got.Status == "completed" {
				break
			}
			if got.Status == "failed" || time.Now().After(deadline) {
				t.Fatalf("scan of %s: %s\n%s", dir, got.Status, d.p.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	b := startBrowser(t, chromium, d.base)
	b.open()
	count := func(sel string) int {
		var n int
		b.evalInto(`document.querySelectorAll(`+quoteJS(sel)+`).length`, &n)
		return n
	}
	h1 := func() string { return b.text(`document.querySelector('h1').textContent`) }
	click := func(sel string) {
		t.Helper()
		if count(sel) == 0 {
			t.Fatalf("%s: no %s on the page\n%s", b.path(), sel, b.text(`document.body.innerText`))
		}
		b.act(`document.querySelector(` + quoteJS(sel) + `).click()`)
	}
	rowTitles := func() []string {
		var out []string
		b.evalInto(`Array.from(document.querySelectorAll('tbody tr td.finding a:first-child')).map(function (a) { return a.getAttribute('href'); })`, &out)
		return out
	}

	// 1. Targets, then the shop's page.
	b.navigate("/ui/targets")
	if h1() != "Targets" || count(`a[href^="/ui/targets/"]`) != 2 {
		t.Fatalf("targets page: %q with %d target links", h1(), count(`a[href^="/ui/targets/"]`))
	}
	b.screenshot(shots, "p01-targets")
	click(`a[href^="/ui/targets/"][title$="/shop"]`)
	targetPath := b.path()
	if !strings.HasPrefix(targetPath, "/ui/targets/") || !strings.HasSuffix(h1(), "/shop") {
		t.Fatalf("target page %s: %q", targetPath, h1())
	}
	// Label it through the form: a CSRF-protected POST under the CSP.
	b.act(`document.getElementById('t-labels').value = 'team=payments\nenv=prod'; document.getElementById('t-name').value = 'Shop'; document.querySelector('#edit form').requestSubmit();`)
	if h1() != "Target Shop" || !strings.Contains(b.text(`document.body.innerText`), "team=payments") {
		t.Fatalf("after saving the labels: %s %q", b.path(), h1())
	}
	b.screenshot(shots, "p02-target")

	// 2. Its findings: 64 tokens and one advisory, 50 a page.
	click(`#target-findings`)
	firstPage := b.path()
	if !strings.HasPrefix(firstPage, "/ui/findings?target=") || len(rowTitles()) != 50 {
		t.Fatalf("findings of the target %s: %d rows", firstPage, len(rowTitles()))
	}
	page1 := rowTitles()
	click(`a[rel="next"]`)
	page2Path := b.path()
	page2 := rowTitles()
	if !strings.Contains(page2Path, "cursor=") || len(page2) != 15 {
		t.Fatalf("second page %s: %d rows", page2Path, len(page2))
	}
	for _, h := range page2 {
		for _, g := range page1 {
			if h == g {
				t.Fatalf("%s is on both pages", h)
			}
		}
	}
	// Filter by severity through the form: the target stays selected.
	b.act(`document.getElementById('f-sev').value = 'high'; document.querySelector('form.filters').requestSubmit();`)
	filtered := b.path()
	q, _ := url.ParseQuery(strings.SplitN(filtered, "?", 2)[1])
	if q.Get("severity") != "high" || q.Get("target") == "" || count(`a[href^="/ui/vulnerabilities/"]`) != 1 {
		t.Fatalf("filtered %s: %d advisory links", filtered, count(`a[href^="/ui/vulnerabilities/"]`))
	}
	b.screenshot(shots, "p03-findings")

	// 3. The vulnerability, then its component.
	click(`a[href^="/ui/vulnerabilities/"]`)
	vulnPath := b.path()
	if h1() != "GHSA-35jh-r3h4-6jhm" {
		t.Fatalf("vulnerability page %s: %q", vulnPath, h1())
	}
	click(`a[href^="/ui/components?name=lodash"]`)
	if !strings.HasPrefix(b.path(), "/ui/components") || !strings.Contains(b.text(`document.body.innerText`), "pkg:npm/lodash@4.17.20") {
		t.Fatalf("component page %s:\n%s", b.path(), b.text(`document.body.innerText`))
	}
	b.screenshot(shots, "p04-component")

	// 4. Back through history: each page as it was.
	// A page may come back from the back-forward cache without a load
	// event, so going back waits for the address and a finished document.
	back := func(want string) {
		t.Helper()
		b.eval(`history.back()`)
		deadline := time.Now().Add(15 * time.Second)
		for {
			if b.path() == want && b.text(`document.readyState`) == "complete" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("history back landed on %s, want %s", b.path(), want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		b.checkViolationsNow()
	}
	back(vulnPath)
	back(filtered)
	if count(`a[href^="/ui/vulnerabilities/"]`) != 1 {
		t.Fatal("the filtered list changed on the way back")
	}
	back(page2Path)
	if got := rowTitles(); strings.Join(got, ",") != strings.Join(page2, ",") {
		t.Fatal("the second page shows other rows on the way back")
	}
	back(firstPage)
	back(targetPath + "?done=target-saved")
	if h1() != "Target Shop" {
		t.Fatalf("back on the target page: %q", h1())
	}
	// The target's scan, its findings sorted by file and paged by cursor
	// in that order, and back to the target through the scan page's link.
	click(`#scans a[href^="/ui/scans/"]`)
	scanPath := b.path()
	b.act(`document.getElementById('f-sort').value = 'file'; document.getElementById('f-limit').value = '25'; document.querySelector('form.filters').requestSubmit();`)
	files := func() []string {
		var out []string
		b.evalInto(`Array.from(document.querySelectorAll('table.findings tbody .path')).map(function (e) { return e.textContent; })`, &out)
		return out
	}
	sorted1 := files()
	if !strings.Contains(b.path(), "sort=file") || len(sorted1) != 25 {
		t.Fatalf("sorted scan page %s: %d rows", b.path(), len(sorted1))
	}
	click(`a[rel="next"]`)
	sorted2 := files()
	if !strings.Contains(b.path(), "after=") || !strings.Contains(b.path(), "sort=file") || len(sorted2) != 25 {
		t.Fatalf("second sorted page %s: %d rows", b.path(), len(sorted2))
	}
	// Rows read "file:line" (or a file alone): file first, then the line
	// as a number.
	all := append(append([]string{}, sorted1...), sorted2...)
	key := func(loc string) (string, int) {
		file, line, _ := strings.Cut(loc, ":")
		n, _ := strconv.Atoi(line)
		return file, n
	}
	for i := 1; i < len(all); i++ {
		fa, la := key(all[i-1])
		fb, lb := key(all[i])
		if fa > fb || fa == fb && la > lb {
			t.Fatalf("not sorted by file and line: %q before %q", all[i-1], all[i])
		}
	}
	b.navigate(scanPath)
	click(`a[href="` + targetPath + `"]`)
	if h1() != "Target Shop" {
		t.Fatalf("the scan page's target link leads to %q", h1())
	}

	// The label filter of the targets list finds it, the other not.
	b.navigate("/ui/targets?label=team%3Dpayments")
	if count(`a[href^="/ui/targets/"]`) != 1 || !strings.Contains(b.text(`document.body.innerText`), "Shop") {
		t.Fatalf("label filter: %d targets", count(`a[href^="/ui/targets/"]`))
	}

	// One ticked row, through the checkbox that lives outside its form.
	b.navigate("/ui/findings?severity=high")
	b.act(`document.querySelector('input[name=fp]').checked = true; document.getElementById('bulk-status').value = 'triaged'; document.querySelector('button[name=mode][value=selected]').click();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "on 1 finding?") {
		t.Fatalf("the ticked row's confirmation:\n%s", body)
	}
	b.act(`document.querySelector('input[name=confirm]').form.requestSubmit();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "Verdict set on 1 finding.") {
		t.Fatalf("no result for the ticked row:\n%s", body)
	}
	// One verdict across both targets: every leaked token (64 + 3) and the
	// advisory, 68 rows, in one confirmation. A verdict belongs to a
	// fingerprint, and the first three tokens of both targets are at the
	// same place (deploy.env, lines 1-3), so the confirmation names 65
	// findings and all 68 rows get the verdict.
	tokens := count(`input[name=fp]`)
	if all := b.text(`document.querySelector('button[name=mode][value=all]').textContent`); !strings.Contains(all, "Select all 68 matching") || tokens != 50 {
		t.Fatalf("findings across targets: select-all says %q, %d row checkboxes", all, tokens)
	}
	b.screenshot(shots, "p05-bulk")
	b.act(`document.getElementById('bulk-status').value = 'false_positive'; document.querySelector('button[name=mode][value=all]').click();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "on 65 findings?") {
		t.Fatalf("the confirmation does not name the count:\n%s", body)
	}
	b.act(`document.querySelector('input[name=confirm]').form.requestSubmit();`)
	if body := b.text(`document.body.innerText`); !strings.Contains(body, "Verdict set on 65 findings.") {
		t.Fatalf("no result after the confirmation:\n%s", body)
	}
	var marked, open struct {
		Total int `json:"total"`
	}
	d.call(t, "GET", "/api/v1/findings?severity=high&verdict=false_positive&limit=1", "", &marked)
	d.call(t, "GET", "/api/v1/findings?severity=high&limit=1", "", &open)
	if marked.Total != 68 || open.Total != 0 {
		t.Fatalf("after the verdict: %d rows false positive (want 68), %d rows still listed (want 0)", marked.Total, open.Total)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if r == "about:blank" {
			continue
		}
		if err != nil || u.Scheme+"://"+u.Host != d.base {
			t.Errorf("a page requested %q, which is not the daemon (%s)", r, d.base)
		}
	}
	for _, pb := range b.problems {
		t.Errorf("browser reported: %s", pb)
	}
}

// quoteJS is s as a JavaScript string literal.
func quoteJS(s string) string { return fmt.Sprintf("%q", s) }
