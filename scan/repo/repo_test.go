package repo_test

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"scand/scan"
	"scand/scan/internal/scantest"
	"scand/scan/proc"
	"scand/scan/repo"
	"scand/scan/workdir"
)

const (
	gitUser     = "ci-bot"
	gitPassword = "glpat-Zq81LmX0vRk3TuYw7NsB"
)

// refuseLinkLocal stands in for the webhook guard main injects.
func refuseLinkLocal(a netip.Addr) string {
	if a.Unmap().IsLinkLocalUnicast() {
		return "link-local address"
	}
	return ""
}

type fixture struct {
	server *scantest.GitServer
	url    string
	head   string
	creds  string
	work   *workdir.Dir
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	src := scantest.NewGitRepo(t)
	src.Write("README.md", "first\n")
	src.Commit()
	src.Write("config/.env", "DB_PASSWORD=hunter2-but-longer-Xk29\n")
	src.Commit()
	src.Write("main.go", "package main\n")
	head := src.Commit()
	srv := scantest.NewGitServer(t, gitUser, gitPassword)
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	return &fixture{server: srv, url: srv.Serve(t, src, "shop"), head: head, creds: srv.CredentialsFile(t, gitUser, gitPassword), work: work}
}

func (f *fixture) preparer(mod func(*repo.Options)) *repo.Preparer {
	o := repo.Options{Config: scan.Config{Runner: proc.NewRunner(time.Minute)}, Work: f.work, CredentialsFile: f.creds,
		CAFile: f.server.CAFile, RefuseAddress: refuseLinkLocal, Limits: repo.Limits{Timeout: time.Minute}}
	if mod != nil {
		mod(&o)
	}
	return repo.New(o)
}

func prepare(p *repo.Preparer, spec scan.RepoSpec) (*scan.Prepared, error) {
	return p.Prepare(context.Background(), scan.TargetSpec{Repo: &spec}, []string{scan.TypeCode})
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	res, err := proc.NewRunner(time.Minute).Run(context.Background(), proc.Cmd{Program: "git", Args: append([]string{"-C", dir}, args...),
		Env: []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("git %v: %v %s", args, err, res.Stderr)
	}
	return strings.TrimSpace(string(res.Stdout))
}

func TestCloneWithCredentials(t *testing.T) {
	f := newFixture(t)
	before, _ := os.ReadFile(f.creds)
	prep, err := prepare(f.preparer(nil), scan.RepoSpec{URL: f.url})
	if err != nil {
		t.Fatal(err)
	}
	if prep.Resolved.Repo == nil || prep.Resolved.Repo.Commit != f.head {
		t.Errorf("resolved = %+v, want commit %s", prep.Resolved.Repo, f.head)
	}
	if b, err := os.ReadFile(filepath.Join(prep.Root, "config/.env")); err != nil || !strings.Contains(string(b), "hunter2") {
		t.Errorf("checkout: %q %v", b, err)
	}
	if n := git(t, prep.Root, "rev-list", "--count", "HEAD"); n != "1" {
		t.Errorf("shallow clone has %s commits", n)
	}
	// Nothing of the credential is kept in the clone.
	cfg, _ := os.ReadFile(filepath.Join(prep.Root, ".git/config"))
	if strings.Contains(string(cfg), gitPassword) || strings.Contains(string(cfg), gitUser+"@") {
		t.Errorf(".git/config holds the credential:\n%s", cfg)
	}
	root := prep.Root
	prep.Close()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("clone not removed: %v", err)
	}
	if after, _ := os.ReadFile(f.creds); string(after) != string(before) {
		t.Errorf("credentials file changed:\n%s", after)
	}
	if f.server.Refused.Load() == 0 {
		t.Error("the server never asked for credentials: the test proves nothing")
	}
}

func TestHistoryAndRef(t *testing.T) {
	f := newFixture(t)
	p := f.preparer(nil)
	prep, err := prepare(p, scan.RepoSpec{URL: f.url, History: true})
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	if n := git(t, prep.Root, "rev-list", "--count", "HEAD"); n != "3" {
		t.Errorf("history clone has %s commits, want 3", n)
	}
	byRef, err := prepare(p, scan.RepoSpec{URL: f.url, Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	defer byRef.Close()
	if byRef.Resolved.Repo.Commit != f.head {
		t.Errorf("ref main resolved to %s", byRef.Resolved.Repo.Commit)
	}
	if _, err := prepare(p, scan.RepoSpec{URL: f.url, Ref: "no-such-branch"}); err == nil || !strings.Contains(err.Error(), "fetch") {
		t.Errorf("missing ref: %v", err)
	}
}

func TestRefusals(t *testing.T) {
	f := newFixture(t)
	loose := filepath.Join(t.TempDir(), "creds")
	os.WriteFile(loose, []byte("https://u:p@127.0.0.1\n"), 0o644)
	wrong := f.server.CredentialsFile(t, gitUser, "not-the-password")
	wrongBefore, _ := os.ReadFile(wrong)
	cases := []struct {
		name string
		mod  func(*repo.Options)
		spec scan.RepoSpec
		want string
	}{
		{"credentials file readable by others", func(o *repo.Options) { o.CredentialsFile = loose }, scan.RepoSpec{URL: f.url}, "must be 0600"},
		{"no credentials", func(o *repo.Options) { o.CredentialsFile = "" }, scan.RepoSpec{URL: f.url}, "fetch failed"},
		{"wrong credentials", func(o *repo.Options) { o.CredentialsFile = wrong }, scan.RepoSpec{URL: f.url}, "fetch failed"},
		{"host not allowed", func(o *repo.Options) { o.Allow = []string{"git.corp.example"} }, scan.RepoSpec{URL: f.url}, "not in SVC_GIT_ALLOW"},
		{"name resolving to metadata", func(o *repo.Options) {
			o.LookupHost = func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
			}
		}, scan.RepoSpec{URL: "https://metadata.example/x.git"}, "link-local"},
		{"credentials in the URL", nil, scan.RepoSpec{URL: strings.Replace(f.url, "https://", "https://u:p@", 1)}, "credentials"},
		{"file protocol", nil, scan.RepoSpec{URL: "file:///etc"}, "scheme"},
		{"size cap", func(o *repo.Options) { o.Limits.MaxBytes = 1 }, scan.RepoSpec{URL: f.url}, "SVC_TARGET_MAX_BYTES"},
		{"option as ref", nil, scan.RepoSpec{URL: f.url, Ref: "--upload-pack=touch /tmp/x"}, "ref"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadDir(f.work.Path())
			prep, err := prepare(f.preparer(tc.mod), tc.spec)
			if err == nil {
				prep.Close()
				t.Fatal("prepared")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), gitPassword) {
				t.Errorf("error holds the password: %v", err)
			}
			if after, _ := os.ReadDir(f.work.Path()); len(after) != len(before) {
				t.Errorf("a failed clone left %d entries in the work directory (was %d)", len(after), len(before))
			}
		})
	}
	if after, _ := os.ReadFile(wrong); string(after) != string(wrongBefore) {
		t.Errorf("a refused login changed the credentials file: %q", after)
	}
}

// Submodules are fetched only when asked, through the same checks.
func TestSubmodulesOnlyWhenAsked(t *testing.T) {
	srv := scantest.NewGitServer(t, "", "")
	lib := scantest.NewGitRepo(t)
	lib.Write("lib.txt", "library\n")
	lib.Commit()
	srv.Serve(t, lib, "lib")
	app := scantest.NewGitRepo(t)
	app.Write(".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = ../lib.git\n")
	app.Git("add", ".gitmodules")
	app.Git("update-index", "--add", "--cacheinfo", "160000,"+lib.Git("rev-parse", "HEAD")+",lib")
	app.Git("commit", "-q", "-m", "add lib")
	url := srv.Serve(t, app, "app")
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer work.Close()
	p := func(allow []string) *repo.Preparer {
		return repo.New(repo.Options{Config: scan.Config{Runner: proc.NewRunner(time.Minute)}, Work: work, CAFile: srv.CAFile, Allow: allow})
	}
	plain, err := prepare(p(nil), scan.RepoSpec{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := os.Stat(filepath.Join(plain.Root, "lib/lib.txt")); !os.IsNotExist(err) {
		t.Errorf("submodule fetched without being asked: %v", err)
	}
	with, err := prepare(p(nil), scan.RepoSpec{URL: url, Submodules: true})
	if err != nil {
		t.Fatal(err)
	}
	defer with.Close()
	if b, err := os.ReadFile(filepath.Join(with.Root, "lib/lib.txt")); err != nil || string(b) != "library\n" {
		t.Errorf("submodule content = %q, %v", b, err)
	}
}
