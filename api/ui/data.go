package ui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"scand/api/portfolio"
	"scand/finding"
	"scand/finding/versions"
	"scand/store"
	"scand/store/findings"
	"scand/store/targets"
)

// Data is every read the console makes. Pages depend on this interface
// only, so when the store's findings reads change (cursors, iterators,
// ingest-time aggregates) only the adapter below changes.
type Data interface {
	Scan(ctx context.Context, id string) (store.Scan, error)
	// Scans lists scans newest first with the number f selects unpaged.
	Scans(ctx context.Context, f store.ScanFilter) ([]store.Scan, int, error)
	ScanCounts(ctx context.Context) (map[string]int, error)
	ScanTargets(ctx context.Context) ([]string, error)
	// PreviousScan is the completed scan of the same target before id.
	PreviousScan(ctx context.Context, id string) (store.Scan, error)

	Findings(ctx context.Context, scanID string, q FindingQuery) (FindingPage, error)
	// Finding is one occurrence of a fingerprint: in scanID, or the newest.
	Finding(ctx context.Context, fingerprint, scanID string) (store.FindingWithState, store.Scan, error)
	FingerprintKnown(ctx context.Context, fingerprint string) (bool, error)
	TriageState(ctx context.Context, fingerprint string) (*store.TriageState, error)
	TriageHistory(ctx context.Context, fingerprint string) ([]store.TriageState, error)
	Comments(ctx context.Context, fingerprint string) ([]store.Comment, error)
	ScansWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]store.Scan, error)
	// FindingAge is a fingerprint's first and last sighting on the target
	// of scan scanID; ok is false when it has none yet.
	FindingAge(ctx context.Context, scanID, fingerprint string) (age targets.Age, ok bool, err error)
	Compare(ctx context.Context, a, b, kind, cursor string, limit int) (ComparePage, error)
	// CurrentFindings classifies the open findings (latest completed scan
	// of each target) by severity: live, suppressed, or a hidden verdict.
	CurrentFindings(ctx context.Context, hidden []string) ([]store.SeverityClassCount, error)
	// RuleGroups groups a completed scan's findings by scanner and rule.
	RuleGroups(ctx context.Context, sc store.Scan) ([]store.RuleGroup, error)
	// ExpiringVerdicts counts verdicts that expire before until.
	ExpiringVerdicts(ctx context.Context, until time.Time) (int, error)
	// Activity lists the UTC days in [from, to) with scans started or
	// completed, oldest first.
	Activity(ctx context.Context, from, to time.Time) ([]store.ConsoleDay, error)

	// Portfolio (issue 25): targets and the findings of their latest scans.
	Targets(ctx context.Context, q targets.TargetQuery) ([]targets.TargetSummary, error)
	PortfolioFindings(ctx context.Context, q targets.FindingsQuery) ([]targets.PortfolioFinding, int, error)
	// Target is one target with its open counts; TargetScans lists its
	// scans newest first, those before the scan numbered before (0: from
	// the newest); TargetOfScan is the target a scan points at.
	Target(ctx context.Context, id int64, hidden []string, sla targets.SLA) (targets.TargetSummary, error)
	TargetScans(ctx context.Context, id, before int64, limit int) ([]store.Scan, error)
	TargetOfScan(ctx context.Context, scanID string) (targets.Target, error)
	Components(ctx context.Context, q targets.ComponentQuery, constraint *versions.Constraint, limit int) (portfolio.ComponentList, error)
	Vulnerability(ctx context.Context, id string, hidden []string) (portfolio.Vulnerability, bool, error)

	Notifications(ctx context.Context, unreadOnly bool, limit int) ([]store.Notification, error)
	UnreadNotifications(ctx context.Context) (int, error)
	APIKeys(ctx context.Context) ([]store.APIKey, error)
	Webhooks(ctx context.Context) ([]store.Webhook, error)
	Webhook(ctx context.Context, id string) (store.Webhook, error)
	Deliveries(ctx context.Context, webhookID string, limit int) ([]store.Delivery, error)

	Schedules(ctx context.Context) ([]store.Schedule, error)
	Schedule(ctx context.Context, id string) (store.Schedule, error)
	// ScheduleRuns lists a schedule's runs, newest first.
	ScheduleRuns(ctx context.Context, id string, limit int) ([]store.ScheduleRun, error)
	// LatestScheduleRuns is every schedule's newest run, by schedule id.
	LatestScheduleRuns(ctx context.Context) (map[string]store.ScheduleRun, error)
}

// FindingQuery filters and pages a scan's findings. After and Before are
// cursors from a FindingPage, opaque to the pages.
type FindingQuery struct {
	Severities []string
	ScanTypes  []string
	Scanners   []string
	Compliance []string
	Triage     []string
	Suppressed *bool
	Text       string
	After      string
	Before     string
	Limit      int
	// Page jumps to a page number (1-based) from the top; 0 pages by
	// cursor. Last asks for the last page.
	Page int
	Last bool
	// Sort is one of store/findings.FindingSorts; "" is the canonical
	// order (severity). Cursors belong to the order they came from.
	Sort string
}

// ErrBadCursor is a cursor that no page of this order handed out (cut
// short, edited, or from another order); pages refuse it with a message
// instead of showing page 1.
var ErrBadCursor = errors.New("not a cursor of this list")

// FindingPage is one page of findings with the cursors of its neighbours
// ("" when there is none). Total counts the matches, or is -1 when the
// query has no filter (the scan's findings count is the total then). The
// store counts filters from its facet counts exactly; a text search is
// counted up to CountCap (More says there are more).
type FindingPage struct {
	Findings []store.FindingWithState
	Next     string
	Prev     string
	Total    int
	More     bool
	// FirstSeen is when each finding of the page was first seen on the
	// scan's target (issue 25's age), by fingerprint.
	FirstSeen map[string]time.Time
	// Cursors are each row's position, as Prev and Next hold them.
	Cursors []string
}

// CountCap is where counting a text search's matches stops: counting
// every match of a broad search over a huge scan costs a full pass.
const CountCap = 10000

// ComparePage is the counts of a compare and one page of one kind.
type ComparePage struct {
	Counts   map[string]int
	Findings []store.FindingWithState
	Next     string
	// NotCompared says, per scanner that failed, ran partly or could not
	// run in either scan, why its findings are not compared.
	NotCompared []string
}

// storeData reads today's store.Store. Cursors are canonical positions.
type storeData struct{ st *store.Store }

// NewStoreData adapts a store to Data.
func NewStoreData(st *store.Store) Data { return storeData{st} }

func (d storeData) Targets(ctx context.Context, q targets.TargetQuery) ([]targets.TargetSummary, error) {
	return d.st.ListTargets(ctx, q)
}

func (d storeData) PortfolioFindings(ctx context.Context, q targets.FindingsQuery) ([]targets.PortfolioFinding, int, error) {
	rows, err := d.st.PortfolioFindings(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	// Rows hold their JSON only until the next one is read: copy each.
	for i := range rows {
		rows[i].Row.Body = append([]byte(nil), rows[i].Row.Body...)
	}
	n, err := d.st.CountPortfolioFindings(ctx, q)
	return rows, n, err
}

func (d storeData) Target(ctx context.Context, id int64, hidden []string, sla targets.SLA) (targets.TargetSummary, error) {
	return d.st.TargetSummaryByID(ctx, id, hidden, sla)
}

func (d storeData) TargetScans(ctx context.Context, id, before int64, limit int) ([]store.Scan, error) {
	return d.st.ScansOfTarget(ctx, id, before, limit)
}

func (d storeData) TargetOfScan(ctx context.Context, scanID string) (targets.Target, error) {
	return d.st.TargetOfScan(ctx, scanID)
}

func (d storeData) Components(ctx context.Context, q targets.ComponentQuery, constraint *versions.Constraint, limit int) (portfolio.ComponentList, error) {
	return portfolio.Inventory(ctx, d.st, q, constraint, limit)
}

func (d storeData) Vulnerability(ctx context.Context, id string, hidden []string) (portfolio.Vulnerability, bool, error) {
	return portfolio.VulnerabilityOf(ctx, d.st, id, hidden, 100)
}

func (d storeData) Scan(ctx context.Context, id string) (store.Scan, error) {
	return d.st.ScanByID(ctx, id)
}

func (d storeData) Scans(ctx context.Context, f store.ScanFilter) ([]store.Scan, int, error) {
	n, err := d.st.CountScans(ctx, f)
	if err != nil {
		return nil, 0, err
	}
	if n == 0 || f.Offset >= n {
		return []store.Scan{}, n, nil
	}
	scans, err := d.st.Scans(ctx, f)
	return scans, n, err
}

func (d storeData) ScanCounts(ctx context.Context) (map[string]int, error) {
	return d.st.ScanCountsByStatus(ctx)
}

func (d storeData) ScanTargets(ctx context.Context) ([]string, error) {
	return d.st.ScanTargets(ctx, 500)
}

func (d storeData) PreviousScan(ctx context.Context, id string) (store.Scan, error) {
	return d.st.PreviousCompletedScan(ctx, id)
}

// cursorOrd reads a canonical-order cursor: "" is no bound (-1).
func cursorOrd(c string) (int, error) {
	if c == "" {
		return -1, nil
	}
	n, err := strconv.Atoi(c)
	if err != nil || n < 0 {
		return 0, ErrBadCursor
	}
	return n, nil
}

// Cursors of the other orders are the row's sort key with the order's
// name, so a cursor of one order is refused by another.
type sortCursor struct {
	Sort string `json:"sort"`
	findings.SortKey
}

func encodeSortCursor(sort string, k findings.SortKey) string {
	b, _ := json.Marshal(sortCursor{Sort: sort, SortKey: k})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSortCursor(raw, sort string) (*findings.SortKey, error) {
	if raw == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(raw)
	var c sortCursor
	if err != nil || json.Unmarshal(b, &c) != nil || c.Sort != sort || c.Ord < 0 {
		return nil, ErrBadCursor
	}
	return &c.SortKey, nil
}

func (d storeData) Findings(ctx context.Context, scanID string, q FindingQuery) (FindingPage, error) {
	sq := store.ConsoleFindingQuery{Severities: q.Severities, ScanTypes: q.ScanTypes, Scanners: q.Scanners, Compliance: q.Compliance,
		Triage: q.Triage, Suppressed: q.Suppressed, Text: q.Text, Limit: q.Limit + 1, CountUpTo: CountCap + 1, Last: q.Last}
	if q.Sort != findings.SortSeverity {
		sq.Sort = q.Sort
	}
	var err error
	if sq.Sort == "" {
		if sq.After, err = cursorOrd(q.After); err != nil {
			return FindingPage{}, err
		}
		if sq.Before, err = cursorOrd(q.Before); err != nil {
			return FindingPage{}, err
		}
		if q.Last {
			// A bound past every position: the page before it is the last.
			sq.Before = math.MaxInt32
		}
	} else {
		if sq.AfterKey, err = decodeSortCursor(q.After, sq.Sort); err != nil {
			return FindingPage{}, err
		}
		if sq.BeforeKey, err = decodeSortCursor(q.Before, sq.Sort); err != nil {
			return FindingPage{}, err
		}
		sq.After, sq.Before = -1, -1
		if sq.AfterKey != nil {
			sq.After = 0
		}
		if sq.BeforeKey != nil {
			sq.Before = 0
		}
	}
	if q.Page > 1 {
		sq.After, sq.Before, sq.AfterKey, sq.BeforeKey, sq.Last, sq.Skip = -1, -1, nil, nil, false, (q.Page-1)*q.Limit
	}
	if sq.After >= 0 {
		sq.Before, sq.BeforeKey, sq.Last = -1, nil, false
	}
	res, err := d.st.ConsoleFindings(ctx, scanID, sq)
	if err != nil {
		return FindingPage{}, err
	}
	rows := res.Rows
	page := FindingPage{Total: -1}
	more := len(rows) > q.Limit
	backwards := sq.After < 0 && (sq.Before >= 0 || sq.Last)
	if more {
		if backwards {
			rows = rows[1:]
		} else {
			rows = rows[:q.Limit]
		}
	}
	cursor := func(r store.OrderedFinding) string {
		if sq.Sort == "" {
			return strconv.Itoa(r.Ord)
		}
		return encodeSortCursor(sq.Sort, r.Key)
	}
	if len(rows) > 0 {
		first, last := cursor(rows[0]), cursor(rows[len(rows)-1])
		switch {
		case backwards:
			// The last page has nothing after it.
			if !q.Last {
				page.Next = last
			}
			if more {
				page.Prev = first
			}
		default:
			if more {
				page.Next = last
			}
			if sq.After >= 0 || sq.Skip > 0 {
				page.Prev = first
			}
		}
	}
	page.Findings = make([]store.FindingWithState, len(rows))
	page.Cursors = make([]string, len(rows))
	fps := make([]string, len(rows))
	for i, r := range rows {
		page.Findings[i], page.Cursors[i], fps[i] = r.FindingWithState, cursor(r), r.Fingerprint
	}
	ages, err := d.st.AgesOfScan(ctx, scanID, fps)
	if err != nil {
		return FindingPage{}, err
	}
	page.FirstSeen = make(map[string]time.Time, len(ages))
	for fp, a := range ages {
		page.FirstSeen[fp] = a.FirstSeen
	}
	if sq.Filtered() {
		page.Total, page.More = res.Total, res.Capped
		if res.Capped {
			page.Total = min(res.Total, CountCap)
		}
	}
	return page, nil
}

func (d storeData) Finding(ctx context.Context, fingerprint, scanID string) (store.FindingWithState, store.Scan, error) {
	f, sc, err := d.st.FindingOccurrence(ctx, fingerprint, scanID)
	if err == nil {
		f.Excerpt, err = d.st.Excerpt(ctx, sc.Seq, fingerprint, f.Line)
	}
	return f, sc, err
}

func (d storeData) FingerprintKnown(ctx context.Context, fingerprint string) (bool, error) {
	return d.st.FingerprintKnown(ctx, fingerprint)
}

func (d storeData) TriageState(ctx context.Context, fingerprint string) (*store.TriageState, error) {
	return d.st.TriageStateOf(ctx, fingerprint)
}

func (d storeData) TriageHistory(ctx context.Context, fingerprint string) ([]store.TriageState, error) {
	return d.st.TriageHistory(ctx, fingerprint)
}

func (d storeData) Comments(ctx context.Context, fingerprint string) ([]store.Comment, error) {
	return d.st.Comments(ctx, fingerprint)
}

func (d storeData) ScansWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]store.Scan, error) {
	return d.st.ScansWithFingerprint(ctx, fingerprint, limit)
}

func (d storeData) Compare(ctx context.Context, a, b, kind, cursor string, limit int) (ComparePage, error) {
	names, reasons, err := d.notCompared(ctx, a, b)
	if err != nil {
		return ComparePage{}, err
	}
	counts, err := d.st.CompareCounts(ctx, a, b, names...)
	if err != nil {
		return ComparePage{}, err
	}
	after, err := cursorOrd(cursor)
	if err != nil {
		return ComparePage{}, err
	}
	rows, err := d.st.CompareFindings(ctx, a, b, kind, after, limit+1, names...)
	if err != nil {
		return ComparePage{}, err
	}
	page := ComparePage{Counts: counts, NotCompared: reasons}
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = strconv.Itoa(rows[len(rows)-1].Ord)
	}
	page.Findings = make([]store.FindingWithState, len(rows))
	for i, r := range rows {
		page.Findings[i] = r.FindingWithState
	}
	return page, nil
}

// notCompared lists the scanners whose findings a compare of a with b
// cannot judge (finding.NotComparedReason), and why.
func (d storeData) notCompared(ctx context.Context, a, b string) (names, reasons []string, err error) {
	sa, err := d.st.ScanByID(ctx, a)
	if err != nil {
		return nil, nil, err
	}
	sb, err := d.st.ScanByID(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	names, reasons = finding.NotComparedScanners(sa.Coverage, sb.Coverage)
	return names, reasons, nil
}

func (d storeData) RuleGroups(ctx context.Context, sc store.Scan) ([]store.RuleGroup, error) {
	return d.st.RuleGroups(ctx, sc)
}

func (d storeData) ExpiringVerdicts(ctx context.Context, until time.Time) (int, error) {
	return d.st.ExpiringVerdicts(ctx, until)
}

func (d storeData) CurrentFindings(ctx context.Context, hidden []string) ([]store.SeverityClassCount, error) {
	return d.st.CurrentFindingClasses(ctx, hidden)
}

func (d storeData) Activity(ctx context.Context, from, to time.Time) ([]store.ConsoleDay, error) {
	return d.st.ConsoleActivity(ctx, from, to)
}

func (d storeData) Notifications(ctx context.Context, unreadOnly bool, limit int) ([]store.Notification, error) {
	return d.st.Notifications(ctx, unreadOnly, limit)
}

func (d storeData) UnreadNotifications(ctx context.Context) (int, error) {
	return d.st.UnreadNotificationCount(ctx)
}

func (d storeData) APIKeys(ctx context.Context) ([]store.APIKey, error) { return d.st.APIKeys(ctx) }

func (d storeData) Webhooks(ctx context.Context) ([]store.Webhook, error) { return d.st.Webhooks(ctx) }

func (d storeData) Webhook(ctx context.Context, id string) (store.Webhook, error) {
	return d.st.WebhookByID(ctx, id)
}

func (d storeData) Deliveries(ctx context.Context, webhookID string, limit int) ([]store.Delivery, error) {
	return d.st.DeliveriesByWebhook(ctx, webhookID, limit)
}

func (d storeData) Schedules(ctx context.Context) ([]store.Schedule, error) {
	return d.st.Schedules(ctx)
}

func (d storeData) Schedule(ctx context.Context, id string) (store.Schedule, error) {
	return d.st.ScheduleByID(ctx, id)
}

func (d storeData) ScheduleRuns(ctx context.Context, id string, limit int) ([]store.ScheduleRun, error) {
	return d.st.ScheduleRuns(ctx, id, limit)
}

func (d storeData) LatestScheduleRuns(ctx context.Context) (map[string]store.ScheduleRun, error) {
	return d.st.LatestScheduleRuns(ctx)
}

func (d storeData) FindingAge(ctx context.Context, scanID, fingerprint string) (targets.Age, bool, error) {
	ages, err := d.st.AgesOfScan(ctx, scanID, []string{fingerprint})
	age, ok := ages[fingerprint]
	return age, ok, err
}
