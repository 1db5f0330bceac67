package scantest

import (
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// GitServer is a loopback HTTPS git server: git http-backend behind
// net/http/cgi, with basic authentication when User is set.
type GitServer struct {
	URL      string // https://127.0.0.1:<port>
	CAFile   string // the server's certificate, for SVC_GIT_CA_FILE
	User     string
	Password string
	Root     string
	// Requests counts requests; Refused those refused for credentials.
	Requests atomic.Int64
	Refused  atomic.Int64
}

// NewGitServer starts a server for the test; user "" serves anonymously.
func NewGitServer(t *testing.T, user, password string) *GitServer {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	s := &GitServer{User: user, Password: password, Root: t.TempDir()}
	h := &cgi.Handler{Path: backend, Root: "/", Env: []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if s.User != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != s.User || p != s.Password {
				s.Refused.Add(1)
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	s.CAFile = filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(s.CAFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

// Serve publishes a bare copy of repo as <name>.git and returns its URL.
func (s *GitServer) Serve(t *testing.T, repo *GitRepo, name string) string {
	t.Helper()
	bare := filepath.Join(s.Root, name+".git")
	if out, err := exec.Command("git", "clone", "-q", "--bare", repo.Dir, bare).CombinedOutput(); err != nil {
		t.Fatalf("git clone --bare: %v\n%s", err, out)
	}
	return s.URL + "/" + name + ".git"
}

// CredentialsFile writes a git credential-store file (mode 0600) holding
// user and password for this server.
func (s *GitServer) CredentialsFile(t *testing.T, user, password string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "git-credentials")
	host := strings.TrimPrefix(s.URL, "https://")
	if err := os.WriteFile(p, []byte("https://"+user+":"+password+"@"+host+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
