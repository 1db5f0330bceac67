package ui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"scand/finding"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFS embed.FS

// templates holds one parsed set per page: the layout and partials plus
// that page's "content", so pages cannot clash over block names.
type templates struct {
	pages map[string]*template.Template
}

func loadTemplates() (*templates, error) {
	names, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		return nil, err
	}
	t := &templates{pages: map[string]*template.Template{}}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" || base == "partials.html" {
			continue
		}
		page := strings.TrimSuffix(base, ".html")
		set, err := template.New(page).Funcs(templateFuncs).ParseFS(templateFiles, "templates/layout.html", "templates/partials.html", n)
		if err != nil {
			return nil, fmt.Errorf("ui: parse %s: %w", n, err)
		}
		t.pages[page] = set
	}
	return t, nil
}

func (t *templates) execute(w io.Writer, page string, v *view) error {
	set, ok := t.pages[page]
	if !ok {
		return fmt.Errorf("no template for page %q", page)
	}
	return set.ExecuteTemplate(w, "layout", v)
}

// defuseBidi replaces Unicode bidirectional controls with a visible
// "[U+202E]" marker (finding.DefuseBidi). The console's own templates
// never contain them, so the replacement only ever touches data.
func defuseBidi(b []byte) []byte { return finding.DefuseBidi(b) }

// timeView renders as <time datetime="UTC" title="UTC">UTC</time>; the
// script rewrites the text in the viewer's locale and time zone.
type timeView struct {
	ISO   string
	Title string
	Text  string
}

func ts(t time.Time) *timeView {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &timeView{ISO: u.Format(time.RFC3339), Title: u.Format("2006-01-02 15:04:05 UTC"), Text: u.Format("2006-01-02 15:04 UTC")}
}

func tsp(t *time.Time) *timeView {
	if t == nil {
		return nil
	}
	return ts(*t)
}

var severityLabels = map[string]string{"critical": "Critical", "high": "High", "medium": "Medium", "low": "Low", "info": "Info"}

var triageLabels = map[string]string{
	"new": "New", "triaged": "Triaged", "false_positive": "False positive",
	"accepted_risk": "Accepted risk", "fixed": "Fixed", "wont_fix": "Won't fix",
}

// sevClass is a CSS class from a fixed set, whatever the stored value.
func sevClass(sev string) string {
	if _, ok := severityLabels[sev]; ok {
		return "sev-" + sev
	}
	return "sev-unknown"
}

func sevLabel(sev string) string {
	if l, ok := severityLabels[sev]; ok {
		return l
	}
	return sev
}

func triageLabel(status string) string {
	if l, ok := triageLabels[status]; ok {
		return l
	}
	return status
}

// Console URLs. Every id goes through url.PathEscape: ids come from the
// database, but the database got them from requests.
func scanURL(id string) string { return "/ui/scans/" + url.PathEscape(id) }

func findingURL(fp, scanID string) string {
	u := "/ui/findings/" + url.PathEscape(fp)
	if scanID != "" {
		u += "?" + url.Values{"scan": {scanID}}.Encode()
	}
	return u
}

func webhookURL(id string) string { return "/ui/webhooks/" + url.PathEscape(id) }

func scheduleURL(id string) string { return "/ui/schedules/" + url.PathEscape(id) }

func compareURL(a, b string) string {
	return "/ui/compare?" + url.Values{"a": {a}, "b": {b}}.Encode()
}

// browseURL opens the target picker at p for what: "" (a directory to
// scan), "image" or "schedule".
func browseURL(p, what string) string {
	vals := url.Values{"path": {p}}
	if what != "" {
		vals.Set("for", what)
	}
	return "/ui/browse?" + vals.Encode()
}

func exportURL(scanID, kind, format string) string {
	return "/ui/scans/" + url.PathEscape(scanID) + "/" + kind + "?" + url.Values{"format": {format}}.Encode()
}

// short is the first characters of an id, enough to tell ids apart.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// metaText renders a metadata value as text: strings as they are,
// anything else as compact JSON.
func metaText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func location(f finding.Finding) string {
	switch {
	case f.FilePath != "" && f.Line > 0:
		return f.FilePath + ":" + strconv.Itoa(f.Line)
	case f.FilePath != "":
		return f.FilePath
	}
	return "—"
}

// suppressedBy is metadata.suppressed_by as text; "" when not suppressed.
func suppressedBy(f finding.Finding) string {
	v, ok := f.Metadata["suppressed_by"]
	if !ok || v == nil {
		return ""
	}
	return metaText(v)
}

var templateFuncs = template.FuncMap{
	"ts":           ts,
	"tsp":          tsp,
	"sevClass":     sevClass,
	"sevLabel":     sevLabel,
	"triageLabel":  triageLabel,
	"scanURL":      scanURL,
	"findingURL":   findingURL,
	"webhookURL":   webhookURL,
	"scheduleURL":  scheduleURL,
	"ageDays":      ageDays,
	"compareURL":   compareURL,
	"browseURL":    browseURL,
	"exportURL":    exportURL,
	"short":        short,
	"metaText":     metaText,
	"location":     location,
	"suppressedBy": suppressedBy,
	"join":         strings.Join,
	"has": func(xs []string, x string) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	},
	"pathEscape": url.PathEscape,
	"list":       func(xs ...string) []string { return xs },
	"dict": func(kv ...any) (map[string]any, error) {
		if len(kv)%2 != 0 {
			return nil, fmt.Errorf("dict needs key, value pairs")
		}
		m := make(map[string]any, len(kv)/2)
		for i := 0; i < len(kv); i += 2 {
			k, ok := kv[i].(string)
			if !ok {
				return nil, fmt.Errorf("dict key %v is not a string", kv[i])
			}
			m[k] = kv[i+1]
		}
		return m, nil
	},
}

// staticFiles are the embedded CSS, script and icon, each served under a
// name carrying its content hash so it can be cached for good.
type staticFiles struct {
	byName map[string]staticFile // hashed file name -> file
	urls   map[string]string     // logical name ("app.css") -> URL
}

type staticFile struct {
	body  []byte
	ctype string
}

var staticTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

func loadStatic() (*staticFiles, error) {
	entries, err := fs.ReadDir(staticFS, "static")
	if err != nil {
		return nil, err
	}
	sf := &staticFiles{byName: map[string]staticFile{}, urls: map[string]string{}}
	for _, e := range entries {
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			return nil, err
		}
		ext := path.Ext(e.Name())
		ctype, ok := staticTypes[ext]
		if !ok {
			return nil, fmt.Errorf("ui: static file %s has no known type", e.Name())
		}
		sum := sha256.Sum256(body)
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		sf.byName[hashed] = staticFile{body: body, ctype: ctype}
		sf.urls[e.Name()] = "/ui/static/" + hashed
	}
	return sf, nil
}

func (c *Console) serveStatic(w http.ResponseWriter, r *http.Request, rq *request) error {
	f, ok := c.static.byName[r.PathValue("name")]
	if !ok {
		return notFound("No such file.")
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	// The name changes with the content, so the file never goes stale.
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.body)
	}
	return nil
}

// ageDays is an advisory database's age for people: "unknown" when its
// build date cannot be told.
func ageDays(d *float64) string {
	if d == nil {
		return "unknown"
	}
	return strconv.FormatFloat(*d, 'f', 1, 64) + " days"
}
