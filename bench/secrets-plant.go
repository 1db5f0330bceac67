//go:build ignore

// secrets-plant inserts N synthetic secrets of various kinds into a copy of
// a source tree, one per file at a random line, and writes where each one
// went as JSON lines ({"file","line","kind"}) for bench/secrets.sh.
//
// Files are chosen among text files that any secrets scanner is expected
// to read: not binary, not over 2 MiB, not minified, and not inside
// third-party dependency directories (vendor/, node_modules/), which scand
// skips by design (see scan/secrets.go).
//
// Usage: go run ./bench/secrets-plant.go -n 150 -seed 1 TREE > planted.jsonl
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	b62   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexa  = "0123456789abcdef"
	b64c  = b62 + "+/"
	b64u  = b62 + "-_"
	b32   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	pwch  = b62 + "!#%&*+=?@^"
	maxSz = 2 << 20
)

var rng *rand.Rand

func rs(alpha string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		s := string(b)
		// Stay clear of the markers scanners treat as placeholders.
		l := strings.ToLower(s)
		if !strings.Contains(l, "test") && !strings.Contains(l, "xxxx") && !strings.Contains(l, "fake") &&
			!strings.Contains(l, "your") && !strings.Contains(l, "example") && !strings.Contains(l, "1234") {
			return s
		}
	}
}

func digits(n int) string { return rs("0123456789", n) }

func pemLines(kind, first string, n int) []string {
	out := []string{"-----BEGIN " + kind + "-----"}
	for i := 0; i < n; i++ {
		l := rs(b64c, 64)
		if i == 0 {
			l = first + l[len(first):]
		}
		out = append(out, l)
	}
	return append(out, rs(b64c, 20)+"==", "-----END "+kind+"-----")
}

// plants returns the lines to insert for kind k; the first line is the one
// a scanner should report.
var plants = map[string]func() []string{
	"aws-access-key-id": func() []string { return []string{`AWS_ACCESS_KEY_ID = "AKIA` + rs(b32, 16) + `"`} },
	"aws-secret-access-key": func() []string {
		return []string{`aws_secret_access_key = "` + rs(b64c, 40) + `"`}
	},
	"github-pat":              func() []string { return []string{`githubToken := "ghp_` + rs(b62, 36) + `"`} },
	"github-fine-grained-pat": func() []string { return []string{`GH_TOKEN=github_pat_` + rs(b62, 22) + "_" + rs(b62, 59)} },
	"gitlab-pat":              func() []string { return []string{`gitlab_token: "glpat-` + rs(b64u, 20) + `"`} },
	"slack-bot-token": func() []string {
		return []string{`SLACK_BOT_TOKEN = "xoxb-` + digits(12) + "-" + digits(13) + "-" + rs(b62, 24) + `"`}
	},
	"slack-webhook-url": func() []string {
		return []string{`webhook := "https://hooks.slack.com/services/T` + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8) + "/B" + rs("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10) + "/" + rs(b62, 24) + `"`}
	},
	"stripe-live-secret-key": func() []string { return []string{`stripe.Key = "sk_live_` + rs(b62, 24) + `"`} },
	"sendgrid-api-key":       func() []string { return []string{`SENDGRID_API_KEY="SG.` + rs(b64u, 22) + "." + rs(b64u, 43) + `"`} },
	"npm-access-token":       func() []string { return []string{`//registry.npmjs.org/:_authToken=npm_` + rs(b62, 36)} },
	"pypi-upload-token":      func() []string { return []string{`password = pypi-AgEIcHlwaS5vcmc` + rs(b64u, 120)} },
	"openai-api-key": func() []string {
		return []string{`OPENAI_API_KEY = "sk-proj-` + rs(b64u, 74) + "T3BlbkFJ" + rs(b64u, 74) + `"`}
	},
	"anthropic-api-key": func() []string { return []string{`ANTHROPIC_API_KEY="sk-ant-api03-` + rs(b64u, 93) + `AA"`} },
	"huggingface-token": func() []string { return []string{`HF_TOKEN = "hf_` + rs(b62[:52], 34) + `"`} },
	"gcp-api-key":       func() []string { return []string{`apiKey: "AIza` + rs(b64u, 35) + `",`} },
	"twilio-api-key":    func() []string { return []string{`TWILIO_API_KEY = "SK` + rs(hexa, 32) + `"`} },
	"mailgun-api-key":   func() []string { return []string{`MAILGUN_API_KEY = "key-` + rs(hexa, 32) + `"`} },
	"jwt": func() []string {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
		p := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"svc-%s","iat":%d}`, rs(b62, 8), 1700000000+rng.Intn(1e8))))
		return []string{`Authorization: Bearer ` + h + "." + p + "." + rs(b64u, 43)}
	},
	"private-key-rsa": func() []string { return pemLines("RSA PRIVATE KEY", "MIIEow", 8) },
	"private-key-openssh": func() []string {
		return pemLines("OPENSSH PRIVATE KEY", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 6)
	},
	"private-key-ec": func() []string { return pemLines("EC PRIVATE KEY", "MHcCAQEE", 3) },
	"database-url-password": func() []string {
		return []string{`DATABASE_URL = "postgres://app:` + rs(b62, 16) + `@db.internal:5432/app"`}
	},
	"generic-password": func() []string { return []string{`dbPassword := "` + rs(pwch, 14) + rs("0123456789", 1) + `"`} },
	"generic-secret":   func() []string { return []string{`client_secret = "` + rs(b62, 32) + `"`} },
	"azure-storage-connection-string": func() []string {
		return []string{`AZURE_STORAGE = "DefaultEndpointsProtocol=https;AccountName=acme` + rs("abcdefghijklmnopqrstuvwxyz", 6) + ";AccountKey=" + rs(b64c, 86) + `==;EndpointSuffix=core.windows.net"`}
	},
	"digitalocean-token":   func() []string { return []string{`DIGITALOCEAN_TOKEN=dop_v1_` + rs(hexa, 64)} },
	"shopify-access-token": func() []string { return []string{`SHOPIFY_TOKEN = "shpat_` + rs(hexa, 32) + `"`} },
	"dockerhub-pat":        func() []string { return []string{`DOCKERHUB_TOKEN=dckr_pat_` + rs(b64u, 27)} },
	"discord-webhook-url": func() []string {
		return []string{`DISCORD_WEBHOOK = "https://discord.com/api/webhooks/` + digits(19) + "/" + rs(b64u, 68) + `"`}
	},
}

var skipDirs = map[string]bool{".git": true, "vendor": true, "node_modules": true}

func main() {
	n := flag.Int("n", 150, "number of secrets to plant (one per file)")
	seed := flag.Int64("seed", 1, "random seed")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: secrets-plant [-n N] [-seed S] TREE")
		os.Exit(2)
	}
	root := flag.Arg(0)
	rng = rand.New(rand.NewSource(*seed))

	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skipDirs[d.Name()] {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".min.js") {
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".txt", ".json", ".yaml", ".yml", ".sh", ".py", ".c", ".h", ".html", ".md", ".js", ".bash", ".bat", ".rc", ".toml", ".xml", ".pl", ".awk", ".tmpl", ".s":
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() == 0 || info.Size() > maxSz-4096 {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sort.Strings(files)
	rng.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })

	var kinds []string
	for k := range plants {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)

	enc := json.NewEncoder(os.Stdout)
	planted := 0
	for _, p := range files {
		if planted == *n {
			break
		}
		data, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			continue
		}
		kind := kinds[planted%len(kinds)]
		lines := strings.SplitAfter(string(data), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		at := rng.Intn(len(lines) + 1) // insert before line at (0-based)
		var ins []string
		for _, l := range plants[kind]() {
			ins = append(ins, l+"\n")
		}
		if at == len(lines) && len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
			lines[len(lines)-1] += "\n"
		}
		out := append(append(append([]string{}, lines[:at]...), ins...), lines[at:]...)
		if err := os.WriteFile(p, []byte(strings.Join(out, "")), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		rel, _ := filepath.Rel(root, p)
		enc.Encode(map[string]any{"file": filepath.ToSlash(rel), "line": at + 1, "kind": kind})
		planted++
	}
	if planted < *n {
		fmt.Fprintf(os.Stderr, "only %d candidate files for %d secrets\n", planted, *n)
		os.Exit(1)
	}
}
