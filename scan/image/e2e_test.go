package image_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"scand/finding"
	"scand/scan"
	"scand/scan/components"
	"scand/scan/image"
	"scand/scan/internal/imagetest"
	"scand/scan/internal/scantest"
	"scand/scan/proc"
	"scand/scan/registry"
	"scand/scan/workdir"
)

// daemon runs the real registry and the real image preparer over a store.
func daemon(t *testing.T, limits image.Limits) (*scantest.Daemon, *workdir.Dir) {
	t.Helper()
	return daemonStarting(t, limits, true)
}

// daemonStarting wires the image preparer; with early as the daemon does:
// it may start the registry's trivy on the archive while it unpacks, and
// writes out only the files the scan's scanners read. Without, it writes
// out every file and runs trivy at its turn.
func daemonStarting(t *testing.T, limits image.Limits, early bool) (*scantest.Daemon, *workdir.Dir) {
	t.Helper()
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	// kics would spend most of the test reading the Debian root's files
	// as infrastructure code; it has its own tests.
	getenv := func(k string) string {
		if k == "SVC_KICS_QUERIES" {
			return "/nonexistent"
		}
		return os.Getenv(k)
	}
	cfg := scan.Config{Runner: proc.NewRunner(5 * time.Minute), Getenv: getenv}
	return scantest.NewDaemon(t, cfg, func(cfg scan.Config) ([]scan.Scanner, scan.TargetPreparer) {
		scanners := registry.All(cfg)
		o := image.Options{Config: cfg, Work: work, Limits: limits}
		if early {
			o.Scanners, o.CaptureReads = scanners, components.CaptureReads
		}
		return scanners, registry.Preparers{Image: image.New(o)}
	}), work
}

// workEmpty waits for the scan's prepared root to go: the scan is
// recorded as ended just before the orchestrator removes it.
func workEmpty(t *testing.T, work *workdir.Dir) {
	t.Helper()
	var entries []os.DirEntry
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if entries, _ = os.ReadDir(work.Path()); len(entries) <= 1 {
			break
		}
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".owner") {
			t.Errorf("left in the work directory: %s", e.Name())
		}
	}
}

// dpkgPackages is what dpkg itself says is installed in the root file
// system tar, read with dpkg-query against an extracted copy of its
// database.
func dpkgPackages(t *testing.T, rootfs []byte) map[string]string {
	t.Helper()
	admin := t.TempDir()
	tr := tar.NewReader(bytes.NewReader(rootfs))
	for {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		if strings.TrimPrefix(hdr.Name, "./") == "var/lib/dpkg/status" {
			b := new(bytes.Buffer)
			b.ReadFrom(tr)
			os.WriteFile(filepath.Join(admin, "status"), b.Bytes(), 0o644)
		}
	}
	out, err := exec.Command("dpkg-query", "--admindir="+admin, "-W", "-f", "${Package} ${Version} ${Architecture} ${db:Status-Abbrev}\n").Output()
	if err != nil {
		t.Fatalf("dpkg-query: %v", err)
	}
	pkgs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 4 && f[3] == "ii" {
			pkgs[f[0]+":"+f[2]] = f[1]
		}
	}
	if len(pkgs) < 10 {
		t.Fatalf("dpkg-query found only %d packages", len(pkgs))
	}
	return pkgs
}

func debianRootfs(t *testing.T) []byte {
	t.Helper()
	rootfs, err := os.ReadFile(imagetest.DebianRootfs(t))
	if err != nil {
		t.Fatal(err)
	}
	return rootfs
}

// webapp is an application layer's entries: a .env with an AWS key pair
// (a later deleteLayer removes it), and the webapp fixture's manifest and
// lockfile.
func webapp(t *testing.T) []imagetest.Entry {
	t.Helper()
	lock, _ := os.ReadFile("../../testdata/wrappers/tree/webapp/package-lock.json")
	manifest, _ := os.ReadFile("../../testdata/wrappers/tree/webapp/package.json")
	return []imagetest.Entry{
		{Name: "app/", Type: tar.TypeDir},
		{Name: "app/.env", Body: "AWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\n"},
		{Name: "app/package.json", Body: string(manifest)},
		{Name: "app/package-lock.json", Body: string(lock)},
	}
}

// The Debian image scanned end to end: its SBOM lists every package of
// its dpkg status with a correct purl, the secret a later layer deleted is
// reported with the layer that added it, the configuration is audited,
// and nothing is left on disk.
func TestScanDebianImage(t *testing.T) {
	rootfs := debianRootfs(t)
	app := imagetest.Layer(t, webapp(t)...)
	img := imagetest.Image{
		Layers:  [][]byte{rootfs, app, deleteLayer(t)},
		Config:  map[string]any{"Env": []string{"PATH=/usr/local/bin:/usr/bin", "GITHUB_TOKEN=" + envSecret}, "ExposedPorts": map[string]any{"8080/tcp": map[string]any{}}},
		History: []string{"ADD rootfs.tar /", "COPY app /app", "RUN rm /app/.env"},
		Tags:    []string{"registry.corp/shop/api:2.0"},
	}
	dir := t.TempDir()
	archives := map[string]string{"docker-archive": filepath.Join(dir, "api.tar"), "oci-layout": filepath.Join(dir, "layout")}
	imagetest.WriteDockerArchive(t, archives["docker-archive"], img)
	gz := img
	gz.Gzip = true
	imagetest.WriteOCILayout(t, archives["oci-layout"], gz)
	d, work := daemon(t, image.Limits{})
	want := dpkgPackages(t, rootfs)
	for _, format := range []string{"docker-archive", "oci-layout"} {
		t.Run(format, func(t *testing.T) { scanDebianImage(t, d, work, archives[format], img, want) })
	}
}

func scanDebianImage(t *testing.T, d *scantest.Daemon, work *workdir.Dir, archive string, img imagetest.Image, want map[string]string) {
	start := time.Now()
	sc := d.Scan(t, archive, []string{scan.TypeCode, scan.TypeDependency, scan.TypeIaC, scan.TypeBaseline}, &scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}})
	t.Logf("scan took %s; scanners run %v, skipped %v", time.Since(start).Round(time.Millisecond), sc.ScannersRun, sc.ScannersSkipped)
	for _, ev := range d.Events() {
		if strings.HasPrefix(ev, "scanner.complete") {
			t.Log(ev)
		}
	}
	if sc.Status != "completed" {
		t.Fatalf("scan %s: %s", sc.Status, sc.Error)
	}
	workEmpty(t, work)
	diffIDs := img.DiffIDs()

	// What the scan recorded about the image.
	targets, err := d.Store.ScanTargetsByID(context.Background(), []string{sc.ID})
	if err != nil {
		t.Fatal(err)
	}
	var res scan.Resolved
	json.Unmarshal([]byte(targets[sc.ID].Resolved), &res)
	if res.Image == nil || !strings.HasPrefix(res.Image.Digest, "sha256:") || res.Image.OS != "linux" || res.Image.Architecture != "amd64" ||
		!slices.Equal(res.Image.Tags, img.Tags) || !slices.Equal(res.Image.Layers, diffIDs) {
		t.Errorf("resolved = %s", targets[sc.ID].Resolved)
	}

	// The SBOM: every package dpkg lists, with a correct purl.
	raw, err := d.Store.ScanComponents(context.Background(), sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	var comps []components.Component
	if err := json.Unmarshal(raw, &comps); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]components.Component{}
	for _, c := range comps {
		if c.Ecosystem == "deb" {
			arch := c.PURL[strings.Index(c.PURL, "arch=")+5:]
			arch, _, _ = strings.Cut(arch, "&")
			byKey[c.Name+":"+arch] = c
		}
	}
	for key, version := range want {
		c, ok := byKey[key]
		if !ok {
			t.Errorf("SBOM lacks %s %s", key, version)
			continue
		}
		name, arch, _ := strings.Cut(key, ":")
		epoch, v := "", version
		if i := strings.Index(version, ":"); i > 0 {
			epoch, v = version[:i], version[i+1:]
		}
		purl := "pkg:deb/debian/" + name + "@" + strings.NewReplacer("+", "%2B", ":", "%3A").Replace(v) + "?arch=" + arch + "&distro=debian-12"
		if epoch != "" {
			purl += "&epoch=" + epoch
		}
		if c.PURL != purl || c.Version != version || c.Source != "var/lib/dpkg/status" {
			t.Errorf("%s: purl %s version %s source %s; want %s %s", key, c.PURL, c.Version, c.Source, purl, version)
		}
	}
	if len(byKey) != len(want) {
		t.Errorf("SBOM has %d deb packages, dpkg %d", len(byKey), len(want))
	}
	if c := byKey["openssl:amd64"]; len(c.Licenses) == 0 || c.LicenseSource != "usr/share/doc/openssl/copyright" {
		t.Errorf("openssl licences = %v from %q", c.Licenses, c.LicenseSource)
	}
	trivyAgrees(t, archive, byKey)

	// Findings.
	fs := d.Findings(t, sc.ID)
	var deleted, envSecretFound, rootUser bool
	for _, f := range fs {
		b, _ := json.Marshal(f)
		for _, secret := range []string{awsSecret, envSecret} {
			if strings.Contains(string(b), secret) {
				t.Errorf("a secret value is stored in a finding: %s", b)
			}
		}
		switch {
		case f.Scanner == "layer-secrets" && f.FilePath == diffIDs[1]+":/app/.env":
			deleted = f.Metadata["removed_by_layer"] == diffIDs[2]
		case f.Scanner == "image-config" && f.RuleID == "IMG004":
			envSecretFound = f.FilePath == "config:/config/Env" && f.Line == 2
		case f.Scanner == "image-config" && f.RuleID == "IMG001":
			rootUser = true
		}
		if strings.HasPrefix(f.FilePath, "var/") || strings.HasPrefix(f.FilePath, "app/") || strings.HasPrefix(f.FilePath, "etc/") {
			t.Errorf("%s finding %s points into the unpacked root, not at a layer: %s", f.Scanner, f.RuleID, f.FilePath)
		}
	}
	if !deleted || !envSecretFound || !rootUser {
		t.Errorf("deleted secret %v, ENV secret %v, root user %v; findings:\n%s", deleted, envSecretFound, rootUser, summary(fs))
	}
	if slices.Contains(sc.ScannersRun, "osv-scanner") || slices.Contains(sc.ScannersRun, "trivy") {
		lockPath := diffIDs[1] + ":/app/package-lock.json"
		n := 0
		for _, f := range fs {
			if f.FilePath == lockPath && (f.Scanner == "osv-scanner" || f.Scanner == "trivy") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no vulnerability reported for %s:\n%s", lockPath, summary(fs))
		}
	}
}

func summary(fs any) string {
	b, _ := json.MarshalIndent(fs, "", " ")
	if len(b) > 4000 {
		b = b[:4000]
	}
	return string(b)
}

// trivyAgrees compares the deb purls with Trivy's own SBOM of the same
// archive, when Trivy is installed. Trivy names the distribution by its
// point release (debian-12.8) where scand follows os-release (debian-12),
// so the distro qualifier is left out of the comparison.
func trivyAgrees(t *testing.T, archive string, ours map[string]components.Component) {
	cache := os.Getenv("SVC_TRIVY_CACHE")
	if _, err := exec.LookPath("trivy"); err != nil || cache == "" {
		t.Log("trivy not installed: purls not compared with Trivy's")
		return
	}
	out, err := exec.Command("trivy", "image", "--input", archive, "--format", "cyclonedx", "--quiet", "--cache-dir", cache,
		"--cache-backend", "memory", "--skip-db-update", "--skip-java-db-update", "--offline-scan", "--skip-version-check", "--disable-telemetry").Output()
	if err != nil {
		t.Fatalf("trivy: %v", err)
	}
	var bom struct {
		Components []struct {
			PURL string `json:"purl"`
		} `json:"components"`
	}
	json.Unmarshal(out, &bom)
	strip := func(p string) string {
		base, q, _ := strings.Cut(p, "?")
		var keep []string
		for _, kv := range strings.Split(q, "&") {
			if !strings.HasPrefix(kv, "distro=") {
				keep = append(keep, kv)
			}
		}
		return base + "?" + strings.Join(keep, "&")
	}
	var theirs, mine []string
	for _, c := range bom.Components {
		if strings.HasPrefix(c.PURL, "pkg:deb/") {
			theirs = append(theirs, strip(c.PURL))
		}
	}
	for _, c := range ours {
		mine = append(mine, strip(c.PURL))
	}
	slices.Sort(theirs)
	slices.Sort(mine)
	if !slices.Equal(theirs, mine) {
		t.Errorf("deb purls differ from Trivy's:\n ours   %q\n trivy  %q", mine, theirs)
	}
}

// Hostile archives fail the scan with a clear error, write nothing
// outside the temporary root, and leave nothing behind.
func TestHostileArchives(t *testing.T) {
	outside := t.TempDir()
	base := imagetest.Layer(t, imagetest.Entry{Name: "etc/", Type: tar.TypeDir}, imagetest.Entry{Name: "etc/hostname", Body: "box\n"})
	zeros := make([]byte, 48<<20)
	bomb := append(imagetest.Layer(t, imagetest.Entry{Name: "a.txt", Body: "a"}), zeros...)
	many := []imagetest.Entry{}
	for i := 0; i < 3000; i++ {
		many = append(many, imagetest.Entry{Name: "f/" + strings.Repeat("x", 8) + "-" + string(rune('a'+i%26)) + "-" + itoa(i), Body: "x"})
	}
	cases := []struct {
		name   string
		layers [][]byte
		tamper bool
		want   string
	}{
		{"dot-dot escape", [][]byte{base, imagetest.Layer(t, imagetest.Entry{Name: "../../escape.txt", Body: "pwned"})}, false, `".." in path`},
		{"absolute path", [][]byte{base, imagetest.Layer(t, imagetest.Entry{Name: "/etc/cron.d/evil", Body: "pwned"})}, false, "absolute path"},
		{"symlink escape", [][]byte{
			imagetest.Layer(t, imagetest.Entry{Name: "evil", Type: tar.TypeSymlink, Link: outside}),
			imagetest.Layer(t, imagetest.Entry{Name: "evil/pwned.txt", Body: "pwned"}),
		}, false, "symbolic link"},
		{"symlink escape in one layer", [][]byte{imagetest.Layer(t,
			imagetest.Entry{Name: "up", Type: tar.TypeSymlink, Link: "../../../../../../.." + outside},
			imagetest.Entry{Name: "up/pwned.txt", Body: "pwned"},
		)}, false, "symbolic link"},
		{"symlink then file over it", [][]byte{
			imagetest.Layer(t, imagetest.Entry{Name: "target", Type: tar.TypeSymlink, Link: filepath.Join(outside, "pwned.txt")}),
			imagetest.Layer(t, imagetest.Entry{Name: "target", Body: "replaces the link, never writes through it"}, imagetest.Entry{Name: "../x", Body: "stop"}),
		}, false, `".." in path`},
		{"hard link out", [][]byte{base, imagetest.Layer(t, imagetest.Entry{Name: "passwd", Type: tar.TypeLink, Link: "../../../etc/passwd"})}, false, "hard link target"},
		{"hard link to a symlink", [][]byte{base, imagetest.Layer(t,
			imagetest.Entry{Name: "lnk", Type: tar.TypeSymlink, Link: "/etc/passwd"},
			imagetest.Entry{Name: "hl", Type: tar.TypeLink, Link: "lnk"},
		)}, false, "not a regular file"},
		{"10 GB sparse claim", [][]byte{base, imagetest.Layer(t, imagetest.Entry{Name: "huge.img", Size: 10 << 30})}, false, "claims 10737418240 bytes"},
		{"tar bomb: entries", [][]byte{base, imagetest.Layer(t, many...)}, false, "more than 2000 entries"},
		{"tar bomb: decompression", [][]byte{base, bomb}, false, "decompresses to more than"},
		{"tampered layer", [][]byte{base, imagetest.Layer(t, imagetest.Entry{Name: "app", Body: "x"})}, true, "tampered"},
	}
	// Both ways of unpacking refuse the same archives: writing out every
	// file, and only what the scanners read (the rest kept as names).
	for _, readOnly := range []bool{false, true} {
		d, work := daemonStarting(t, image.Limits{MaxFiles: 2000, MaxBytes: 16 << 20}, readOnly)
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/read-only=%v", tc.name, readOnly), func(t *testing.T) { hostileArchive(t, d, work, outside, tc.layers, tc.tamper, tc.want) })
		}
	}
}

func hostileArchive(t *testing.T, d *scantest.Daemon, work *workdir.Dir, outside string, layers [][]byte, tamper bool, want string) {
	t.Helper()
	img := imagetest.Image{Layers: layers, Gzip: true}
	dir := t.TempDir()
	imagetest.WriteOCILayout(t, dir, img)
	if tamper {
		tamperLastLayer(t, dir, img)
	}
	start := time.Now()
	sc := d.Scan(t, dir, []string{scan.TypeCode}, &scan.TargetSpec{Image: &scan.ImageSpec{Path: dir}})
	if sc.Status != "failed" || !strings.Contains(sc.Error, want) {
		t.Errorf("status %s, error %q; want failed with %q", sc.Status, sc.Error, want)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("refusal took %s", took)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the temporary root: %v", entries)
	}
	if _, err := os.Lstat(filepath.Join(filepath.Dir(work.Path()), "escape.txt")); err == nil {
		t.Error("escape.txt written beside the work directory")
	}
	workEmpty(t, work)
}

// tamperLastLayer rewrites the top layer blob (keeping its file name), so
// its content no longer matches the digests the manifest and the
// configuration give it.
func tamperLastLayer(t *testing.T, dir string, img imagetest.Image) {
	t.Helper()
	evil := imagetest.Layer(t, imagetest.Entry{Name: "app", Body: "swapped"})
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(evil)
	zw.Close()
	var idx struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "index.json"))
	json.Unmarshal(b, &idx)
	mb, _ := os.ReadFile(filepath.Join(dir, "blobs/sha256", strings.TrimPrefix(idx.Manifests[0].Digest, "sha256:")))
	var m struct {
		Layers []struct{ Digest string } `json:"layers"`
	}
	json.Unmarshal(mb, &m)
	last := m.Layers[len(m.Layers)-1].Digest
	if err := os.WriteFile(filepath.Join(dir, "blobs/sha256", strings.TrimPrefix(last, "sha256:")), z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(i int) string {
	return strings.TrimLeft(string([]byte{byte('0' + i/1000%10), byte('0' + i/100%10), byte('0' + i/10%10), byte('0' + i%10)}), "")
}

// Trivy reads an OCI archive through the layout scand writes out for it.
func TestTrivyReadsAnOCIArchive(t *testing.T) {
	if _, err := exec.LookPath("trivy"); err != nil || os.Getenv("SVC_TRIVY_CACHE") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("trivy is not installed (.ci/install-scanners.sh)")
		}
		t.Skip("trivy not installed")
	}
	rootfs, err := os.ReadFile(imagetest.DebianRootfs(t))
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(t.TempDir(), "oci.tar")
	imagetest.WriteOCIArchive(t, archive, imagetest.Image{Layers: [][]byte{rootfs}, Gzip: true})
	d, work := daemon(t, image.Limits{})
	sc := d.Scan(t, archive, []string{scan.TypeDependency}, &scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}})
	if sc.Status != "completed" || !slices.Contains(sc.ScannersRun, "trivy") {
		t.Fatalf("scan %s %q: run %v skipped %v", sc.Status, sc.Error, sc.ScannersRun, sc.ScannersSkipped)
	}
	workEmpty(t, work)
}

// Trivy started on the archive while the layers unpack reports exactly
// what it reports when started at its turn, and runs no longer than the
// scan: the prepared root and the run are gone when the scan ends.
func TestEarlyTrivyMatchesTheRunAtItsTurn(t *testing.T) {
	if _, err := exec.LookPath("trivy"); err != nil || os.Getenv("SVC_TRIVY_CACHE") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("trivy is not installed (.ci/install-scanners.sh)")
		}
		t.Skip("trivy not installed")
	}
	rootfs, err := os.ReadFile(imagetest.DebianRootfs(t))
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := os.ReadFile("../../testdata/wrappers/tree/webapp/package-lock.json")
	// trivy image reads installed packages (node_modules), not lockfiles.
	app := imagetest.Layer(t, imagetest.Entry{Name: "app/", Type: tar.TypeDir}, imagetest.Entry{Name: "app/package-lock.json", Body: string(lock)},
		imagetest.Entry{Name: "app/node_modules/", Type: tar.TypeDir}, imagetest.Entry{Name: "app/node_modules/lodash/", Type: tar.TypeDir},
		imagetest.Entry{Name: "app/node_modules/lodash/package.json", Body: `{"name": "lodash", "version": "4.17.15", "license": "MIT"}`})
	archive := filepath.Join(t.TempDir(), "api.tar")
	imagetest.WriteDockerArchive(t, archive, imagetest.Image{Layers: [][]byte{rootfs, app}})
	trivyFindings := func(early bool) []string {
		d, work := daemonStarting(t, image.Limits{}, early)
		sc := d.Scan(t, archive, []string{scan.TypeDependency}, &scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}})
		if sc.Status != "completed" || !slices.Contains(sc.ScannersRun, "trivy") {
			t.Fatalf("early=%v: scan %s %q: run %v skipped %v", early, sc.Status, sc.Error, sc.ScannersRun, sc.ScannersSkipped)
		}
		workEmpty(t, work)
		var got []string
		for _, f := range d.Findings(t, sc.ID) {
			if also, _ := json.Marshal(f.Metadata[finding.MetaAlsoReportedBy]); f.Scanner == "trivy" || strings.Contains(string(also), `"trivy"`) {
				got = append(got, f.Fingerprint+" "+f.FilePath+" "+f.RuleID)
			}
		}
		slices.Sort(got)
		return got
	}
	atTurn, early := trivyFindings(false), trivyFindings(true)
	if len(atTurn) == 0 {
		t.Fatal("trivy found nothing in the image: the comparison proves nothing")
	}
	if !slices.Equal(early, atTurn) {
		t.Errorf("trivy started early reports\n%s\nat its turn\n%s", strings.Join(early, "\n"), strings.Join(atTurn, "\n"))
	}
}

// Writing out only the files the scanners read changes nothing a scan
// reports. The Debian image with an application layer (secrets found by
// content and by name, a lockfile, an installed npm package, hard links
// to files with and without a secret, a file a later layer deletes) is
// scanned for code and dependencies both ways: every finding (fingerprint,
// path, rule, scanner), the SBOM and the scanners run are the same, while
// far fewer files reach the disk.
func TestWritingOutWhatScannersReadChangesNoResult(t *testing.T) {
	rootfs := debianRootfs(t)
	app := imagetest.Layer(t, append(webapp(t),
		imagetest.Entry{Name: "app/notes.md", Body: "deploy token: " + envSecret + "\n"},
		imagetest.Entry{Name: "app/notes-copy.md", Type: tar.TypeLink, Link: "app/notes.md"},
		imagetest.Entry{Name: "app/readme.txt", Body: "nothing to see\n"},
		imagetest.Entry{Name: "app/.env.local", Type: tar.TypeLink, Link: "app/readme.txt"},
		imagetest.Entry{Name: "app/server.key", Body: "not a key, but named like one\n"},
		imagetest.Entry{Name: "app/.npmrc", Body: "//registry.corp/:_authToken=${NPM_TOKEN}\nalways-auth=true\n_password=aHVudGVyMg==\n"},
		imagetest.Entry{Name: "app/.npmrc.bak", Type: tar.TypeLink, Link: "app/readme.txt"},
		imagetest.Entry{Name: "app/node_modules/", Type: tar.TypeDir},
		imagetest.Entry{Name: "app/node_modules/lodash/", Type: tar.TypeDir},
		imagetest.Entry{Name: "app/node_modules/lodash/package.json", Body: `{"name": "lodash", "version": "4.17.15", "license": "MIT"}`},
		imagetest.Entry{Name: "app/node_modules/lodash/LICENSE", Body: "MIT License\n"},
		imagetest.Entry{Name: "app/requirements.txt", Body: "requests==2.19.0\n"},
		imagetest.Entry{Name: "usr/lib/python3/dist-packages/requests-2.19.0.dist-info/", Type: tar.TypeDir},
		imagetest.Entry{Name: "usr/lib/python3/dist-packages/requests-2.19.0.dist-info/METADATA", Body: "Metadata-Version: 2.1\nName: requests\nVersion: 2.19.0\nLicense: Apache 2.0\n"},
		imagetest.Entry{Name: "usr/lib/python3/dist-packages/requests-2.19.0.dist-info/RECORD", Body: "requests/__init__.py,,\n"},
	)...)
	archive := filepath.Join(t.TempDir(), "api.tar")
	imagetest.WriteDockerArchive(t, archive, imagetest.Image{Layers: [][]byte{rootfs, app, deleteLayer(t)}})
	types := []string{scan.TypeCode, scan.TypeDependency}

	// What reaches the disk.
	count := func(p *image.Preparer) (files int, root string) {
		prep := prepare(t, p, archive, types...)
		filepath.WalkDir(prep.Root, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files++
			}
			return nil
		})
		return files, prep.Root
	}
	all, _ := count(newPreparer(t, image.Limits{}))
	some, root := count(newReadingPreparer(t))
	t.Logf("files written out: %d of %d", some, all)
	if some*10 > all {
		t.Errorf("%d of %d files written out; the scanners read far fewer", some, all)
	}
	for _, want := range []string{"var/lib/dpkg/status", "etc/os-release", "usr/lib/os-release", "app/notes.md", "app/server.key", "app/package-lock.json"} {
		if _, err := os.Lstat(filepath.Join(root, want)); err != nil {
			t.Errorf("%s not written out: %v", want, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "usr/bin/perl")); err == nil {
		t.Error("usr/bin/perl written out; no scanner reads it")
	}

	// What the scans report.
	results := func(readOnly bool) (findings []string, sbom string, ran []string) {
		d, work := daemonStarting(t, image.Limits{}, readOnly)
		sc := d.Scan(t, archive, types, &scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}})
		if sc.Status != "completed" {
			t.Fatalf("read-only=%v: scan %s %q", readOnly, sc.Status, sc.Error)
		}
		workEmpty(t, work)
		for _, f := range d.Findings(t, sc.ID) {
			findings = append(findings, f.Fingerprint+" "+f.FilePath+" "+f.RuleID+" "+f.Scanner)
		}
		slices.Sort(findings)
		raw, err := d.Store.ScanComponents(context.Background(), sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		return findings, string(raw), sc.ScannersRun
	}
	wholeFindings, wholeSBOM, wholeRan := results(false)
	readFindings, readSBOM, readRan := results(true)
	for _, scanner := range []string{"secrets", "layer-secrets", "git-hygiene"} {
		if !slices.ContainsFunc(wholeFindings, func(f string) bool { return strings.HasSuffix(f, " "+scanner) }) {
			t.Errorf("no %s finding: the comparison proves less than it should\n%s", scanner, strings.Join(wholeFindings, "\n"))
		}
	}
	if !strings.Contains(wholeSBOM, "pkg:deb/debian/") || !strings.Contains(wholeSBOM, "pkg:npm/lodash@4.17.15") || !strings.Contains(wholeSBOM, "requests-2.19.0.dist-info/METADATA") {
		t.Errorf("SBOM lacks the Debian packages or lodash: %.300s", wholeSBOM)
	}
	if !slices.Equal(readFindings, wholeFindings) {
		t.Errorf("findings differ:\nonly what scanners read:\n%s\nwhole:\n%s", strings.Join(readFindings, "\n"), strings.Join(wholeFindings, "\n"))
	}
	if readSBOM != wholeSBOM {
		t.Errorf("SBOM differs (%d bytes against %d)", len(readSBOM), len(wholeSBOM))
	}
	if !slices.Equal(readRan, wholeRan) {
		t.Errorf("scanners run %v, whole %v", readRan, wholeRan)
	}
}
