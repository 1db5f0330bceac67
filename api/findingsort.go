package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"scand/api/httpio"
	"scand/api/portfolio"
	"scand/scan/reportdata"
	"scand/store"
	"scand/store/findings"
)

// GET /scans/{id}/findings in an order other than the canonical one
// (issue 26: sort by first_seen, file, scanner or rule). The cursor holds
// the order, the scan and the last row's key with its canonical position,
// so a cursor of another order or scan is a 422, never another page.

// sortedPage is how many rows an NDJSON stream in a sorted order reads at
// a time: each read is a bounded sort over the scan's selected rows.
const sortedPage = 2000

type sortCursor struct {
	Sort string `json:"sort"`
	Scan int64  `json:"scan"`
	findings.SortKey
}

func encodeSortCursor(sort string, scanSeq int64, k findings.SortKey) string {
	b, _ := json.Marshal(sortCursor{Sort: sort, Scan: scanSeq, SortKey: k})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeSortCursor(raw, sort string, scanSeq int64) (*findings.SortKey, error) {
	bad := httpio.Invalid("value_error", "cursor is not a cursor this list returned for sort="+sort, raw, "query", "cursor")
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return nil, bad
	}
	var c sortCursor
	if json.Unmarshal(b, &c) != nil || c.Sort != sort || c.Scan != scanSeq || c.Ord < 0 {
		return nil, bad
	}
	return &c.SortKey, nil
}

// findingSort reads the sort parameter: "" and severity are the canonical
// order.
func findingSort(r *http.Request) (string, error) {
	sort := r.URL.Query().Get("sort")
	if sort != "" && !slices.Contains(findings.FindingSorts, sort) {
		return "", httpio.Invalid("enum", "sort must be one of "+strings.Join(findings.FindingSorts, ", "), sort, "query", "sort")
	}
	if sort == findings.SortSeverity {
		sort = ""
	}
	return sort, nil
}

// sortedFindings answers GET /scans/{id}/findings in a sorted order: one
// JSON page, or every selected row (up to fq.Limit when set) as NDJSON.
func (s *Server) sortedFindings(w http.ResponseWriter, r *http.Request, sc store.Scan, fq store.FindingQuery, sort string, ndjson bool) error {
	q := store.ConsoleFindingQuery{Severities: fq.Severities, ScanTypes: fq.ScanTypes, Scanners: fq.Scanners, Compliance: fq.Compliance,
		Triage: fq.Triage, Suppressed: fq.Suppressed, Sort: sort, Skip: fq.Offset}
	if c := r.URL.Query().Get("cursor"); c != "" {
		k, err := decodeSortCursor(c, sort, sc.Seq)
		if err != nil {
			return err
		}
		q.AfterKey = k
	}
	total, err := s.Store.CountFindings(r.Context(), sc, fq)
	if err != nil {
		return err
	}
	w.Header().Set("X-Total-Count", strconv.Itoa(total))
	if ndjson {
		sw := httpio.StartStream(w, "application/x-ndjson")
		left := fq.Limit
		for {
			q.Limit = sortedPage
			if fq.Limit > 0 {
				q.Limit = min(sortedPage, left)
			}
			page, err := s.Store.ConsoleFindings(r.Context(), sc.ID, q)
			if err != nil {
				return sw.Fail(err)
			}
			aged, err := s.agedFindings(r.Context(), sc, page.Rows)
			if err != nil {
				return sw.Fail(err)
			}
			for _, row := range aged {
				b, err := json.Marshal(row)
				if err != nil {
					return sw.Fail(err)
				}
				if _, err := sw.Write(append(b, '\n')); err != nil {
					return sw.Fail(err)
				}
			}
			left -= len(page.Rows)
			if len(page.Rows) < q.Limit || (fq.Limit > 0 && left <= 0) {
				return sw.Finish()
			}
			q.AfterKey, q.Skip = &page.Rows[len(page.Rows)-1].Key, 0
		}
	}
	q.Limit = fq.Limit + 1
	page, err := s.Store.ConsoleFindings(r.Context(), sc.ID, q)
	if err != nil {
		return err
	}
	rows := page.Rows
	if len(rows) > fq.Limit {
		rows = rows[:fq.Limit]
		httpio.SetNextLink(w, r, encodeSortCursor(sort, sc.Seq, rows[len(rows)-1].Key))
	}
	out, err := s.agedFindings(r.Context(), sc, rows)
	if err != nil {
		return err
	}
	httpio.WriteJSON(w, http.StatusOK, out)
	return nil
}

// agedFindings gives a page of scan sc's findings their age and deadline
// on the scan's target, with one lookup.
func (s *Server) agedFindings(ctx context.Context, sc store.Scan, rows []store.OrderedFinding) ([]ScanFinding, error) {
	fps := make([]string, len(rows))
	for i, row := range rows {
		fps[i] = row.Fingerprint
	}
	ages, err := s.Store.AgesOfScan(ctx, sc.ID, fps)
	if err != nil {
		return nil, err
	}
	now := s.slaNow()
	out := make([]ScanFinding, len(rows))
	for i, row := range rows {
		age, ok := ages[row.Fingerprint]
		out[i] = ScanFinding{row.FindingWithState, portfolio.ScanAgeFields(s.SLA, row.Severity, reportdata.SeenOf(sc, age, ok), now)}
	}
	return out, nil
}
