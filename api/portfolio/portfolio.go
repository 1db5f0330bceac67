// Package portfolio serves what a team owns across scans (issue 25):
// targets as records, the findings of every target's latest completed
// scan with their age and fix deadline, the component inventory and the
// targets a vulnerability affects. Its routes join api's route table
// (api/server.go routeTable); every query lives in store/targets.
package portfolio

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/api/openapi"
	"scand/auth"
	"scand/finding"
	"scand/finding/report"
	"scand/store"
	"scand/store/audit"
	"scand/store/targets"
)

// Handlers holds what the routes need.
type Handlers struct {
	Store *store.Store
	Now   func() time.Time
	// SLA is the fix-deadline policy (SVC_SLA_DAYS).
	SLA finding.SLAPolicy
	// Hidden are the default-hidden verdicts: not open, not counted.
	Hidden []string
	// Principal is the authenticated caller of a request.
	Principal func(context.Context) auth.Principal
	// Audit appends the audit record of a change already made.
	Audit func(ctx context.Context, p auth.Principal, action, objectType, objectID string, changes audit.Changes)
}

const (
	defaultLimit = 50
	maxLimit     = 500
)

// Routes returns the portfolio routes.
func (h Handlers) Routes() []openapi.Route {
	return append(h.targetRoutes(), h.inventoryRoutes()...)
}

func (h Handlers) targetRoutes() []openapi.Route {
	limit := openapi.Param{Name: "limit", In: "query", Type: "integer", Description: "page size (default 50, at most 500)"}
	cursor := openapi.Param{Name: "cursor", In: "query", Type: "string", Description: "next_cursor of the previous page"}
	labelP := openapi.Param{Name: "label", In: "query", Type: "string", Description: "key=value; repeat to require several labels"}
	kindP := openapi.Param{Name: "kind", In: "query", Type: "string", Enum: targets.Kinds}
	textP := openapi.Param{Name: "text", In: "query", Type: "string", Description: "case-insensitive substring of the target's name or key"}
	overdueP := openapi.Param{Name: "overdue", In: "query", Type: "boolean", Description: "only what has an open finding past its SVC_SLA_DAYS deadline"}
	idP := openapi.Param{Name: "id", In: "path", Type: "integer", Required: true}
	return []openapi.Route{
		{Method: "GET", Path: "/targets", Scope: auth.ScopeRead, Tag: "portfolio",
			Summary: "List targets (keyset-paged by id) with their latest completed scan, open findings by severity, risk and overdue count",
			Params:  []openapi.Param{kindP, labelP, textP, overdueP, limit, cursor}, Response: TargetList{}, Errors: []int{422}, Handler: h.listTargets},
		{Method: "GET", Path: "/targets/{id}", Scope: auth.ScopeRead, Tag: "portfolio",
			Summary: "One target with its scans (newest first, at most 100) and image digest history",
			Params:  []openapi.Param{idP}, Response: TargetDetail{}, Errors: []int{404, 422}, Handler: h.getTarget},
		{Method: "PATCH", Path: "/targets/{id}", Scope: auth.ScopeWrite, Tag: "portfolio",
			Summary: "Set a target's labels (replacing them) and display name",
			Params:  []openapi.Param{idP}, Request: TargetPatch{}, Response: TargetView{}, Errors: []int{404, 422}, Handler: h.patchTarget},
		{Method: "GET", Path: "/findings", Scope: auth.ScopeRead, Tag: "portfolio",
			Summary: "Findings of the latest completed scan of every target, with age and fix deadline; filters AND-combined, stable keyset paging",
			Params: []openapi.Param{
				{Name: "target", In: "query", Type: "string", Description: "target ids, comma-separated"},
				kindP, labelP, textP,
				{Name: "severity", In: "query", Type: "string", Description: "comma-separated severities"},
				{Name: "scanner", In: "query", Type: "string"}, {Name: "scan_type", In: "query", Type: "string"},
				{Name: "compliance", In: "query", Type: "string", Description: "compliance tags, any of them"},
				{Name: "verdict", In: "query", Type: "string", Description: "triage verdicts (new matches none); default: all but the hidden ones (false_positive, accepted_risk, wont_fix)"},
				{Name: "suppressed", In: "query", Type: "boolean", Description: "true: only inline-suppressed findings; default leaves them out"},
				{Name: "first_seen_before", In: "query", Type: "string", Description: "RFC 3339 time or YYYY-MM-DD"},
				overdueP,
				{Name: "advisory", In: "query", Type: "string", Description: "vulnerability id, any alias (CVE, GHSA, OSV)"},
				{Name: "purl", In: "query", Type: "string", Description: "component purl (pkg:type/ns/name@version); without @version any version"},
				{Name: "sort", In: "query", Type: "string", Enum: []string{"severity", "first_seen", "target", "file"}, Default: "severity"},
				{Name: "total", In: "query", Type: "boolean", Description: "false skips counting the total (faster deep pages); default true"},
				limit, cursor},
			Response: FindingList{}, Errors: []int{422}, Handler: h.listFindings},
	}
}

// TargetView is a target as the API shows it.
type TargetView struct {
	ID     int64             `json:"id"`
	Kind   string            `json:"kind" doc:"dir, image, repo or import"`
	Name   string            `json:"name" doc:"display name; the key until renamed"`
	Key    string            `json:"key" doc:"canonical identity: directory path, image archive path, repository URL without credentials, or import label"`
	URL    *string           `json:"target_url" doc:"DAST URL that is part of the identity"`
	Host   *string           `json:"target_host" doc:"network host that is part of the identity"`
	Labels map[string]string `json:"labels"`
	// CreatedAt is the first scan's start.
	CreatedAt         time.Time          `json:"created_at"`
	FirstScanAt       *time.Time         `json:"first_scan_at"`
	LastScanAt        *time.Time         `json:"last_scan_at"`
	LastScanID        *string            `json:"last_scan_id"`
	LatestScanID      *string            `json:"latest_completed_scan_id"`
	LatestCompletedAt *time.Time         `json:"latest_completed_at"`
	Open              Counts             `json:"open" doc:"open findings of the latest completed scan by severity (no suppressed ones, no hidden verdicts)"`
	OpenTotal         int                `json:"open_total"`
	Risk              int                `json:"risk_score"`
	Overdue           int                `json:"overdue"`
	Series            []targets.DayCount `json:"series" doc:"unsuppressed findings of the last scan completed each day over 90 days"`
}

// Counts is a count per severity.
type Counts struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
	Info     int `json:"info"`
}

// TargetList is a page of targets.
type TargetList struct {
	Items      []TargetView `json:"items"`
	NextCursor *string      `json:"next_cursor"`
}

// TargetDetail is a target with its scans.
type TargetDetail struct {
	TargetView
	Scans []TargetScan `json:"scans"`
	// Digests is an image target's digest history, newest first.
	Digests []string `json:"digests"`
}

// TargetScan is one scan of a target.
type TargetScan struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	StartedAt   time.Time  `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	Findings    int        `json:"findings_count"`
	Risk        int        `json:"risk_score"`
	ScanTypes   []string   `json:"scan_types"`
}

// TargetPatch edits a target.
type TargetPatch struct {
	Labels *map[string]string `json:"labels,omitempty" doc:"replaces every label; keys 1-64 of [A-Za-z0-9._/-], values up to 256 printable characters, at most 50"`
	Name   *string            `json:"name,omitempty" doc:"display name, 1-200 printable characters"`
}

func (h Handlers) hidden() []string { return h.Hidden }

func (h Handlers) sla() targets.SLA {
	return targets.SLA{Cutoffs: h.SLA.Cutoffs(h.Now())}
}

func parseLabels(r *http.Request) (map[string]string, error) {
	vals := r.URL.Query()["label"]
	if len(vals) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, v := range vals {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return nil, httpio.Invalid("value_error", "label must be key=value", v, "query", "label")
		}
		out[k] = val
	}
	return out, nil
}

func (h Handlers) targetQuery(r *http.Request) (targets.TargetQuery, error) {
	q := targets.TargetQuery{Kind: r.URL.Query().Get("kind"), Text: r.URL.Query().Get("text"), Hidden: h.hidden(), SLA: h.sla()}
	if q.Kind != "" && !slices.Contains(targets.Kinds, q.Kind) {
		return q, httpio.Invalid("enum", "Input should be one of "+strings.Join(targets.Kinds, ", "), q.Kind, "query", "kind")
	}
	var err error
	if q.Labels, err = parseLabels(r); err != nil {
		return q, err
	}
	return q, nil
}

func (h Handlers) view(t targets.TargetSummary, series []targets.DayCount) TargetView {
	v := TargetView{ID: t.ID, Kind: t.Kind, Name: t.Name, Key: t.Key, Labels: t.Labels, CreatedAt: t.CreatedAt,
		FirstScanAt: t.FirstScanAt, LastScanAt: t.LastScanAt, LatestCompletedAt: t.LatestCompletedAt,
		Open: Counts(t.Open), OpenTotal: t.Open.Total(), Risk: t.Open.RiskScore(), Overdue: t.Overdue, Series: series}
	if t.URL != "" {
		v.URL = &t.URL
	}
	if t.Host != "" {
		v.Host = &t.Host
	}
	if t.LastScanID != "" {
		v.LastScanID = &t.LastScanID
	}
	if t.LatestScanID != "" {
		v.LatestScanID = &t.LatestScanID
	}
	if v.Series == nil {
		v.Series = []targets.DayCount{}
	}
	return v
}

func (h Handlers) listTargets(w http.ResponseWriter, r *http.Request) error {
	q, err := h.targetQuery(r)
	if err != nil {
		return err
	}
	if q.Limit, err = httpio.QueryInt(r, "limit", defaultLimit, 1, maxLimit); err != nil {
		return err
	}
	if c := r.URL.Query().Get("cursor"); c != "" {
		if q.After, err = httpio.DecodeCursor(c, "targets", 0); err != nil {
			return err
		}
	}
	if q.Overdue, err = httpio.QueryBool(r, "overdue"); err != nil {
		return err
	}
	ts, err := h.Store.ListTargets(r.Context(), q)
	if err != nil {
		return err
	}
	out := TargetList{Items: make([]TargetView, len(ts))}
	ids := make([]int64, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	series, err := h.Store.OpenSeriesOf(r.Context(), ids, h.Now().Add(-90*24*time.Hour))
	if err != nil {
		return err
	}
	for i, t := range ts {
		out.Items[i] = h.view(t, series[t.ID])
	}
	if len(ts) == q.Limit {
		c := httpio.EncodeCursor("targets", 0, ts[len(ts)-1].ID)
		out.NextCursor = &c
		httpio.SetNextLink(w, r, c)
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, httpio.NotFound("Target not found")
	}
	return id, nil
}

func (h Handlers) getTarget(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	t, err := h.Store.TargetSummaryByID(ctx, id, h.hidden(), h.sla())
	if err == store.ErrNotFound {
		return httpio.NotFound("Target not found")
	}
	if err != nil {
		return err
	}
	series, err := h.Store.OpenSeries(ctx, id, h.Now().Add(-90*24*time.Hour))
	if err != nil {
		return err
	}
	scans, err := h.Store.ScansOfTarget(ctx, id, 0, 100)
	if err != nil {
		return err
	}
	out := TargetDetail{TargetView: h.view(t, series), Scans: make([]TargetScan, len(scans)), Digests: []string{}}
	ids := make([]string, len(scans))
	for i, sc := range scans {
		out.Scans[i] = TargetScan{ID: sc.ID, Status: sc.Status, StartedAt: sc.StartedAt, CompletedAt: sc.CompletedAt,
			Findings: sc.FindingsCount, Risk: sc.RiskScore, ScanTypes: sc.ScanTypes}
		ids[i] = sc.ID
	}
	if t.Kind == targets.KindImage {
		resolved, err := h.Store.ScanTargetsByID(ctx, ids)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, id := range ids {
			var res struct {
				Image *struct {
					Digest string `json:"digest"`
				} `json:"image"`
			}
			if rt, ok := resolved[id]; ok && json.Unmarshal([]byte(rt.Resolved), &res) == nil && res.Image != nil && res.Image.Digest != "" && !seen[res.Image.Digest] {
				seen[res.Image.Digest] = true
				out.Digests = append(out.Digests, res.Image.Digest)
			}
		}
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func validLabelKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._/-", c)) {
			return false
		}
	}
	return true
}

func (h Handlers) patchTarget(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var req TargetPatch
	if err := httpio.DecodeBody(r, &req); err != nil {
		return err
	}
	v, err := h.UpdateTarget(r.Context(), h.Principal(r.Context()), id, req)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, v)
	return nil
}

// UpdateTarget validates and applies an edit of a target's labels and
// name, for PATCH /targets/{id} and the console alike.
func (h Handlers) UpdateTarget(ctx context.Context, p auth.Principal, id int64, req TargetPatch) (TargetView, error) {
	cur, err := h.Store.TargetByID(ctx, id)
	if err == store.ErrNotFound {
		return TargetView{}, httpio.NotFound("Target not found")
	}
	if err != nil {
		return TargetView{}, err
	}
	var v httpio.Validation
	labels := cur.Labels
	if req.Labels != nil {
		labels = *req.Labels
		if len(labels) > 50 {
			v.Add("too_long", "at most 50 labels", len(labels), "body", "labels")
		}
		for k, val := range labels {
			if !validLabelKey(k) {
				v.Add("value_error", "label keys are 1-64 characters of A-Z a-z 0-9 . _ / -", k, "body", "labels", k)
			}
			if len(val) > 256 || !printable(val) {
				v.Add("value_error", "label values are up to 256 printable characters", val, "body", "labels", k)
			}
		}
	}
	name := ""
	if req.Name != nil {
		name = strings.TrimSpace(*req.Name)
		if name == "" || len(name) > 200 || !printable(name) {
			v.Add("value_error", "name must be 1-200 printable characters", *req.Name, "body", "name")
		}
	}
	if err := v.Err(); err != nil {
		return TargetView{}, err
	}
	after, err := h.Store.SetTargetLabels(ctx, id, name, labels)
	if err == store.ErrNotFound {
		return TargetView{}, httpio.NotFound("Target not found")
	} else if err != nil {
		return TargetView{}, err
	}
	changes := audit.Changes{}
	if after.Name != cur.Name {
		changes["name"] = audit.Change{Before: cur.Name, After: after.Name}
	}
	if !maps.Equal(after.Labels, cur.Labels) {
		changes["labels"] = audit.Change{Before: cur.Labels, After: after.Labels}
	}
	if len(changes) > 0 {
		h.Audit(ctx, p, "target.update", "target", strconv.FormatInt(id, 10), changes)
	}
	t, err := h.Store.TargetSummaryByID(ctx, id, h.hidden(), h.sla())
	if err != nil {
		return TargetView{}, err
	}
	series, err := h.Store.OpenSeries(ctx, id, h.Now().Add(-90*24*time.Hour))
	if err != nil {
		return TargetView{}, err
	}
	return h.view(t, series), nil
}

// FindingList is a page of findings across targets.
type FindingList struct {
	Items      []json.RawMessage `json:"items" doc:"FindingWithState plus target_id, target_name, target_kind, first_seen, last_seen, due_at (null without a deadline) and overdue"`
	Total      *int              `json:"total" doc:"how many findings the filters select; null with total=false"`
	NextCursor *string           `json:"next_cursor"`
}

func parseTimeParam(v, name string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			t = t.UTC()
			return &t, nil
		}
	}
	return nil, httpio.Invalid("datetime_parsing", "Input should be an RFC 3339 time or a date (YYYY-MM-DD)", v, "query", name)
}

// purlPackage reads the package name and version a purl names, as a
// dependency finding's metadata gives them (Maven: group:artifact).
func purlPackage(p string) (name, version string, ok bool) {
	rest, found := strings.CutPrefix(p, "pkg:")
	if !found {
		return "", "", false
	}
	rest, _, _ = strings.Cut(rest, "?")
	rest, _, _ = strings.Cut(rest, "#")
	typ, path, found := strings.Cut(rest, "/")
	if !found || path == "" {
		return "", "", false
	}
	path, version, _ = strings.Cut(path, "@")
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = unescape(s)
	}
	switch strings.ToLower(typ) {
	case "maven":
		name = strings.Join(segs, ":")
	default:
		name = strings.Join(segs, "/")
	}
	return name, unescape(version), name != ""
}

// ecosystemNames are the ecosystem names the scanners' findings give a
// purl type's packages (OSV names, Trivy's package types), lower-cased.
var ecosystemNames = map[string][]string{
	"npm":      {"npm", "node-pkg", "yarn", "pnpm"},
	"maven":    {"maven", "jar", "pom", "gradle"},
	"pypi":     {"pypi", "pip", "pipenv", "poetry", "python-pkg"},
	"golang":   {"go", "gomod", "gobinary"},
	"cargo":    {"crates.io", "cargo", "rust-binary"},
	"gem":      {"rubygems", "bundler", "gemspec"},
	"nuget":    {"nuget", "dotnet-core"},
	"composer": {"packagist", "composer"},
	"deb":      {"debian", "ubuntu", "deb"},
	"rpm":      {"red hat", "redhat", "rocky linux", "almalinux", "centos", "fedora", "opensuse", "rpm"},
	"apk":      {"alpine", "apk"},
}

// purlType is the lower-cased type of a purl.
func purlType(p string) string {
	rest := strings.TrimPrefix(p, "pkg:")
	typ, _, _ := strings.Cut(rest, "/")
	return strings.ToLower(typ)
}

func unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// FindingsQuery reads the filters and sort of GET /findings from r's
// query (not its paging): the list and a bulk verdict by that list's
// filter select the same findings.
func (h Handlers) FindingsQuery(r *http.Request) (targets.FindingsQuery, error) {
	qs := r.URL.Query()
	tq, err := h.targetQuery(r)
	if err != nil {
		return targets.FindingsQuery{}, err
	}
	q := targets.FindingsQuery{Targets: tq, Severities: httpio.SplitCSV(qs.Get("severity")), Scanners: httpio.SplitCSV(qs.Get("scanner")),
		ScanTypes: httpio.SplitCSV(qs.Get("scan_type")), Compliance: httpio.SplitCSV(qs.Get("compliance")), Verdicts: httpio.SplitCSV(qs.Get("verdict")),
		Hidden: h.hidden(), SLA: h.sla(), Advisory: strings.TrimSpace(qs.Get("advisory")), Sort: qs.Get("sort")}
	for _, id := range httpio.SplitCSV(qs.Get("target")) {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			return q, httpio.Invalid("int_parsing", "target ids are positive integers", id, "query", "target")
		}
		q.TargetIDs = append(q.TargetIDs, n)
	}
	for _, s := range q.Severities {
		if !finding.Severity(s).Valid() {
			return q, httpio.Invalid("enum", "Input should be one of critical, high, medium, low, info", s, "query", "severity")
		}
	}
	if q.Sort == "" {
		q.Sort = "severity"
	}
	if !slices.Contains([]string{"severity", "first_seen", "target", "file"}, q.Sort) {
		return q, httpio.Invalid("enum", "Input should be one of severity, first_seen, target, file", q.Sort, "query", "sort")
	}
	if q.Suppressed, err = httpio.QueryOptionalBool(r, "suppressed"); err != nil {
		return q, err
	}
	if q.Overdue, err = httpio.QueryBool(r, "overdue"); err != nil {
		return q, err
	}
	if q.FirstSeenBefore, err = parseTimeParam(qs.Get("first_seen_before"), "first_seen_before"); err != nil {
		return q, err
	}
	if p := qs.Get("purl"); p != "" {
		name, version, ok := purlPackage(p)
		if !ok {
			return q, httpio.Invalid("value_error", "purl must look like pkg:type/namespace/name@version", p, "query", "purl")
		}
		q.Package, q.Version = name, version
		q.Ecosystems = ecosystemNames[purlType(p)]
	}
	return q, nil
}

func (h Handlers) listFindings(w http.ResponseWriter, r *http.Request) error {
	q, err := h.FindingsQuery(r)
	if err != nil {
		return err
	}
	qs := r.URL.Query()
	if q.Limit, err = httpio.QueryInt(r, "limit", defaultLimit, 1, maxLimit); err != nil {
		return err
	}
	if c := qs.Get("cursor"); c != "" {
		cur, err := DecodeCursor(c, q.Sort)
		if err != nil {
			return err
		}
		q.After = &cur
	}
	wantTotal := true
	if b, err := httpio.QueryOptionalBool(r, "total"); err != nil {
		return err
	} else if b != nil {
		wantTotal = *b
	}
	ctx := r.Context()
	rows, err := h.Store.PortfolioFindings(ctx, q)
	if err != nil {
		return err
	}
	out := FindingList{Items: make([]json.RawMessage, 0, len(rows))}
	now := h.Now()
	for _, pf := range rows {
		b, err := h.findingJSON(pf, now)
		if err != nil {
			return err
		}
		out.Items = append(out.Items, b)
	}
	if wantTotal {
		n, err := h.Store.CountPortfolioFindings(ctx, q)
		if err != nil {
			return err
		}
		out.Total = &n
	}
	if len(rows) == q.Limit {
		c := EncodeCursor(rows[len(rows)-1].Cursor, q.Sort)
		out.NextCursor = &c
		httpio.SetNextLink(w, r, c)
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

// findingJSON is a portfolio finding in the API shape: the stored
// FindingWithState JSON with the target, age and deadline spliced in.
func (h Handlers) findingJSON(pf targets.PortfolioFinding, now time.Time) (json.RawMessage, error) {
	b, err := pf.Row.AppendJSON(nil)
	if err != nil {
		return nil, err
	}
	extra := AgeFields(h.SLA, finding.Severity(pf.Severity), pf.FirstSeen, pf.LastSeen, now)
	extra.TargetID, extra.TargetName, extra.TargetKind = &pf.TargetID, &pf.TargetName, &pf.TargetKind
	tail, err := json.Marshal(extra)
	if err != nil {
		return nil, err
	}
	b = append(b[:len(b)-1], ',')
	b = append(b, tail[1:]...)
	return b, nil
}

// Age is the age and deadline fields every finding shape carries.
type Age struct {
	TargetID   *int64     `json:"target_id,omitempty"`
	TargetName *string    `json:"target_name,omitempty"`
	TargetKind *string    `json:"target_kind,omitempty"`
	FirstSeen  time.Time  `json:"first_seen"`
	LastSeen   time.Time  `json:"last_seen"`
	DueAt      *time.Time `json:"due_at"`
	Overdue    bool       `json:"overdue"`
}

// AgeFields computes a finding's age fields under an SLA policy at now.
func AgeFields(p finding.SLAPolicy, sev finding.Severity, first, last, now time.Time) Age {
	a := Age{FirstSeen: first, LastSeen: last}
	if due, ok := p.DueAt(sev, first); ok {
		a.DueAt = &due
		a.Overdue = now.After(due)
	}
	return a
}

// ScanAge is the age and deadline of a finding on its scan's target as
// the per-scan shapes (a scan's findings, one finding) carry them.
type ScanAge struct {
	FirstSeen *time.Time `json:"first_seen" doc:"completion of the first completed scan of this scan's target that reported the fingerprint (kept when that scan is deleted); null before the scan completes"`
	LastSeen  *time.Time `json:"last_seen" doc:"completion of the latest completed scan of the target that reported it"`
	DueAt     *time.Time `json:"due_at" doc:"first_seen plus the fix deadline of the finding's severity (SVC_SLA_DAYS); null without a deadline or before the scan completes"`
	Overdue   bool       `json:"overdue" doc:"due_at has passed"`
}

// ScanAgeFields is ScanAge of a finding of severity sev seen as seen (nil:
// not yet by a completed scan) under an SLA policy at now.
func ScanAgeFields(p finding.SLAPolicy, sev finding.Severity, seen *report.Seen, now time.Time) ScanAge {
	if seen == nil {
		return ScanAge{}
	}
	a := AgeFields(p, sev, seen.First, seen.Last, now)
	return ScanAge{FirstSeen: &a.FirstSeen, LastSeen: &a.LastSeen, DueAt: a.DueAt, Overdue: a.Overdue}
}

// SpliceAge adds the fields of age to the JSON object b ends with.
func SpliceAge(b []byte, age ScanAge) ([]byte, error) {
	tail, err := json.Marshal(age)
	if err != nil {
		return b, err
	}
	b = append(b[:len(b)-1], ',')
	return append(b, tail[1:]...), nil
}

// EncodeCursor is the opaque cursor of a findings page's last row.
func EncodeCursor(c targets.Cursor, sort string) string {
	b, _ := json.Marshal(struct {
		Sort string `json:"o"`
		targets.Cursor
	}{sort, c})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads EncodeCursor's cursor for the same sort; any other
// is a 422.
func DecodeCursor(raw, sort string) (targets.Cursor, error) {
	bad := httpio.Invalid("value_error", "cursor is not a cursor this list returned", raw, "query", "cursor")
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return targets.Cursor{}, bad
	}
	var c struct {
		Sort string `json:"o"`
		targets.Cursor
	}
	if json.Unmarshal(b, &c) != nil || c.Sort != sort {
		return targets.Cursor{}, bad
	}
	return c.Cursor, nil
}
