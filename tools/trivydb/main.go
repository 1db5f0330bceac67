// Command trivydb writes a tiny Trivy vulnerability database (schema 2)
// from OSV records, so the trivy wrapper can be exercised offline on
// fixtures with the same database format the real one ships in.
//
// It is a separate module on purpose: scand's own dependency list stays
// the standard library plus modernc.org/sqlite, and bbolt never reaches
// the daemon's binary.
//
//	trivydb -out DIR [-now RFC3339] OSVDIR...
//
// DIR receives db/trivy.db and db/metadata.json, the layout of
// `trivy --cache-dir DIR`. Each OSVDIR holds OSV JSON records; their
// npm, Go and PyPI packages become GitHub-advisory buckets, as trivy-db
// stores GHSA data.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion is trivy-db's db.SchemaVersion that trivy v0.74 expects.
const schemaVersion = 2

type osvRecord struct {
	ID       string   `json:"id"`
	Aliases  []string `json:"aliases"`
	Summary  string   `json:"summary"`
	Details  string   `json:"details"`
	Severity []struct {
		Type  string `json:"type"`
		Score string `json:"score"`
	} `json:"severity"`
	Affected []struct {
		Package struct {
			Name      string `json:"name"`
			Ecosystem string `json:"ecosystem"`
		} `json:"package"`
		Ranges []struct {
			Events []map[string]string `json:"events"`
		} `json:"ranges"`
	} `json:"affected"`
	References []struct {
		URL string `json:"url"`
	} `json:"references"`
	DatabaseSpecific struct {
		Severity string   `json:"severity"`
		CWEIDs   []string `json:"cwe_ids"`
	} `json:"database_specific"`
}

// The JSON shapes below mirror trivy-db's pkg/types (Advisory,
// Vulnerability, DataSource), field names included.
type advisory struct {
	VulnerableVersions []string `json:",omitempty"`
	PatchedVersions    []string `json:",omitempty"`
}

type vulnerability struct {
	Title          string                       `json:",omitempty"`
	Description    string                       `json:",omitempty"`
	Severity       string                       `json:",omitempty"`
	CweIDs         []string                     `json:",omitempty"`
	VendorSeverity map[string]int               `json:",omitempty"`
	CVSS           map[string]map[string]string `json:",omitempty"`
	References     []string                     `json:",omitempty"`
}

type dataSource struct {
	ID   string `json:",omitempty"`
	Name string `json:",omitempty"`
	URL  string `json:",omitempty"`
}

type metadata struct {
	Version      int `json:",omitempty"`
	NextUpdate   time.Time
	UpdatedAt    time.Time
	DownloadedAt time.Time
}

// ecosystems maps an OSV ecosystem to trivy-db's bucket prefix and the
// GitHub advisory source name trivy-db uses for it.
var ecosystems = map[string]struct{ prefix, name string }{
	"npm":  {"npm", "npm"},
	"Go":   {"go", "Go"},
	"PyPI": {"pip", "pip"},
}

// severities are trivy-db's Severity values.
var severities = map[string]int{"LOW": 1, "MODERATE": 2, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}

func main() {
	out := flag.String("out", "", "cache directory to write db/trivy.db and db/metadata.json into")
	nowFlag := flag.String("now", "", "timestamp to record as UpdatedAt/DownloadedAt (RFC 3339; default: now)")
	flag.Parse()
	if err := run(*out, *nowFlag, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "trivydb:", err)
		os.Exit(1)
	}
}

func run(out, nowFlag string, dirs []string) error {
	if out == "" || len(dirs) == 0 {
		return errors.New("usage: trivydb -out DIR OSVDIR...")
	}
	now := time.Now().UTC()
	if nowFlag != "" {
		t, err := time.Parse(time.RFC3339, nowFlag)
		if err != nil {
			return fmt.Errorf("-now: %w", err)
		}
		now = t
	}
	recs, err := readRecords(dirs)
	if err != nil {
		return err
	}
	dbDir := filepath.Join(out, "db")
	if err := os.MkdirAll(dbDir, 0o755); err != nil {
		return err
	}
	dbPath := filepath.Join(dbDir, "trivy.db")
	_ = os.Remove(dbPath)
	db, err := bolt.Open(dbPath, 0o644, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	werr := db.Update(func(tx *bolt.Tx) error { return write(tx, recs) })
	if cerr := db.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	meta, err := json.Marshal(metadata{Version: schemaVersion, NextUpdate: now.Add(24 * time.Hour), UpdatedAt: now, DownloadedAt: now})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dbDir, "metadata.json"), meta, 0o644)
}

func readRecords(dirs []string) ([]osvRecord, error) {
	var recs []osvRecord
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s holds no OSV records", d)
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			var r osvRecord
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if r.ID == "" {
				return nil, fmt.Errorf("%s: record has no id", f)
			}
			recs = append(recs, r)
		}
	}
	return recs, nil
}

// vulnID is the key trivy-db files a GHSA advisory under: its CVE when it
// has one, else the advisory's own id.
func vulnID(r osvRecord) string {
	for _, a := range r.Aliases {
		if strings.HasPrefix(a, "CVE-") {
			return a
		}
	}
	return r.ID
}

func write(tx *bolt.Tx, recs []osvRecord) error {
	sources, err := tx.CreateBucketIfNotExists([]byte("data-source"))
	if err != nil {
		return err
	}
	vulns, err := tx.CreateBucketIfNotExists([]byte("vulnerability"))
	if err != nil {
		return err
	}
	for _, r := range recs {
		id := vulnID(r)
		written := false
		for _, a := range r.Affected {
			eco, ok := ecosystems[a.Package.Ecosystem]
			if !ok || a.Package.Name == "" {
				continue
			}
			srcName := "GitHub Security Advisory " + eco.name
			bucketName := eco.prefix + "::" + srcName
			src, err := json.Marshal(dataSource{ID: "ghsa", Name: srcName,
				URL: "https://github.com/advisories?query=type%3Areviewed+ecosystem%3A" + strings.ToLower(eco.name)})
			if err != nil {
				return err
			}
			if err := sources.Put([]byte(bucketName), src); err != nil {
				return err
			}
			root, err := tx.CreateBucketIfNotExists([]byte(bucketName))
			if err != nil {
				return err
			}
			pkg, err := root.CreateBucketIfNotExists([]byte(a.Package.Name))
			if err != nil {
				return err
			}
			adv := advisory{}
			if prev := pkg.Get([]byte(id)); prev != nil {
				if err := json.Unmarshal(prev, &adv); err != nil {
					return err
				}
			}
			for _, rg := range a.Ranges {
				vuln, fixed := constraint(rg.Events)
				if vuln != "" {
					adv.VulnerableVersions = append(adv.VulnerableVersions, vuln)
				}
				if fixed != "" {
					adv.PatchedVersions = append(adv.PatchedVersions, fixed)
				}
			}
			b, err := json.Marshal(adv)
			if err != nil {
				return err
			}
			if err := pkg.Put([]byte(id), b); err != nil {
				return err
			}
			written = true
		}
		if !written {
			continue
		}
		v := vulnerability{Title: r.Summary, Description: r.Details, CweIDs: r.DatabaseSpecific.CWEIDs}
		if s, ok := severities[strings.ToUpper(r.DatabaseSpecific.Severity)]; ok {
			v.VendorSeverity = map[string]int{"ghsa": s}
		}
		for _, s := range r.Severity {
			if s.Type == "CVSS_V3" {
				v.CVSS = map[string]map[string]string{"ghsa": {"V3Vector": s.Score}}
			}
		}
		// trivy-db lists the advisories' own pages among the references;
		// that is where a reader (and scand) finds the GHSA id of a CVE.
		for _, a := range append([]string{r.ID}, r.Aliases...) {
			if strings.HasPrefix(a, "GHSA-") {
				v.References = append(v.References, "https://github.com/advisories/"+a)
			}
		}
		for _, ref := range r.References {
			v.References = append(v.References, ref.URL)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if err := vulns.Put([]byte(id), b); err != nil {
			return err
		}
	}
	return nil
}

// constraint turns one OSV range into a trivy constraint (">=1.0.0, <1.2.6")
// and its fixed version.
func constraint(events []map[string]string) (string, string) {
	var parts []string
	fixed := ""
	for _, ev := range events {
		if v := ev["introduced"]; v != "" && v != "0" {
			parts = append(parts, ">="+v)
		}
		if v := ev["fixed"]; v != "" {
			parts = append(parts, "<"+v)
			fixed = v
		}
		if v := ev["last_affected"]; v != "" {
			parts = append(parts, "<="+v)
		}
	}
	return strings.Join(parts, ", "), fixed
}
