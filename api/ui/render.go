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

// SeverityNames are the severities, most severe first.
var SeverityNames = []string{"critical", "high", "medium", "low", "info"}

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
func ScanURL(id string) string { return "/ui/scans/" + url.PathEscape(id) }

func FindingURL(fp, scanID string) string {
	u := "/ui/findings/" + url.PathEscape(fp)
	if scanID != "" {
		u += "?" + url.Values{"scan": {scanID}}.Encode()
	}
	return u
}

func WebhookURL(id string) string { return "/ui/webhooks/" + url.PathEscape(id) }

func ScheduleURL(id string) string { return "/ui/schedules/" + url.PathEscape(id) }

func CompareURL(a, b string) string {
	return "/ui/compare?" + url.Values{"a": {a}, "b": {b}}.Encode()
}

// BrowseURL opens the target picker at p for what: "" (a directory to
// scan), "image" or "schedule".
func BrowseURL(p, what string) string { return BrowsePurpose{For: what}.Browse(p) }

// BrowsePurpose is what the target picker chooses for: a directory to
// scan (""), an image archive or layout to scan ("image"), or a schedule's
// directory ("schedule", with ID set when editing one).
type BrowsePurpose struct {
	For string
	ID  string
}

// BrowsePurposeOf reads the picker's purpose from its query.
func BrowsePurposeOf(q url.Values) BrowsePurpose {
	switch q.Get("for") {
	case "image":
		return BrowsePurpose{For: "image"}
	case "schedule":
		return BrowsePurpose{For: "schedule", ID: q.Get("id")}
	}
	return BrowsePurpose{}
}

// Browse is the picker's own URL for another directory.
func (bp BrowsePurpose) Browse(p string) string {
	vals := url.Values{"path": {p}}
	if bp.For != "" {
		vals.Set("for", bp.For)
	}
	if bp.ID != "" {
		vals.Set("id", bp.ID)
	}
	return "/ui/browse?" + vals.Encode()
}

// Choose is where choosing p leads: back to the form, filled in.
func (bp BrowsePurpose) Choose(p string) string {
	switch {
	case bp.For == "schedule" && bp.ID != "":
		return ScheduleURL(bp.ID) + "?" + url.Values{"target_path": {p}}.Encode() + "#edit"
	case bp.For == "schedule":
		return "/ui/schedules?" + url.Values{"target_path": {p}}.Encode() + "#new"
	case bp.For == "image":
		return "/ui/scans?" + url.Values{"kind": {KindImage}, "target_path": {p}}.Encode() + "#start"
	}
	return "/ui/scans?" + url.Values{"target_path": {p}}.Encode() + "#start"
}

func ExportURL(scanID, kind, format string) string {
	return "/ui/scans/" + url.PathEscape(scanID) + "/" + kind + "?" + url.Values{"format": {format}}.Encode()
}

// Short is the first characters of an id, for a page title naming one
// id; lists use the "short" template function, which keeps the ids of a
// page apart.
func Short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// MetaText renders a metadata value as text: strings as they are,
// anything else as compact JSON.
func MetaText(v any) string {
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

// SuppressedBy is metadata.suppressed_by as text; "" when not suppressed.
func SuppressedBy(f finding.Finding) string {
	v, ok := f.Metadata["suppressed_by"]
	if !ok || v == nil {
		return ""
	}
	return MetaText(v)
}

var templateFuncs = template.FuncMap{
	"ts":           ts,
	"tsp":          tsp,
	"sevClass":     sevClass,
	"sevLabel":     sevLabel,
	"triageLabel":  triageLabel,
	"scanURL":      ScanURL,
	"findingURL":   FindingURL,
	"webhookURL":   WebhookURL,
	"scheduleURL":  ScheduleURL,
	"ageDays":      ageDays,
	"compareURL":   CompareURL,
	"browseURL":    BrowseURL,
	"exportURL":    ExportURL,
	"short":        shortMark,
	"metaText":     MetaText,
	"location":     location,
	"suppressedBy": SuppressedBy,
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

func (c *Console) serveStatic(w http.ResponseWriter, r *http.Request, rq *Request) error {
	f, ok := c.static.byName[r.PathValue("name")]
	if !ok {
		return NotFound("No such file.")
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
