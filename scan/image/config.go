package image

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"scand/finding"
	"scand/scan"
	"scand/scan/ospkg"
	"scand/scan/rules"
	"scand/scan/secrets"
)

// The image-config scanner (scan type iac) reads the image's
// configuration, which no file of the unpacked root holds. Its findings'
// file_path names the configuration field as a JSON pointer after
// "config:" (config:/config/User, config:/config/ExposedPorts,
// config:/config/Env, config:/history); line is the 1-based position in
// Env or history, 0 for the others.
//
//	IMG001 root-user                medium   CWE-250   User unset, root or uid 0: every process in the container runs as root
//	IMG002 exposed-port             info     -         a port the image exposes (one finding per port)
//	IMG003 exposed-admin-port       medium   CWE-1327  an exposed remote-administration or cleartext port (ssh 22, telnet 23, ftp 21, Docker API 2375, RDP 3389, VNC 5900, WinRM 5985)
//	IMG004 env-secret               (rule's) (rule's)  an ENV value the secrets rules recognise
//	IMG005 remote-script-to-shell   medium   CWE-494   a build step pipes curl/wget output into a shell
//	IMG006 history-secret           (rule's) (rule's)  a secret in a build step (a build ARG, a RUN line), other than an ENV value already reported
//	IMG007 add-from-url             low      CWE-494   ADD of a remote URL without --checksum
//	IMG008 os-packages-not-read     info     -         a package database scand cannot read (RPM's Berkeley DB or NDB format): its packages are missing from the SBOM
var configRules = rules.Table{Scanner: "image-config", ScanType: scan.TypeIaC, Rules: []rules.Rule{
	rules.New("IMG001", "root-user", finding.Medium, "CWE-250", "Image runs as root",
		"Create an unprivileged user in the image and switch to it with USER (for example USER 10001), giving it write access only where it needs it."),
	rules.New("IMG002", "exposed-port", finding.Info, "", "Image exposes a port",
		"Check that the service on this port is meant to be reachable, and publish only the ports you need when the container runs."),
	rules.New("IMG003", "exposed-admin-port", finding.Medium, "CWE-1327", "Image exposes a remote-administration or cleartext port",
		"Do not run SSH, telnet, FTP, VNC, RDP or an unauthenticated Docker API in an application image; administer containers with docker exec or kubectl exec."),
	rules.New("IMG004", "env-secret", finding.High, "CWE-798", "Secret in the image's ENV",
		"Pass secrets at run time (a mounted file, a secret store, an orchestrator secret) instead of baking them into the image, and rotate this one: docker inspect and every copy of the image show it."),
	rules.New("IMG005", "remote-script-to-shell", finding.Medium, "CWE-494", "Image build pipes a downloaded script into a shell",
		"Download the script, verify its checksum or signature, then run it, or install the software from a package repository."),
	rules.New("IMG006", "history-secret", finding.High, "CWE-798", "Secret in the image's build history",
		"Use build secrets (RUN --mount=type=secret) instead of build arguments or inline values: the image history keeps every ARG value and RUN line. Rotate this one."),
	rules.New("IMG007", "add-from-url", finding.Low, "CWE-494", "Image build adds a file from a URL without a checksum",
		"Use ADD --checksum=sha256:<digest> <url>, or download and verify the file in a RUN step."),
	rules.New("IMG008", "os-packages-not-read", finding.Info, "", "Operating-system packages not read",
		"The SBOM lacks these packages; Trivy's image scan (scan type dependency) still reads them for vulnerabilities. Rebuild on a base image whose package database scand reads to have them listed."),
}}

// adminPorts are the ports IMG003 names.
var adminPorts = map[int]string{21: "FTP", 22: "SSH", 23: "telnet", 2375: "the unauthenticated Docker API", 3389: "RDP", 5900: "VNC", 5985: "WinRM over HTTP"}

var (
	pipeToShellRe = regexp.MustCompile(`(?i)\b(curl|wget)\b[^|;&]*\|\s*(sudo\s+(-\S+\s+)*)?(ba|da|z|k|a)?sh\b`)
	addURLRe      = regexp.MustCompile(`(?i)\bADD\b(\s+--\S+)*\s+https?://`)
)

type configScanner struct {
	scan.Builtin
	img     *image
	root    string
	mapPath func(string) string
	secrets *secrets.Content
}

func newConfigScanner(img *image, root string, mapPath func(string) string, s *secrets.Content) scan.Scanner {
	return &configScanner{Builtin: scan.NewBuiltin("image-config", scan.TypeIaC), img: img, root: root, mapPath: mapPath, secrets: s}
}

func (c *configScanner) Scan(ctx context.Context, _ scan.Target) ([]finding.Finding, error) {
	cfg := &c.img.config
	out := []finding.Finding{}
	switch user := strings.TrimSpace(cfg.Config.User); {
	case user == "":
		out = append(out, configRules.Finding("IMG001", "config:/config/User", 0,
			"The image sets no USER, so its processes run as root.", "USER (unset)", nil))
	case isRootUser(user):
		out = append(out, configRules.Finding("IMG001", "config:/config/User", 0,
			"The image's USER is "+strconv.Quote(user)+".", "USER "+user, map[string]any{"user": user}))
	}
	ports := make([]string, 0, len(cfg.Config.ExposedPorts))
	for p := range cfg.Config.ExposedPorts {
		ports = append(ports, p)
	}
	sort.Strings(ports)
	for _, p := range ports {
		num, proto, _ := strings.Cut(p, "/")
		if proto == "" {
			proto = "tcp"
		}
		n, _ := strconv.Atoi(num)
		meta := map[string]any{"port": n, "protocol": proto}
		if svc, ok := adminPorts[n]; ok && proto == "tcp" {
			out = append(out, configRules.Finding("IMG003", "config:/config/ExposedPorts", 0,
				fmt.Sprintf("The image exposes %s (%s).", p, svc), "EXPOSE "+p, meta))
			continue
		}
		out = append(out, configRules.Finding("IMG002", "config:/config/ExposedPorts", 0,
			"The image exposes "+p+".", "EXPOSE "+p, meta))
	}
	envValues := map[[32]byte]bool{}
	if len(cfg.Config.Env) > 0 {
		for _, m := range c.secrets.Scan(joinLines(cfg.Config.Env), ".env") {
			envValues[m.Value] = true
			name, _, _ := strings.Cut(lineAt(cfg.Config.Env, m.Finding.Line), "=")
			out = append(out, c.secretFinding("IMG004", "config:/config/Env", m,
				"ENV "+name+" holds a value the secrets rule "+m.Finding.RuleID+" recognises ("+m.Finding.Title+")."))
		}
	}
	var history []string
	for _, h := range cfg.History {
		history = append(history, h.CreatedBy)
	}
	for i, cmd := range history {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line := i + 1
		snippet := cmd
		if len(snippet) > 300 {
			snippet = snippet[:300] + "…"
		}
		if m := pipeToShellRe.FindString(cmd); m != "" {
			out = append(out, configRules.Finding("IMG005", "config:/history", line,
				"Build step "+strconv.Itoa(line)+" runs "+strconv.Quote(m)+".", redactedHistory(c.secrets, cmd, snippet), nil))
		}
		if addURLRe.MatchString(cmd) && !strings.Contains(cmd, "--checksum") {
			out = append(out, configRules.Finding("IMG007", "config:/history", line,
				"Build step "+strconv.Itoa(line)+" adds a remote file.", redactedHistory(c.secrets, cmd, snippet), nil))
		}
	}
	if len(history) > 0 {
		for _, m := range c.secrets.Scan(joinLines(history), ".env") {
			if envValues[m.Value] {
				continue // the ENV finding already says it
			}
			out = append(out, c.secretFinding("IMG006", "config:/history", m,
				"Build step "+strconv.Itoa(m.Finding.Line)+" holds a value the secrets rule "+m.Finding.RuleID+" recognises ("+m.Finding.Title+")."))
		}
	}
	if res, err := ospkg.Discover(ctx, c.root); err == nil {
		for _, why := range res.Skipped {
			file, _, _ := strings.Cut(why, ":")
			out = append(out, configRules.Finding("IMG008", c.mapPath(file), 0, why+".", "", nil))
		}
	}
	return out, nil
}

// secretFinding turns a secrets match in the configuration into this
// scanner's finding, keeping the secret rule's severity and CWE.
func (c *configScanner) secretFinding(id, file string, m secrets.Match, detail string) finding.Finding {
	f := configRules.Finding(id, file, m.Finding.Line, detail, m.Finding.Snippet, map[string]any{
		"secret_rule": m.Finding.RuleID,
		"redacted":    m.Finding.Metadata["redacted"],
	})
	f.Severity = m.Finding.Severity
	if m.Finding.CWE != "" {
		f.CWE = m.Finding.CWE
	}
	f.Title = configRules.ByID(id).Title + ": " + m.Finding.Title
	return f
}

// redactedHistory is a history line fit for a snippet: with any secret in
// it masked, else the line as given.
func redactedHistory(s *secrets.Content, cmd, snippet string) string {
	if ms := s.Scan([]byte(cmd), ".env"); len(ms) > 0 {
		return ms[0].Finding.Snippet
	}
	return snippet
}

func isRootUser(u string) bool {
	name, _, _ := strings.Cut(u, ":")
	return name == "root" || name == "0"
}

func joinLines(lines []string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.ReplaceAll(l, "\n", " "))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func lineAt(lines []string, n int) string {
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}
