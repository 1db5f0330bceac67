// Package githygiene is the built-in `git-hygiene` scanner (scan type
// code): what a repository tracks or leaves unignored, through the git
// CLI, rather than what files say (that is scan/secrets). Its checks are
// the comment below.
package githygiene

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/proc"
	"scand/scan/tree"
)

// git-hygiene looks at what a repository tracks rather than at file
// contents line by line (that is the secrets scanner's job):
//
//   - sensitive files tracked in git: environment files, private keys,
//     keystores, cloud and registry credentials, shell histories, database
//     dumps, Terraform state, password databases, .htpasswd,
//     .git-credentials, .netrc;
//   - sensitive files present but neither tracked nor ignored, one
//     `git add .` away from being committed;
//   - .gitignore rules missing for .env files (always) and Terraform state
//     (when the repository has *.tf files), or no .gitignore at all (one
//     finding instead of one per pattern). Only the repository's own rules
//     count: a developer's global excludes file does not protect their
//     colleagues, so git runs with core.excludesFile=/dev/null.
//     .git/info/exclude still counts; git offers no switch for it;
//   - binary files larger than gitHygieneLargeFileBytes (5 MiB) committed.
//
// Only the target's own subtree is looked at: for a target inside a larger
// repository, tracked and unignored files are those under the target, and
// the .gitignore checks (which are about the repository as a whole, whose
// .gitignore lies outside the target) are left to a scan of its root.
//
// When the target is not a git work tree (or git cannot read it), only the
// first check runs, on the files present on disk, and findings say
// "present" instead of "tracked"; ignore rules and commits do not apply,
// and the scanner logs that instead of inventing a finding about it.
//
// Whole-file findings have line 0. Paths under third-party dependency
// directories (node_modules, vendor, ...) are not checked for sensitive
// names: a library's test fixture is not the team's credential.
const (
	gitHygieneLargeFileBytes = 5 << 20
	gitHygieneSniffBytes     = 64 << 10
	gitHygieneTimeout        = 2 * time.Minute
	gitHygieneMaxOutput      = 64 << 20
)

// gitHygieneKind is one kind of finding.
type gitHygieneKind struct {
	id          string
	what        string // noun phrase for titles
	severity    finding.Severity
	cwe         finding.CWE
	remediation string
}

// gitHygieneKindTable returns the kinds by rule id. It is built by the
// constructor (and tests) rather than held in a package variable.
func gitHygieneKindTable() map[string]gitHygieneKind {
	return map[string]gitHygieneKind{
		"env-file": {"env-file", "Environment file", finding.High, "CWE-538",
			"Environment files hold the deployment's secrets. Rotate every credential in it, remove the file from the repository (git rm --cached) and its history, add `.env` and `.env.*` to .gitignore, and commit a `.env.example` with placeholder values instead."},
		"private-key-file": {"private-key-file", "Private key file", finding.Critical, "CWE-522",
			"Replace the key pair and revoke the old public key or certificate, remove the file and purge it from history, and keep keys in a secret manager or the deployment's key store."},
		"ssh-private-key-file": {"ssh-private-key-file", "SSH private key", finding.Critical, "CWE-522",
			"Generate a new SSH key, remove the old public key from every authorized_keys file, deploy-key list and Git host, and purge the file from history."},
		"keystore-file": {"keystore-file", "Keystore or certificate bundle", finding.High, "CWE-522",
			"Keystores (.p12, .pfx, .jks, .keystore) hold private keys behind a password that can be attacked offline. Replace the keys they hold, remove the file and purge it from history, and inject the keystore at build or deploy time."},
		"cloud-credentials-file": {"cloud-credentials-file", "Cloud credentials file", finding.High, "CWE-522",
			"Revoke the credentials it contains at the provider, remove the file and purge it from history, and use workload identity or a secret manager."},
		"package-registry-credentials": {"package-registry-credentials", "Package registry credentials", finding.High, "CWE-522",
			"Revoke the token or password at the registry and reference it from the environment (e.g. `_authToken=${NPM_TOKEN}`) instead of writing it into the file."},
		"shell-history-file": {"shell-history-file", "Shell or client history file", finding.Medium, "CWE-200",
			"Command histories record passwords typed on command lines, hostnames and internal paths. Review it for credentials and rotate any, remove the file and purge it from history, and ignore *_history files."},
		"database-dump": {"database-dump", "Database dump or database file", finding.Medium, "CWE-200",
			"Dumps and database files routinely contain personal data and password hashes. Remove the file and purge it from history, and keep fixtures synthetic."},
		"terraform-state": {"terraform-state", "Terraform state file", finding.High, "CWE-312",
			"Terraform state stores resource attributes, including generated passwords and keys, in plain text. Rotate the secrets it contains, move state to an encrypted remote backend, remove the file and purge it from history, and ignore *.tfstate."},
		"password-database": {"password-database", "Password manager database", finding.High, "CWE-522",
			"A KeePass database can be brute-forced offline once published. Move the team's secrets to a shared secret manager, change the master password and the secrets it holds, and purge the file from history."},
		"htpasswd-file": {"htpasswd-file", ".htpasswd file", finding.High, "CWE-522",
			"Password hashes can be cracked offline. Change the affected passwords, remove the file and purge it from history, and provision it at deploy time."},
		"git-credentials-file": {"git-credentials-file", "Git credential store", finding.Critical, "CWE-522",
			".git-credentials holds Git host tokens in plain text. Revoke every token in it, remove the file and purge it from history."},
		"netrc-file": {"netrc-file", ".netrc file", finding.High, "CWE-522",
			".netrc holds machine logins and passwords in plain text. Change the passwords it lists, remove the file and purge it from history."},
		"unignored-sensitive-file": {"unignored-sensitive-file", "Sensitive file neither tracked nor ignored", finding.Medium, "CWE-538",
			"The file is one `git add .` away from being committed. Add an ignore rule for it to .gitignore."},
		"gitignore-missing": {"gitignore-missing", "Repository has no .gitignore", finding.Low, "CWE-538",
			"Without ignore rules, environment files, keys and build output get committed by `git add .`. Add a .gitignore that ignores at least `.env` and `.env.*`."},
		"gitignore-missing-pattern": {"gitignore-missing-pattern", ".gitignore does not ignore a sensitive pattern", finding.Low, "CWE-538",
			"Add the pattern to .gitignore so that local secrets files cannot be committed by accident."},
		"large-binary": {"large-binary", "Large binary file committed", finding.Low, "CWE-200",
			"Large opaque files cannot be reviewed and often are build outputs, archives or dumps that carry data, debug information or embedded credentials; they also bloat every clone forever. Check what it contains, move it to Git LFS or an artifact store, and purge it from history if it holds anything sensitive."},
	}
}

// gitHygieneIgnoreProbe is a path that the repository's ignore rules
// should match; when applies returns false the probe is skipped (nil
// means always).
type gitHygieneIgnoreProbe struct {
	pattern string // shown to the user
	probe   string // a path checked with git check-ignore
	applies func(tracked []string) bool
}

var gitHygieneIgnoreProbes = []gitHygieneIgnoreProbe{
	{".env", ".env", nil},
	{".env.*", ".env.local", nil},
	{"*.tfstate", "terraform.tfstate", func(tracked []string) bool {
		return slices.ContainsFunc(tracked, func(p string) bool { return strings.HasSuffix(p, ".tf") })
	}},
}

// gitHygieneEnvTemplate reports the .env.<suffix> names that by convention
// hold placeholders and are meant to be committed.
func gitHygieneEnvTemplate(suffix string) bool {
	switch suffix {
	case "example", "sample", "template", "dist":
		return true
	}
	return false
}

func gitHygieneHistoryFile(base string) bool {
	switch base {
	case ".bash_history", ".zsh_history", ".sh_history", ".history", ".psql_history", ".mysql_history",
		".python_history", ".node_repl_history", ".rediscli_history", ".sqlite_history", ".irb_history":
		return true
	}
	return false
}

func gitHygieneSSHKeyFile(base string) bool {
	switch base {
	case "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk":
		return true
	}
	return false
}

// gitHygieneRegistryCredRe matches a credential line in .npmrc/.pypirc
// whose value is not an environment reference.
var gitHygieneRegistryCredRe = regexp.MustCompile(`(?im)^\s*(?:[^#;\s]*:)?(?:_authToken|_auth|_password|password)\s*[=:]\s*([^\s$][^\s]*)\s*$`)

// gitHygieneDumpMarkers identify SQL files written by dump tools, as
// opposed to schema migrations.
var gitHygieneDumpMarkers = [][]byte{
	[]byte("-- MySQL dump"), []byte("-- MariaDB dump"), []byte("-- PostgreSQL database dump"),
	[]byte("pg_dump"), []byte("mysqldump"), []byte(" FROM stdin;"), []byte("-- Dump completed"),
}

// gitHygieneDumpInserts is how many INSERT statements in the first 64 KiB
// make a .sql file a data dump rather than a migration with seed rows.
const gitHygieneDumpInserts = 100

// gitHygieneClassify decides whether a path is a sensitive file and
// returns its kind id and, when it differs from the kind's default, the
// severity (e.g. a .netrc with a password is critical). head
// returns the file's first bytes; ok is false when the content cannot be
// read (deleted from the work tree but still tracked), in which case
// content-dependent kinds are decided by name alone where that is safe.
func gitHygieneClassify(rel string, head func() ([]byte, bool)) (string, finding.Severity, bool) {
	base := strings.ToLower(path.Base(rel))
	ext := path.Ext(base)
	kind := func(id string) (string, finding.Severity, bool) { return id, "", true }
	switch {
	case base == ".env":
		return kind("env-file")
	case strings.HasPrefix(base, ".env."):
		if gitHygieneEnvTemplate(strings.TrimPrefix(base, ".env.")) {
			return "", "", false
		}
		return kind("env-file")
	case gitHygieneSSHKeyFile(base):
		return kind("ssh-private-key-file")
	case ext == ".pem" || ext == ".key":
		data, ok := head()
		switch {
		case !ok:
			return "private-key-file", finding.High, true
		case bytes.Contains(data, []byte("PRIVATE KEY")):
			return kind("private-key-file")
		case ext == ".key" && tree.LooksBinary(data):
			// A binary .key may be a DER-encoded key, or a Keynote file.
			return "private-key-file", finding.Medium, true
		}
		return "", "", false // certificates, public keys, license keys
	case ext == ".p12" || ext == ".pfx" || ext == ".jks" || ext == ".keystore" || ext == ".bks":
		return kind("keystore-file")
	case base == "credentials" || base == "credentials.json":
		return kind("cloud-credentials-file")
	case base == ".npmrc" || base == ".pypirc":
		if data, ok := head(); ok && gitHygieneRegistryCredRe.Match(data) {
			return kind("package-registry-credentials")
		}
		return "", "", false
	case gitHygieneHistoryFile(base):
		return kind("shell-history-file")
	case ext == ".sql":
		data, ok := head()
		if !ok {
			return "", "", false
		}
		for _, m := range gitHygieneDumpMarkers {
			if bytes.Contains(data, m) {
				return kind("database-dump")
			}
		}
		if bytes.Count(bytes.ToUpper(data), []byte("INSERT INTO")) >= gitHygieneDumpInserts {
			return kind("database-dump")
		}
		return "", "", false
	case ext == ".dump" || ext == ".sqlite" || ext == ".sqlite3" || ext == ".db" && base != "thumbs.db":
		return kind("database-dump")
	case base == "terraform.tfstate" || strings.HasSuffix(base, ".tfstate") || strings.HasSuffix(base, ".tfstate.backup"):
		return kind("terraform-state")
	case ext == ".kdbx" || ext == ".kdb":
		return kind("password-database")
	case base == ".htpasswd":
		return kind("htpasswd-file")
	case base == ".git-credentials":
		return kind("git-credentials-file")
	case base == ".netrc" || base == "_netrc":
		if data, ok := head(); ok && bytes.Contains(bytes.ToLower(data), []byte("password")) {
			return "netrc-file", finding.Critical, true
		}
		return kind("netrc-file")
	}
	return "", "", false
}

// gitHygieneScanner is the built-in `git-hygiene` code scanner.
type gitHygieneScanner struct {
	cfg   scan.Config
	kinds map[string]gitHygieneKind
}

// New returns the built-in git-hygiene scanner. It needs
// the git CLI (Available reports it).
func New(cfg scan.Config) scan.Scanner {
	return &gitHygieneScanner{cfg: cfg, kinds: gitHygieneKindTable()}
}

func (s *gitHygieneScanner) Name() string { return "git-hygiene" }
func (s *gitHygieneScanner) Type() string { return scan.TypeCode }

func (s *gitHygieneScanner) runner() *proc.Runner {
	var r proc.Runner
	if s.cfg.Runner != nil {
		r = *s.cfg.Runner
	} else {
		r = *proc.NewRunner(gitHygieneTimeout)
	}
	r.MaxStdout = gitHygieneMaxOutput
	return &r
}

func (s *gitHygieneScanner) Available(ctx context.Context) (string, string, bool) {
	res, err := s.runner().Run(ctx, proc.Cmd{Program: "git", Args: []string{"--version"}, Timeout: 10 * time.Second})
	if err != nil || res.ExitCode != 0 {
		return "", "apt-get install git", false
	}
	v := strings.TrimSpace(string(res.Stdout))
	return strings.TrimPrefix(v, "git version "), "", true
}

// git runs one git command in the target with pinned, repository-only
// settings and returns its stdout; a non-zero exit is an error unless it
// is listed in okExits.
func (s *gitHygieneScanner) git(ctx context.Context, root string, stdin []byte, okExits []int, args ...string) ([]byte, error) {
	full := append(append(proc.GitInTree(root), "-c", "core.quotePath=false", "-c", "core.excludesFile=/dev/null"), args...)
	res, err := s.runner().Run(ctx, proc.Cmd{
		Program: "git", Args: full, Stdin: stdin, Timeout: gitHygieneTimeout,
		Env: []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"},
	})
	if err != nil {
		return nil, err
	}
	if res.ExitCode != 0 && !slices.Contains(okExits, res.ExitCode) {
		return nil, fmt.Errorf("git %s exited %d: %s", args[0], res.ExitCode, strings.TrimSpace(string(res.Stderr[:min(len(res.Stderr), 512)])))
	}
	if res.Truncated {
		return nil, fmt.Errorf("git %s: output over %d bytes", args[0], gitHygieneMaxOutput)
	}
	return res.Stdout, nil
}

func (s *gitHygieneScanner) Scan(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	root := t.Path
	if err := tree.CheckDir(root); err != nil {
		return nil, fmt.Errorf("git-hygiene: %w", err)
	}
	out, err := s.scanRepo(ctx, root, t.Worktree)
	if errors.Is(err, errGitHygieneNotRepo) || errors.Is(err, proc.ErrNotInstalled) {
		s.cfg.Log().Info("git-hygiene: not a git work tree; only checking files present on disk", "target", root, "reason", err.Error())
		out, err = s.scanPlainTree(ctx, root)
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b finding.Finding) int {
		return cmp.Or(strings.Compare(a.FilePath, b.FilePath), strings.Compare(a.RuleID, b.RuleID), strings.Compare(a.Snippet, b.Snippet))
	})
	if out == nil {
		out = []finding.Finding{}
	}
	return out, nil
}

var errGitHygieneNotRepo = errors.New("not a git work tree")

func (s *gitHygieneScanner) newFinding(kindID string, sev finding.Severity, rel, title, detail, snippet string, meta map[string]any) finding.Finding {
	k := s.kinds[kindID]
	if sev == "" {
		sev = k.severity
	}
	if meta == nil {
		meta = map[string]any{}
	}
	return finding.Finding{
		Scanner:     s.Name(),
		ScanType:    scan.TypeCode,
		Severity:    sev,
		Title:       title,
		Description: detail + " " + k.remediation,
		FilePath:    rel,
		Line:        0,
		RuleID:      k.id,
		CWE:         k.cwe,
		Snippet:     snippet,
		Metadata:    meta,
	}
}

// gitHygieneSameDir reports whether the target is its repository's top
// level (comparing real paths: git prints the top level with symlinks
// resolved).
func gitHygieneSameDir(root, toplevel string) bool {
	a, errA := filepath.EvalSymlinks(root)
	b, errB := filepath.EvalSymlinks(toplevel)
	if errA != nil || errB != nil {
		return filepath.Clean(root) == filepath.Clean(toplevel)
	}
	return a == b
}

// gitHygieneHead reads the first bytes of a regular file under root,
// without following a symbolic link out of the tree.
func gitHygieneHead(root, rel string) ([]byte, bool) {
	f, _, err := tree.OpenFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, gitHygieneSniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, false
	}
	return buf[:n], true
}

type gitHygieneEntry struct {
	mode, object, path string
}

func (s *gitHygieneScanner) scanRepo(ctx context.Context, root string, worktree bool) ([]finding.Finding, error) {
	if !worktree && tree.GitDirLeavesTree(root) {
		// Another repository's index must not be reported as this tree's.
		return nil, fmt.Errorf("%w: its .git leads outside the target", errGitHygieneNotRepo)
	}
	top, err := s.git(ctx, root, nil, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		if errors.Is(err, proc.ErrNotInstalled) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", errGitHygieneNotRepo, err)
	}
	toplevel := strings.TrimSpace(string(top))
	raw, err := s.git(ctx, root, nil, nil, "ls-files", "-z", "-s")
	if err != nil {
		return nil, fmt.Errorf("git-hygiene: %w", err)
	}
	var entries []gitHygieneEntry
	var tracked []string
	seen := map[string]bool{}
	for _, rec := range bytes.Split(raw, []byte{0}) {
		// "<mode> <object> <stage>\t<path>"
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 || seen[string(p)] { // conflicted paths appear once per stage
			continue
		}
		seen[string(p)] = true
		entries = append(entries, gitHygieneEntry{mode: f[0], object: f[1], path: string(p)})
		tracked = append(tracked, string(p))
	}

	var out []finding.Finding
	for _, e := range entries {
		if e.mode == "160000" || e.mode == "120000" || tree.UnderSkippedDir(e.path) {
			continue // submodules, symlinks, third-party trees
		}
		id, sev, ok := gitHygieneClassify(e.path, func() ([]byte, bool) { return gitHygieneHead(root, e.path) })
		if !ok {
			continue
		}
		k := s.kinds[id]
		out = append(out, s.newFinding(id, sev, e.path, k.what+" tracked in git",
			k.what+" "+e.path+" is committed to the repository.", e.path, map[string]any{"tracked": true}))
	}

	large, err := s.largeBinaries(ctx, root, entries)
	if err != nil {
		return nil, err
	}
	out = append(out, large...)

	if gitHygieneSameDir(root, toplevel) {
		ignore, err := s.ignoreFindings(ctx, root, tracked)
		if err != nil {
			return nil, err
		}
		out = append(out, ignore...)
	} else {
		s.cfg.Log().Info("git-hygiene: target is a subdirectory of its repository; the repository's ignore rules are checked when its root is scanned",
			"target", root, "repository", toplevel)
	}

	untracked, err := s.git(ctx, root, nil, nil, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("git-hygiene: %w", err)
	}
	for _, p := range bytes.Split(untracked, []byte{0}) {
		rel := string(p)
		if rel == "" || tree.UnderSkippedDir(rel) {
			continue
		}
		id, _, ok := gitHygieneClassify(rel, func() ([]byte, bool) { return gitHygieneHead(root, rel) })
		if !ok {
			continue
		}
		k := s.kinds["unignored-sensitive-file"]
		what := s.kinds[id].what
		out = append(out, s.newFinding(k.id, k.severity, rel, what+" neither tracked nor ignored",
			what+" "+rel+" is in the work tree and no ignore rule covers it.", rel, map[string]any{"kind": id, "tracked": false}))
	}
	return out, nil
}

// largeBinaries asks git for the size of every tracked blob in one
// cat-file call and reports binary blobs over the threshold.
func (s *gitHygieneScanner) largeBinaries(ctx context.Context, root string, entries []gitHygieneEntry) ([]finding.Finding, error) {
	var stdin bytes.Buffer
	objects := map[string]bool{}
	for _, e := range entries {
		if e.mode == "160000" || e.mode == "120000" || objects[e.object] {
			continue
		}
		objects[e.object] = true
		stdin.WriteString(e.object)
		stdin.WriteByte('\n')
	}
	if len(objects) == 0 {
		return nil, nil
	}
	raw, err := s.git(ctx, root, stdin.Bytes(), nil, "cat-file", "--batch-check=%(objectname) %(objectsize)")
	if err != nil {
		return nil, fmt.Errorf("git-hygiene: %w", err)
	}
	sizes := map[string]int64{}
	for _, line := range strings.Split(string(raw), "\n") {
		obj, size, ok := strings.Cut(line, " ")
		if !ok {
			continue // "<object> missing"
		}
		if n, err := strconv.ParseInt(size, 10, 64); err == nil {
			sizes[obj] = n
		}
	}
	var out []finding.Finding
	for _, e := range entries {
		n := sizes[e.object]
		if n <= gitHygieneLargeFileBytes || !gitHygieneIsBinary(root, e.path) {
			continue
		}
		title := fmt.Sprintf("Large binary file committed (%.1f MiB)", float64(n)/(1<<20))
		out = append(out, s.newFinding("large-binary", finding.Low, e.path, title,
			fmt.Sprintf("%s is a %d-byte binary file tracked in git (threshold %d bytes).", e.path, n, gitHygieneLargeFileBytes),
			e.path, map[string]any{"size_bytes": n, "tracked": true}))
	}
	return out, nil
}

// gitHygieneIsBinary sniffs the work-tree copy for a NUL byte; a tracked
// file missing from the work tree is judged by its extension.
func gitHygieneIsBinary(root, rel string) bool {
	if data, ok := gitHygieneHead(root, rel); ok {
		return tree.LooksBinary(data)
	}
	return tree.BinaryExt(strings.ToLower(path.Ext(rel)))
}

// ignoreFindings checks the repository's ignore rules with probe paths.
func (s *gitHygieneScanner) ignoreFindings(ctx context.Context, root string, tracked []string) ([]finding.Finding, error) {
	var probes []gitHygieneIgnoreProbe
	var stdin bytes.Buffer
	for _, p := range gitHygieneIgnoreProbes {
		if p.applies == nil || p.applies(tracked) {
			probes = append(probes, p)
			stdin.WriteString(p.probe)
			stdin.WriteByte(0)
		}
	}
	// Exit 1 means "nothing is ignored", not failure.
	raw, err := s.git(ctx, root, stdin.Bytes(), []int{1}, "check-ignore", "--no-index", "--stdin", "-z")
	if err != nil {
		return nil, fmt.Errorf("git-hygiene: %w", err)
	}
	ignored := map[string]bool{}
	for _, p := range bytes.Split(raw, []byte{0}) {
		ignored[string(p)] = true
	}
	var missing []gitHygieneIgnoreProbe
	for _, p := range probes {
		if !ignored[p.probe] {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	hasGitignore := false
	for _, p := range tracked {
		if path.Base(p) == ".gitignore" {
			hasGitignore = true
			break
		}
	}
	if _, err := os.Lstat(filepath.Join(root, ".gitignore")); err == nil {
		hasGitignore = true
	}
	if !hasGitignore && len(missing) == len(probes) {
		k := s.kinds["gitignore-missing"]
		return []finding.Finding{s.newFinding(k.id, k.severity, ".gitignore", k.what,
			"The repository has no .gitignore file.", "missing .gitignore", nil)}, nil
	}
	var out []finding.Finding
	for _, p := range missing {
		k := s.kinds["gitignore-missing-pattern"]
		out = append(out, s.newFinding(k.id, k.severity, ".gitignore", ".gitignore does not ignore "+p.pattern,
			"No ignore rule of the repository matches "+p.probe+" (pattern "+p.pattern+").",
			"missing ignore "+p.pattern, map[string]any{"pattern": p.pattern}))
	}
	return out, nil
}

// scanPlainTree is the fallback for a directory that is not a git work
// tree: sensitive names among the files present.
func (s *gitHygieneScanner) scanPlainTree(ctx context.Context, root string) ([]finding.Finding, error) {
	var out []finding.Finding
	err := tree.Walk{}.Files(ctx, root, func(_, rel string) error {
		id, sev, ok := gitHygieneClassify(rel, func() ([]byte, bool) { return gitHygieneHead(root, rel) })
		if !ok {
			return nil
		}
		k := s.kinds[id]
		out = append(out, s.newFinding(id, sev, rel, k.what+" present in the source tree",
			k.what+" "+rel+" is present in the scanned tree (not a git repository, so whether it is shared could not be checked).",
			rel, map[string]any{"tracked": false}))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("git-hygiene: walk %s: %w", root, err)
	}
	return out, nil
}

// ReadsFile tells an image target (scan/image) which files the scanner
// reads outside a repository: sensitive names, decided on the content's
// first bytes as the scan decides them (data nil: by name alone, so every
// kind that depends on content counts). An image holding a repository is
// unpacked whole.
func (s *gitHygieneScanner) ReadsFile(rel string, data []byte) bool {
	if tree.UnderSkippedDir(rel) {
		return false
	}
	base := strings.ToLower(path.Base(rel))
	if data == nil && (path.Ext(base) == ".sql" || base == ".npmrc" || base == ".pypirc") {
		return true
	}
	_, _, ok := gitHygieneClassify(rel, func() ([]byte, bool) { return data[:min(len(data), gitHygieneSniffBytes)], data != nil })
	return ok
}
