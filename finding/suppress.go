package finding

import (
	"strings"
	"unicode/utf8"
)

// maxSuppressReason caps the free-text reason copied from source into
// metadata.suppressed_by: it comes from the scanned tree, so it is bounded
// like any other untrusted input.
const maxSuppressReason = 200

// SuppressedBy reports whether an inline suppression comment covers a
// finding of rule ruleID, and returns the value for metadata.suppressed_by
// ("" when not suppressed), e.g. "inline: scand:ignore aws-access-key-id".
//
// Grammar (marker matched case-insensitively, as a whole word):
//
//	scand:ignore                      every rule
//	scand:ignore rule1,rule2          only these rules (ids compared case-insensitively)
//	scand:ignore rule1 -- reason      "--" after whitespace starts a free-text reason
//	scand:ignore -- reason            every rule, with a reason
//
// The rule list ends at the reason, at the end of the line, at a comment
// closer ("*/", "-->") or at the next directive. Rule ids are separated by commas and/or whitespace,
// so unexplained trailing words are read as rule ids and never widen a
// suppression to every rule.
//
// The directive may sit on the finding's line (line), or on the line above
// (prevLine) when that line holds nothing but the comment. A directive
// trailing code on the line above covers that code only: otherwise
// "a := key1 // scand:ignore" would silently also hide a finding on the next
// line.
//
// The directive is not required to be inside a comment of the file's
// language; whoever can edit the scanned tree can suppress its findings
// anyway, and suppressed findings stay visible, flagged, in the results.
func SuppressedBy(ruleID, line, prevLine string) string {
	if v := matchDirective(ruleID, line, false); v != "" {
		return v
	}
	return matchDirective(ruleID, prevLine, true)
}

// IsSuppressed reports whether f carries a suppression: metadata
// "suppressed_by" present, non-nil and not the empty string. Suppressed
// findings are kept and reported but excluded from the risk score and from
// compliance coverage.
func IsSuppressed(f Finding) bool {
	v, ok := f.Metadata["suppressed_by"]
	if !ok || v == nil {
		return false
	}
	if s, isString := v.(string); isString {
		return s != ""
	}
	return true
}

func matchDirective(ruleID, text string, standaloneOnly bool) string {
	for from := 0; from < len(text); {
		at := indexASCIIFold(text[from:], suppressMarker)
		if at < 0 {
			return ""
		}
		at += from
		end := at + len(suppressMarker)
		from = end
		if at > 0 && isWordByte(text[at-1]) {
			continue
		}
		lineStart := strings.LastIndexByte(text[:at], '\n') + 1
		lineEnd := len(text)
		if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
			lineEnd = end + nl
		}
		rest := text[end:lineEnd]
		if rest != "" && !isSpaceByte(rest[0]) && !strings.HasPrefix(rest, "*/") && !strings.HasPrefix(rest, "-->") {
			continue // "scand:ignored", "scand:ignore-x": not our marker
		}
		if standaloneOnly && !onlyCommentLeader(text[lineStart:at]) {
			continue
		}
		rules, reason := parseDirective(rest)
		if !directiveCovers(rules, ruleID) {
			continue
		}
		var b strings.Builder
		b.WriteString("inline: ")
		b.WriteString(suppressMarker)
		if len(rules) > 0 {
			b.WriteByte(' ')
			b.WriteString(strings.Join(rules, ","))
		}
		if reason != "" {
			b.WriteString(" -- ")
			b.WriteString(reason)
		}
		return b.String()
	}
	return ""
}

// parseDirective splits what follows the marker into rule ids and a reason.
func parseDirective(rest string) (rules []string, reason string) {
	for _, closer := range [...]string{"*/", "-->"} {
		if i := strings.Index(rest, closer); i >= 0 {
			rest = rest[:i]
		}
	}
	if i := indexASCIIFold(rest, suppressMarker); i >= 0 {
		rest = rest[:i] // the next directive is parsed on its own
	}
	rest = strings.TrimSpace(rest)
	rulePart := rest
	if strings.HasPrefix(rest, "--") {
		rulePart, reason = "", rest[2:]
	} else if i := indexReasonDash(rest); i >= 0 {
		rulePart, reason = rest[:i], rest[i+3:]
	}
	rules = strings.FieldsFunc(rulePart, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f'
	})
	return rules, capReason(strings.TrimSpace(reason))
}

// indexReasonDash finds the "--" that starts a reason: it must follow
// whitespace, so a rule id containing "--" stays whole.
func indexReasonDash(s string) int {
	for i := 0; i+3 <= len(s); i++ {
		if isSpaceByte(s[i]) && s[i+1] == '-' && s[i+2] == '-' {
			return i
		}
	}
	return -1
}

func directiveCovers(rules []string, ruleID string) bool {
	if len(rules) == 0 {
		return true
	}
	for _, r := range rules {
		if ruleID != "" && strings.EqualFold(r, ruleID) {
			return true
		}
	}
	return false
}

// onlyCommentLeader reports whether s is whitespace and comment punctuation
// only ("//", "#", "/*", "<!--", "--", ";", "%", "'", "*").
func onlyCommentLeader(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\r', '\v', '\f', '/', '*', '#', '-', '<', '!', ';', '%', '\'':
		default:
			return false
		}
	}
	return true
}

func capReason(s string) string {
	if len(s) <= maxSuppressReason {
		return s
	}
	cut := maxSuppressReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// indexASCIIFold is strings.Index with ASCII case folding; needle must be
// lower-case ASCII. It avoids lower-casing (and allocating) every scanned
// line just to look for the marker.
func indexASCIIFold(s, needle string) int {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 != needle[0] {
			continue
		}
		j := 1
		for ; j < n; j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				break
			}
		}
		if j == n {
			return i
		}
	}
	return -1
}
