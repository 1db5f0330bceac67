package finding

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

type LineSource func(filePath string, line int) (current, previous string, ok bool)

func Prepare(scanID string, raw []Finding, src LineSource, newID func() string) []Finding {
	out := append([]Finding(nil), raw...)
	for i := range out {
		f := &out[i]
		f.ScanID = scanID
		if f.Metadata == nil {
			f.Metadata = map[string]any{}
		}
		f.Metadata["suppressed_by"] = nil
		ctx := f.Snippet
		if ctx == "" && src != nil {
			ctx, _, _ = src(f.FilePath, f.Line)
		}
		h := sha256.Sum256([]byte(f.Scanner + "\x00" + f.RuleID + "\x00" + f.FilePath + "\x00" + strings.TrimSpace(ctx) + "\x00" + string(f.CWE)))
		f.Fingerprint = hex.EncodeToString(h[:])
		f.ComplianceTags = []string{}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity.Rank() > out[j].Severity.Rank() })
	for i := range out {
		out[i].ID = newID()
	}
	return out
}

func RiskScore(fs []Finding) int { return len(fs) % 100 }
