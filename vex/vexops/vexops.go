// Package vexops puts package vex to work on the store: the VEX document
// of a scan's or a target's verdicts (streamed from the findings, never
// the whole scan in memory), the import of a document (its statements
// kept, its not_affected statements set as false_positive verdicts on the
// matching findings), and the planner that sets the kept statements on
// the findings of later scans in the transaction that completes them.
// The API (api/vexapi), the CLI and the daemon's wiring share it.
package vexops

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"scand/finding"
	"scand/scan/components"
	"scand/scan/sbom"
	"scand/store"
	"scand/store/audit"
	vexdb "scand/store/vex"
	"scand/vex"
)

// Options are what every document scand writes says about its origin.
type Options struct {
	// Author is the instance's name (SVC_INSTANCE_NAME).
	Author      string
	ToolVersion string
	// Now stamps the document (SVC_FAKE_NOW pins it).
	Now func() time.Time
	// Standalone writes purls where BOM-Links into the scan's SBOM would
	// go: scand scan publishes no SBOM for them to point into.
	Standalone bool
}

// VerdictStatuses are the verdicts a VEX export writes a statement for.
var VerdictStatuses = []string{"false_positive", "accepted_risk", "wont_fix", "fixed", "triaged"}

// Export writes the VEX document (format vex.FormatOpenVEX or
// vex.FormatCycloneDX) of the verdicts on completed scan sc's dependency
// findings, plus a fixed statement for each finding with a verdict that
// the target's previous completed scan reported and sc, having run that
// scanner fully, no longer does. scope names what the document is of
// ("scan" or "target") for its id. It returns the statements written.
func Export(ctx context.Context, st *store.Store, w io.Writer, format string, sc store.Scan, scope string, o Options) (int, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	at := now().UTC().Truncate(time.Second)
	purls, bomLink, err := scanPURLs(ctx, st, sc)
	if err != nil {
		return 0, err
	}
	h := vex.Header{ID: vex.DocumentID(o.Author, scope, sc.ID, format, at.Format(time.RFC3339)), Author: o.Author, Timestamp: at,
		ToolVersion: o.ToolVersion}
	if format == vex.FormatCycloneDX && !o.Standalone {
		h.BOMLink = bomLink
	}
	vw, err := vex.NewWriter(w, format, h)
	if err != nil {
		return 0, err
	}
	for row, err := range st.FindingRows(ctx, sc, store.FindingQuery{ScanTypes: []string{"dependency"}}) {
		if err != nil {
			return vw.Count(), err
		}
		if row.State == nil || !slices.Contains(VerdictStatuses, row.State.Status) {
			continue
		}
		if err := writeRow(vw, row, purls, false, at); err != nil {
			return vw.Count(), err
		}
	}
	if err := writeDisappeared(ctx, st, vw, sc, purls); err != nil {
		return vw.Count(), err
	}
	return vw.Count(), vw.Close()
}

func writeRow(vw *vex.Writer, row store.FindingRow, purls map[string]string, gone bool, at time.Time) error {
	fw, err := row.Decode()
	if err != nil {
		return err
	}
	v := vex.Verdict{Status: row.State.Status, Note: row.State.Note, Justification: row.State.Justification,
		UpdatedBy: row.State.UpdatedBy, UpdatedAt: row.State.UpdatedAt, ExpiresAt: row.State.ExpiresAt}
	stmt, ok := vex.StatementOf(fw.Finding, purlOf(fw.Finding, purls), v, gone, at)
	if !ok {
		return nil
	}
	return vw.Write(stmt)
}

// writeDisappeared writes the fixed statements: findings with a verdict
// in the target's previous completed scan that sc no longer reports,
// leaving out every scanner that did not run fully in both (nothing that
// failed to look is ever called fixed).
func writeDisappeared(ctx context.Context, st *store.Store, vw *vex.Writer, sc store.Scan, purls map[string]string) error {
	t, err := st.TargetOfScan(ctx, sc.ID)
	if err != nil {
		return nil // a scan without a target has no predecessor
	}
	prev, err := st.PreviousCompletedScanOfTarget(ctx, t.ID, sc.ID)
	if err != nil {
		return nil
	}
	excluded, _ := finding.NotComparedScanners(prev.Coverage, sc.Coverage)
	at := sc.StartedAt
	if sc.CompletedAt != nil {
		at = *sc.CompletedAt
	}
	for cr, err := range st.Compare(ctx, prev, sc) {
		if err != nil {
			return err
		}
		if cr.Set == store.CompareUnchanged {
			break
		}
		if cr.Set != store.CompareFixed || cr.State == nil || !slices.Contains(VerdictStatuses, cr.State.Status) {
			continue
		}
		fw, err := cr.Decode()
		if err != nil {
			return err
		}
		if fw.ScanType != "dependency" || slices.Contains(excluded, fw.Scanner) || !slices.Contains(sc.ScannersRun, fw.Scanner) {
			continue
		}
		if err := writeRow(vw, cr.FindingRow, purls, true, at); err != nil {
			return err
		}
	}
	return nil
}

// scanPURLs maps the scan's captured components by package key and
// version to their purls (an OS package's carries its distribution
// qualifiers, which a finding's metadata lacks), and returns the BOM-Link
// of the scan's CycloneDX SBOM (GET /scans/{id}/sbom) when it lists any
// component.
func scanPURLs(ctx context.Context, st *store.Store, sc store.Scan) (map[string]string, string, error) {
	raw, err := st.ScanComponents(ctx, sc.ID)
	if err != nil {
		return nil, "", err
	}
	comps, err := components.DecodeCapture(raw)
	if err != nil || len(comps) == 0 {
		return map[string]string{}, "", nil
	}
	out := make(map[string]string, len(comps))
	for _, c := range comps {
		p, err := vex.ParsePURL(c.PURL)
		if err != nil || c.Version == "" {
			continue
		}
		k := p.Key() + "@" + vex.NormalizeVersion(c.Version)
		if _, dup := out[k]; !dup {
			out[k] = c.PURL
		}
	}
	serial := sbom.CycloneDXSerial(sbom.Meta{ScanID: sc.ID}, comps)
	return out, "urn:cdx:" + strings.TrimPrefix(serial, "urn:uuid:") + "/1", nil
}

func purlOf(f finding.Finding, purls map[string]string) string {
	if key, version, ok := vex.FindingKey(f); ok {
		if p, ok := purls[key+"@"+version]; ok {
			return p
		}
	}
	return vex.PURLOf(f)
}

// Actor is the updated_by of a verdict a document's statement set:
// "vex:" and the author, without control characters, at most 200
// characters.
func Actor(author string) string {
	a := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.TrimSpace(author))
	for utf8.RuneCountInString(a) > 195 {
		_, n := utf8.DecodeLastRuneInString(a)
		a = a[:len(a)-n]
	}
	return "vex:" + a
}

// ImportResult is what an import did.
type ImportResult struct {
	Document vexdb.Document `json:"document"`
	// Statement counts: applied set a verdict on at least one finding
	// now; kept_for_future are not_affected statements that matched no
	// finding they could set now and wait for later scans; recorded_only
	// are the other statuses, kept and shown, never applied.
	Applied       int `json:"applied"`
	KeptForFuture int `json:"kept_for_future"`
	RecordedOnly  int `json:"recorded_only"`
	// Finding counts: marked false_positive now; left with the verdict a
	// reviewer set (a document never overrides one).
	FindingsMarked      int      `json:"findings_marked"`
	FindingsKeptVerdict int      `json:"findings_kept_reviewer_verdict"`
	Warnings            []string `json:"warnings"`
	AuditID             int64    `json:"audit_id,omitempty"`
}

// Import keeps doc's statements and sets its not_affected statements as
// false_positive verdicts (actor vex:<author>, note the justification and
// impact statement) on the matching dependency findings of every target's
// latest completed scan, in one transaction with rec (the request's one
// audit record, whose changes it fills in).
func Import(ctx context.Context, st *store.Store, doc vex.Document, importedBy string, rec audit.Record) (ImportResult, error) {
	res := ImportResult{Warnings: []string{}}
	rows := make([]vexdb.NewStatement, len(doc.Statements))
	for i, s := range doc.Statements {
		rows[i] = vexdb.NewStatement{Statement: vexdb.Statement{Vulnerability: s.Vulnerability, Aliases: s.Aliases, Products: s.Products,
			Status: s.Status, Justification: s.Justification, ImpactStatement: s.ImpactStatement, ActionStatement: s.ActionStatement}}
		if s.Status != vex.NotAffected {
			continue
		}
		for _, k := range vex.ProductKeys(s) {
			rows[i].Keys = append(rows[i].Keys, vexdb.ProductKey{Key: k.Key, Version: k.Version})
		}
		if len(rows[i].Keys) == 0 && len(res.Warnings) < 50 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("statement %d (%s) names no product by package URL: kept, but it can never match a finding", i, s.Vulnerability))
		}
	}
	d := vexdb.Document{DocID: doc.ID, Format: doc.Format, Author: doc.Author, IssuedAt: doc.Timestamp, ImportedBy: importedBy}
	docSeq, seqs, err := st.StoreVEXDocument(ctx, d, rows)
	if err != nil {
		return res, err
	}
	d.Seq, d.Statements = docSeq, len(rows)
	res.Document = d
	actor := Actor(doc.Author)
	x := vex.NewIndex(doc.Statements)
	marks := map[int][]string{}
	seen := map[string]bool{}
	latest, err := st.LatestScanSeqs(ctx)
	if err != nil {
		return res, err
	}
	for _, seq := range latest {
		err := st.ScanDependencyFindings(ctx, seq, func(df vexdb.DependencyFinding) bool {
			if seen[df.Fingerprint] {
				return true
			}
			m, order, ok := x.Match(asFinding(df))
			if !ok || m.Status != vex.NotAffected {
				return true
			}
			seen[df.Fingerprint] = true
			switch {
			case !openToVEX(df):
				res.FindingsKeptVerdict++
			case df.Status == "false_positive" && df.UpdatedBy == actor:
				// set by this author before; nothing new to record
			default:
				marks[order-1] = append(marks[order-1], df.Fingerprint)
			}
			return true
		})
		if err != nil {
			return res, err
		}
	}
	groups, idx := groupsOf(doc.Statements, marks, actor)
	matched, recorded := 0, 0
	for _, fps := range marks {
		matched += len(fps)
	}
	for _, s := range doc.Statements {
		if s.Status != vex.NotAffected {
			recorded++
		}
	}
	rec.Changes = audit.Changes{"document_id": {After: doc.ID}, "format": {After: doc.Format}, "author": {After: doc.Author},
		"statements": {After: len(rows)}, "vex_document": {After: docSeq}, "findings_matched": {After: matched},
		"recorded_only": {After: recorded}, "findings_kept_reviewer_verdict": {After: res.FindingsKeptVerdict}}
	groupStatements := make([]int64, len(groups))
	for gi := range groups {
		groupStatements[gi] = seqs[idx[gi]]
	}
	set, stored, err := st.SetVEXVerdicts(ctx, store.VEXVerdicts{Groups: groups, Statements: groupStatements, Audit: &rec})
	if err != nil {
		return res, err
	}
	applied := map[int64]int{}
	for gi, n := range set {
		res.FindingsMarked += n
		applied[groupStatements[gi]] += n
	}
	for i, s := range doc.Statements {
		switch {
		case s.Status != vex.NotAffected:
			res.RecordedOnly++
		case applied[seqs[i]] > 0:
			res.Applied++
		default:
			res.KeptForFuture++
		}
	}
	if stored != nil {
		res.AuditID = stored.Seq
	}
	return res, nil
}

// groupsOf turns the fingerprints marked per statement into verdict
// groups, and says which statement each group is of.
func groupsOf(stmts []vex.Statement, marks map[int][]string, actor string) ([]store.VerdictGroup, []int) {
	var groups []store.VerdictGroup
	var idx []int
	for i := range stmts {
		fps := marks[i]
		if len(fps) == 0 {
			continue
		}
		for len(fps) > 0 {
			n := min(len(fps), store.MaxBulkTriage)
			groups = append(groups, store.VerdictGroup{Fingerprints: fps[:n], OverVEXOnly: true,
				State: store.TriageState{Status: "false_positive", Note: vex.VerdictNote(stmts[i]), UpdatedBy: actor, Justification: stmts[i].Justification}})
			idx = append(idx, i)
			fps = fps[n:]
		}
	}
	return groups, idx
}

// openToVEX: no verdict, new, triaged, or set by a VEX statement before.
func openToVEX(df vexdb.DependencyFinding) bool {
	return df.Status == "" || df.Status == "new" || df.Status == "triaged" || strings.HasPrefix(df.UpdatedBy, "vex:")
}

func asFinding(df vexdb.DependencyFinding) finding.Finding {
	aliases := make([]any, len(df.Aliases))
	for i, a := range df.Aliases {
		aliases[i] = a
	}
	return finding.Finding{RuleID: df.RuleID, ScanType: "dependency", Metadata: map[string]any{finding.MetaPackage: df.Package,
		finding.MetaVersion: df.Version, "ecosystem": df.Ecosystem, finding.MetaAliases: aliases}}
}

// Planner returns the store's VEX planner: the kept not_affected
// statements matched against a scan about to complete. A failure is
// logged and the scan completes without them (a side effect never fails
// a scan). A cancelled ctx stops it: the scan cannot complete then.
func Planner(st *store.Store, log *slog.Logger) func(ctx context.Context, sc store.Scan) store.VEXVerdicts {
	return func(ctx context.Context, sc store.Scan) store.VEXVerdicts {
		v, err := Plan(ctx, st, sc)
		if err != nil && ctx.Err() == nil && log != nil {
			log.Error("stored VEX statements not applied to the scan", "scan_id", sc.ID, "error", err.Error())
		}
		return v
	}
}

// Plan matches the kept not_affected statements against a scan's
// dependency findings: false_positive verdicts on the matching ones (the
// newest statement about a finding wins), with one audit record by the
// system actor "vex". The store sets them as the scan completes.
func Plan(ctx context.Context, st *store.Store, sc store.Scan) (store.VEXVerdicts, error) {
	has, err := st.HasVEXProducts(ctx)
	if err != nil || !has {
		return store.VEXVerdicts{}, err
	}
	// Each package's statements are looked up once, while the scan's
	// findings stream past: only the matches are kept.
	cache := map[string][]vexdb.Statement{}
	marks := map[int64][]string{}
	byStatement := map[int64]vexdb.Statement{}
	var lookupErr error
	err = st.ScanDependencyFindings(ctx, sc.Seq, func(df vexdb.DependencyFinding) bool {
		if !openToVEX(df) {
			return true
		}
		f := asFinding(df)
		key, version, ok := vex.FindingKey(f)
		a, isAdv := finding.AdvisoryOf(f)
		if !ok || !isAdv {
			return true
		}
		ck := key + "@" + version
		cands, cached := cache[ck]
		if !cached {
			if cands, lookupErr = st.VEXStatementsForPackage(ctx, key, version); lookupErr != nil {
				return false
			}
			cache[ck] = cands
		}
		for _, c := range cands { // newest first
			if !vex.MatchesIDs(vex.Statement{Vulnerability: c.Vulnerability, Aliases: c.Aliases}, a.IDs) {
				continue
			}
			if !(df.Status == "false_positive" && df.UpdatedBy == Actor(c.Author)) {
				marks[c.Seq] = append(marks[c.Seq], df.Fingerprint)
				byStatement[c.Seq] = c
			}
			break
		}
		return true
	})
	if err == nil {
		err = lookupErr
	}
	if err != nil || len(marks) == 0 {
		return store.VEXVerdicts{}, err
	}
	var v store.VEXVerdicts
	matched := 0
	for seq, fps := range marks {
		v.Statements = append(v.Statements, seq)
		matched += len(fps)
	}
	slices.Sort(v.Statements)
	for _, seq := range v.Statements {
		c := byStatement[seq]
		s := vex.Statement{Justification: c.Justification, ImpactStatement: c.ImpactStatement}
		v.Groups = append(v.Groups, store.VerdictGroup{Fingerprints: marks[seq], OverVEXOnly: true, State: store.TriageState{Status: "false_positive",
			Note: vex.VerdictNote(s), UpdatedBy: Actor(c.Author), Justification: c.Justification}})
	}
	v.Audit = &audit.Record{Actor: audit.System("vex"), Action: "finding.vex_applied", ObjectType: "scan", ObjectID: sc.ID,
		Changes: audit.Changes{"statements": {After: v.Statements}, "findings_matched": {After: matched}}}
	return v, nil
}
