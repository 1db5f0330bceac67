package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"scand/store/audit"
	"strconv"
	"strings"
	"time"

	"scand/api/httpio"
	"scand/auth"
	"scand/scan"
	"scand/scan/vulndb"
)

// VulnDBConfig is the offline advisory data scand manages (issue 16).
type VulnDBConfig struct {
	// Dir is SVC_VULNDB_DIR: where imports go.
	Dir string
	// MaxUpload caps an uploaded archive (SVC_VULNDB_MAX_UPLOAD_MB).
	MaxUpload int64
	// MaxAge is SVC_VULNDB_MAX_AGE_DAYS.
	MaxAge time.Duration
	// Getenv reads the wrapped tools' own variables (SVC_OSV_DB, ...),
	// which win over Dir.
	Getenv func(string) string
}

func (c VulnDBConfig) maxAge() time.Duration {
	if c.MaxAge > 0 {
		return c.MaxAge
	}
	return scan.DefaultMaxDataAge
}

// VulnDBList is the body of GET /vulndb.
type VulnDBList struct {
	Dir        string        `json:"dir" doc:"SVC_VULNDB_DIR: where imported archives are kept"`
	MaxAgeDays int           `json:"max_age_days" doc:"SVC_VULNDB_MAX_AGE_DAYS: older data makes a scan's warning"`
	Databases  []vulndb.Info `json:"databases" doc:"Every database a dependency scanner would read now, with its build date and age"`
}

func (s *Server) vulndbRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/vulndb", Scope: auth.ScopeRead, Tag: "vulndb",
			Summary:  "Offline advisory databases the dependency scanners read: source, build date, age, staleness",
			Response: VulnDBList{}, Handler: s.handleVulnDBList},
		{Method: "POST", Path: "/vulndb/import", Scope: auth.ScopeAdmin, Tag: "vulndb",
			Summary: "Import an advisory database archive (OSV <ecosystem>/all.zip, Go vulndb zip, Trivy db.tar.gz) sent as the raw request body; verified, then swapped in atomically",
			Params: []Param{
				{Name: "name", In: "query", Type: "string", Description: "The archive's file name, recorded with the import (e.g. all.zip)"},
				{Name: "sha256", In: "query", Type: "string", Description: "Expected sha256 of the archive (hex); a mismatch is refused with 422"},
			},
			RawRequest: "application/octet-stream", MaxBody: -1,
			Response: vulndb.Info{}, Status: http.StatusCreated, Errors: []int{413, 422}, Handler: s.handleVulnDBImport},
	}
}

// vulndbInventory is every database the tools would read now, aged.
func (s *Server) vulndbInventory(ctx context.Context) []vulndb.Info {
	getenv := s.VulnDB.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	inv := vulndb.Inventory(ctx, vulndb.Locations{Getenv: getenv, Dir: s.VulnDB.Dir})
	out := make([]vulndb.Info, 0, len(inv))
	for _, i := range inv {
		out = append(out, i.WithAge(s.Now(), s.VulnDB.maxAge()))
	}
	return out
}

func (s *Server) handleVulnDBList(w http.ResponseWriter, r *http.Request) error {
	httpio.WriteJSON(w, http.StatusOK, VulnDBList{Dir: s.VulnDB.Dir, MaxAgeDays: int(s.VulnDB.maxAge() / (24 * time.Hour)),
		Databases: s.vulndbInventory(r.Context())})
	return nil
}

// handleVulnDBImport stores the body in a private file under the
// directory (capped by MaxUpload), then imports it.
func (s *Server) handleVulnDBImport(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	name := filepath.Base(filepath.Clean("/" + q.Get("name")))
	if name == "/" || name == "." {
		name = "upload"
	}
	sum := strings.ToLower(strings.TrimSpace(q.Get("sha256")))
	if sum != "" && (len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "") {
		return httpio.Invalid("value_error", "sha256 must be 64 hex digits", q.Get("sha256"), "query", "sha256")
	}
	if s.VulnDB.Dir == "" {
		return httpio.Status(http.StatusServiceUnavailable, "No vulnerability database directory is configured (SVC_VULNDB_DIR)")
	}
	incoming := filepath.Join(s.VulnDB.Dir, "incoming")
	if err := os.MkdirAll(incoming, 0o750); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(incoming, "upload-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, r.Body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return httpio.Status(http.StatusRequestEntityTooLarge, "Archive too large (limit "+strconv.FormatInt(tooBig.Limit, 10)+
			" bytes, SVC_VULNDB_MAX_UPLOAD_MB); copy it onto the host and run `scand vulndb import` instead")
	}
	if err != nil {
		return err
	}
	info, err := vulndb.Importer{Dir: s.VulnDB.Dir, Now: s.Now}.Import(r.Context(), vulndb.Archive{Path: tmp.Name(), Name: name, SHA256: sum})
	switch {
	case errors.Is(err, vulndb.ErrChecksum):
		return httpio.Invalid("checksum", err.Error(), sum, "query", "sha256")
	case errors.Is(err, vulndb.ErrFormat):
		return httpio.Invalid("format", err.Error(), name, "body")
	case err != nil:
		return err
	}
	s.log.Info("advisory database imported", "name", info.Name, "archive", name, "sha256", info.SHA256,
		"built_at", info.BuiltAt, "key_id", PrincipalFrom(r.Context()).ID)
	s.audit(r.Context(), PrincipalFrom(r.Context()), "vulndb.import", "vulndb", info.Name, audit.Changes{"archive": {After: name},
		"sha256": {After: info.SHA256}, "built_at": {After: info.BuiltAt}})
	if s.Reevaluate != nil {
		// New data: the stored SBOMs are matched against it (issue 27).
		if run, ok, err := s.Reevaluate.AfterImport(context.WithoutCancel(r.Context()), "vulndb import "+name); err != nil {
			s.log.Error("re-evaluation after the import not started", "error", err.Error())
		} else if ok {
			w.Header().Set("X-Reevaluation-Id", run.ID)
		}
	}
	httpio.WriteJSON(w, http.StatusCreated, info.WithAge(s.Now(), s.VulnDB.maxAge()))
	return nil
}
