package hook

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"scand/sse"
)

type chatProvider int

const (
	providerGeneric chatProvider = iota
	providerSlack
	providerDiscord
)

// chatProviderOf recognises Slack and Discord incoming-webhook addresses
// from the parsed URL: the exact host and a path prefix. A substring test
// would let "https://evil.example/hooks.slack.com/services/" or
// "hooks.slack.com.evil.example" change the body shape.
func chatProviderOf(u *url.URL) chatProvider {
	if u == nil {
		return providerGeneric
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	path := u.EscapedPath()
	switch {
	case host == "hooks.slack.com" && strings.HasPrefix(path, "/services/"):
		return providerSlack
	case (host == "discord.com" || host == "discordapp.com") && strings.HasPrefix(path, "/api/webhooks/"):
		return providerDiscord
	}
	return providerGeneric
}

// chatFacts is the union of the payload fields a chat message shows.
type chatFacts struct {
	ScanID         string              `json:"scan_id"`
	TargetPath     string              `json:"target_path"`
	FindingsCount  int                 `json:"findings_count"`
	RiskScore      int                 `json:"risk_score"`
	SeverityCounts *sse.SeverityCounts `json:"severity_counts"`
	Name           string              `json:"name"`
	Error          string              `json:"error"`
	WebhookID      string              `json:"webhook_id"`
	Message        string              `json:"message"`
	New            *sse.SeverityCounts `json:"new"`
	FixedCount     int                 `json:"fixed_count"`
	PreviousScanID string              `json:"previous_scan_id"`
	// finding.sla_breached
	TargetName     string             `json:"target_name"`
	Count          int                `json:"count"`
	BySeverity     sse.SeverityCounts `json:"by_severity"`
	Partial        bool               `json:"partial"`
	PartialReasons []string           `json:"partial_reasons"`
	// advisory.new_matches
	ReevaluationID string `json:"reevaluation_id"`
	TargetsCount   int    `json:"targets_count"`
}

// chatField is one labelled value; Code values are identifiers or paths.
type chatField struct {
	Label string
	Value string
	Code  bool
}

// chatSummary is the provider-neutral content of a chat message.
type chatSummary struct {
	Title    string
	Detail   string // free text (an error or a test message), may be empty
	Fields   []chatField
	Severity string // drives the colour; "" for neutral
	Subject  string // what the event is about (a target path), for one-line previews
}

func summarize(m message) chatSummary {
	var f chatFacts
	_ = json.Unmarshal(m.Data, &f) // a payload of another shape still gets a title
	switch m.Event {
	case sse.ScanComplete:
		s := chatSummary{Severity: "none"}
		switch f.FindingsCount {
		case 0:
			s.Title = "Scan completed: no findings"
		case 1:
			s.Title = "Scan completed: 1 finding"
		default:
			s.Title = "Scan completed: " + strconv.Itoa(f.FindingsCount) + " findings"
		}
		if f.SeverityCounts != nil && f.FindingsCount > 0 {
			s.Severity = f.SeverityCounts.Highest()
			if s.Severity != "" {
				s.Title += ", highest " + s.Severity
			}
		}
		s.Subject = f.TargetPath
		if f.Partial {
			// A partial scan is never announced as a clean one.
			s.Title += " (partial)"
			s.Detail = "Not fully examined: " + strings.Join(f.PartialReasons, "; ")
		}
		s.Fields = append(s.Fields, chatField{"Target", f.TargetPath, true}, chatField{"Risk score", strconv.Itoa(f.RiskScore), false})
		if f.SeverityCounts != nil && f.FindingsCount > 0 {
			s.Fields = append(s.Fields, chatField{"Severities", f.SeverityCounts.Breakdown(), false})
		}
		s.Fields = append(s.Fields, chatField{"Scan", f.ScanID, true})
		return s
	case sse.ScanFailed:
		return chatSummary{Title: "Scan failed", Detail: f.Error, Severity: "high", Subject: f.TargetPath,
			Fields: []chatField{{"Target", f.TargetPath, true}, {"Scan", f.ScanID, true}}}
	case sse.ScannerFailed:
		return chatSummary{Title: "Scanner " + f.Name + " failed", Detail: f.Error, Severity: "medium",
			Fields: []chatField{{"Scanner", f.Name, true}, {"Scan", f.ScanID, true}}}
	case sse.WebhookTest:
		return chatSummary{Title: "Test delivery from scand", Detail: f.Message,
			Fields: []chatField{{"Webhook", f.WebhookID, true}}}
	case sse.ScanNewFindings:
		var counts sse.SeverityCounts
		if f.New != nil {
			counts = *f.New
		}
		total := counts.Critical + counts.High + counts.Medium + counts.Low + counts.Info
		s := chatSummary{Title: "New findings since the previous scan", Severity: counts.Highest(), Subject: f.TargetPath}
		if total == 1 {
			s.Title = "1 new finding since the previous scan"
		} else if total > 1 {
			s.Title = strconv.Itoa(total) + " new findings since the previous scan"
		}
		if s.Severity == "" {
			s.Severity = "none"
		} else {
			s.Title += ", highest " + s.Severity
		}
		s.Fields = append(s.Fields, chatField{"Target", f.TargetPath, true}, chatField{"New", counts.Breakdown(), false},
			chatField{"No longer reported", strconv.Itoa(f.FixedCount), false}, chatField{"Scan", f.ScanID, true},
			chatField{"Previous scan", f.PreviousScanID, true})
		return s
	}
	if m.Event == sse.FindingSLABreached {
		title := strconv.Itoa(f.Count) + " findings past their fix deadline"
		if f.Count == 1 {
			title = "1 finding past its fix deadline"
		}
		return chatSummary{Title: title, Severity: f.BySeverity.Highest(), Subject: f.TargetName,
			Fields: []chatField{{"Target", f.TargetName, true}, {"Overdue", f.BySeverity.Breakdown(), false}, {"Scan", f.ScanID, true}}}
	}
	if m.Event == sse.AdvisoryNewMatches {
		return chatSummary{Title: strconv.Itoa(f.Count) + " newly matched advisories in " + strconv.Itoa(f.TargetsCount) + " targets",
			Severity: f.BySeverity.Highest(), Fields: []chatField{{"Severities", f.BySeverity.Breakdown(), false}, {"Re-evaluation", f.ReevaluationID, true}}}
	}
	return chatSummary{Title: m.Event, Detail: string(m.Data)}
}

// truncate cuts s to at most n runes, marking the cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func footer(m message) string {
	return "scand · " + m.Event + " · delivery " + m.DeliveryID
}

// Slack: https://api.slack.com/reference/block-kit/blocks

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackPayload struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

// slackEscape applies Slack's three control-character escapes, which also
// stops a path or error text from smuggling in a <!channel> mention.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func slackCode(s string) string {
	if s == "" {
		return "-"
	}
	return "`" + strings.ReplaceAll(slackEscape(s), "`", "'") + "`"
}

func slackBody(m message) ([]byte, error) {
	s := summarize(m)
	preview := "[scand] " + s.Title
	if s.Subject != "" {
		preview += " in " + s.Subject
	}
	p := slackPayload{Text: slackEscape(truncate(preview, 300))}
	p.Blocks = append(p.Blocks, slackBlock{Type: "header", Text: &slackText{"plain_text", truncate(s.Title, 150)}})
	if len(s.Fields) > 0 {
		b := slackBlock{Type: "section"}
		for _, f := range s.Fields {
			v := slackEscape(f.Value)
			if f.Code {
				v = slackCode(f.Value)
			}
			b.Fields = append(b.Fields, slackText{"mrkdwn", truncate("*"+f.Label+"*\n"+v, 2000)})
		}
		p.Blocks = append(p.Blocks, b)
	}
	if s.Detail != "" {
		p.Blocks = append(p.Blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", truncate("```"+strings.ReplaceAll(slackEscape(s.Detail), "```", "'''")+"```", 3000)}})
	}
	p.Blocks = append(p.Blocks, slackBlock{Type: "context", Elements: []slackText{{"mrkdwn", slackEscape(footer(m))}}})
	return compactJSON(p)
}

// Discord: https://discord.com/developers/docs/resources/webhook#execute-webhook

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type discordFooter struct {
	Text string `json:"text"`
}

type discordEmbed struct {
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	Color       int            `json:"color"`
	Fields      []discordField `json:"fields,omitempty"`
	Footer      discordFooter  `json:"footer"`
	Timestamp   string         `json:"timestamp"`
}

type discordAllowedMentions struct {
	Parse []string `json:"parse"`
}

type discordPayload struct {
	Username string         `json:"username"`
	Embeds   []discordEmbed `json:"embeds"`
	// An empty parse list turns every @everyone or <@id> in scanned paths
	// or error texts into inert text.
	AllowedMentions discordAllowedMentions `json:"allowed_mentions"`
}

var discordColors = map[string]int{
	"critical": 0x8E24AA,
	"high":     0xD32F2F,
	"medium":   0xF57C00,
	"low":      0xFBC02D,
	"info":     0x1E88E5,
	"none":     0x388E3C,
	"":         0x546E7A,
}

func discordEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`, ">", `\>`, "[", `\[`, "]", `\]`, "#", `\#`).Replace(s)
}

func discordBody(m message) ([]byte, error) {
	s := summarize(m)
	e := discordEmbed{
		Title:     truncate(discordEscape(s.Title), 256),
		Color:     discordColors[s.Severity],
		Footer:    discordFooter{Text: truncate(footer(m), 2048)},
		Timestamp: m.DeliveredAt.UTC().Format(time.RFC3339),
	}
	if s.Detail != "" {
		e.Description = truncate(discordEscape(s.Detail), 4096)
	}
	for _, f := range s.Fields {
		v := f.Value
		if v == "" {
			v = "-"
		}
		e.Fields = append(e.Fields, discordField{Name: f.Label, Value: truncate(discordEscape(v), 1024), Inline: !f.Code || len(v) <= 40})
	}
	return compactJSON(discordPayload{Username: "scand", Embeds: []discordEmbed{e}, AllowedMentions: discordAllowedMentions{Parse: []string{}}})
}

// String makes a provider readable in logs and test failures.
func (p chatProvider) String() string {
	switch p {
	case providerSlack:
		return "slack"
	case providerDiscord:
		return "discord"
	}
	return "generic"
}
