package image_test

import (
	"context"
	"math/rand/v2"
	"os"
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
	"scand/scan/registry"
	"scand/scan/secrets"
	"scand/scan/workdir"
)

// A leaked AWS key pair, in a file a later layer deletes.
const (
	awsKeyID  = "AKIAZ7Q3XK2M5N8P4R6T"
	awsSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzQ8v3kL2pA"
	envSecret = "ghp_9fK2mQ7xR4tL8vN3pW6yB1cD5hJ0sG2aZ4eX"
)

func secretLayer(t testing.TB) []byte {
	return imagetest.Layer(t,
		imagetest.Entry{Name: "app/", Type: '5'},
		imagetest.Entry{Name: "app/.env", Body: "AWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\n"},
		imagetest.Entry{Name: "app/main.sh", Body: "#!/bin/sh\necho hello\n", Mode: 0o755},
	)
}

func deleteLayer(t testing.TB) []byte {
	return imagetest.Layer(t, imagetest.Entry{Name: "app/.wh..env", Body: ""})
}

func newPreparer(t *testing.T, limits image.Limits) *image.Preparer {
	t.Helper()
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	return image.New(image.Options{Work: work, Limits: limits})
}

func prepare(t *testing.T, p *image.Preparer, path string, types ...string) *scan.Prepared {
	t.Helper()
	if len(types) == 0 {
		types = []string{scan.TypeCode, scan.TypeDependency, scan.TypeIaC}
	}
	prep, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: path}}, types)
	if err != nil {
		t.Fatalf("Prepare(%s): %v", path, err)
	}
	t.Cleanup(prep.Close)
	return prep
}

func runExtra(t *testing.T, prep *scan.Prepared, name string) []finding.Finding {
	t.Helper()
	for _, s := range prep.Scanners {
		if s.Name() == name {
			fs, err := s.Scan(context.Background(), scan.Target{Path: prep.Root})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return fs
		}
	}
	t.Fatalf("no scanner %s", name)
	return nil
}

// The three formats of one small image unpack to the same root, verify,
// report the same image digest, and find the deleted secret in its layer.
func TestFormatsAndDeletedSecret(t *testing.T) {
	img := imagetest.Image{
		Layers: [][]byte{
			imagetest.Layer(t, imagetest.Entry{Name: "etc/", Type: '5'}, imagetest.Entry{Name: "etc/os-release", Body: "ID=debian\nVERSION_ID=\"12\"\n"},
				imagetest.Entry{Name: "var/lib/rpm/Packages", Body: "\x00\x06\x15\x61 Berkeley DB"}),
			secretLayer(t), deleteLayer(t),
		},
		Config:  map[string]any{"Env": []string{"PATH=/usr/bin", "GITHUB_TOKEN=" + envSecret}, "ExposedPorts": map[string]any{"22/tcp": map[string]any{}, "8080/tcp": map[string]any{}}},
		History: []string{"ADD rootfs.tar /", "COPY app /app", "RUN curl -fsSL https://get.example.com/install.sh | sh && rm /app/.env"},
		Tags:    []string{"shop/api:1.4"},
		Gzip:    true,
	}
	dir := t.TempDir()
	paths := map[string]string{
		"docker-archive": filepath.Join(dir, "image.tar"),
		"oci-layout":     filepath.Join(dir, "layout"),
		"oci-archive":    filepath.Join(dir, "oci.tar"),
	}
	imagetest.WriteDockerArchive(t, paths["docker-archive"], img)
	imagetest.WriteOCILayout(t, paths["oci-layout"], img)
	imagetest.WriteOCIArchive(t, paths["oci-archive"], img)
	diffIDs := img.DiffIDs()
	p := newPreparer(t, image.Limits{})
	var digests []string
	for format, path := range paths {
		t.Run(format, func(t *testing.T) {
			prep := prepare(t, p, path)
			info := prep.Resolved.Image
			if info == nil || info.Format != format || info.OS != "linux" || info.Architecture != "amd64" || !slices.Equal(info.Layers, diffIDs) {
				t.Fatalf("resolved = %+v", info)
			}
			if !slices.Equal(info.Tags, []string{"shop/api:1.4"}) {
				t.Errorf("tags = %v", info.Tags)
			}
			digests = append(digests, info.Digest)
			if _, err := os.Lstat(filepath.Join(prep.Root, "app/.env")); !os.IsNotExist(err) {
				t.Errorf("app/.env survived its whiteout: %v", err)
			}
			if b, err := os.ReadFile(filepath.Join(prep.Root, "app/main.sh")); err != nil || !strings.Contains(string(b), "hello") {
				t.Errorf("app/main.sh = %q, %v", b, err)
			}
			if got := prep.MapPath("app/main.sh"); got != diffIDs[1]+":/app/main.sh" {
				t.Errorf("MapPath = %q", got)
			}
			if rel, ok := prep.UnmapPath(diffIDs[1] + ":/app/main.sh"); !ok || rel != "app/main.sh" {
				t.Errorf("UnmapPath = %q, %v", rel, ok)
			}
			fs := runExtra(t, prep, "layer-secrets")
			var aws []finding.Finding
			for _, f := range fs {
				if f.FilePath != diffIDs[1]+":/app/.env" {
					t.Errorf("deleted secret at %q, want the layer that added it", f.FilePath)
				}
				if f.Metadata["removed_by_layer"] != diffIDs[2] {
					t.Errorf("removed_by_layer = %v", f.Metadata["removed_by_layer"])
				}
				if strings.Contains(f.Snippet, awsSecret) || strings.Contains(f.Description, awsSecret) {
					t.Errorf("secret value in the finding: %+v", f)
				}
				aws = append(aws, f)
			}
			if len(aws) == 0 {
				t.Fatalf("deleted secret not reported: %+v", fs)
			}
			cfg := runExtra(t, prep, "image-config")
			rules := map[string]int{}
			for _, f := range cfg {
				rules[f.RuleID]++
				if strings.Contains(f.Snippet, envSecret) {
					t.Errorf("ENV secret in a snippet: %q", f.Snippet)
				}
				if f.RuleID == "IMG008" && f.FilePath != diffIDs[0]+":/var/lib/rpm/Packages" {
					t.Errorf("IMG008 at %q", f.FilePath)
				}
			}
			if rules["IMG001"] != 1 || rules["IMG002"] != 1 || rules["IMG003"] != 1 || rules["IMG004"] != 1 || rules["IMG005"] != 1 || rules["IMG008"] != 1 {
				t.Errorf("image-config rules = %v; findings %+v", rules, cfg)
			}
		})
	}
	if len(digests) == 3 && (digests[0] != digests[1] || digests[1] != digests[2]) {
		t.Errorf("image digests differ across formats: %v", digests)
	}
}

// A real Debian root file system made by mmdebstrap unpacks, and the root
// and everything in it is gone after Close.
func TestDebianImageUnpacks(t *testing.T) {
	rootfs, err := os.ReadFile(imagetest.DebianRootfs(t))
	if err != nil {
		t.Fatal(err)
	}
	img := imagetest.Image{Layers: [][]byte{rootfs, secretLayer(t), deleteLayer(t)}, Tags: []string{"debian:test"}}
	path := filepath.Join(t.TempDir(), "debian.tar")
	imagetest.WriteDockerArchive(t, path, img)
	p := newPreparer(t, image.Limits{})
	start := time.Now()
	prep, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: path}}, []string{scan.TypeCode})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("unpacked %d MB in %s", len(rootfs)>>20, time.Since(start).Round(time.Millisecond))
	for _, want := range []string{"var/lib/dpkg/status", "etc/os-release", "usr/bin/openssl"} {
		if _, err := os.Lstat(filepath.Join(prep.Root, want)); err != nil {
			t.Errorf("%s: %v", want, err)
		}
	}
	if fs := runExtra(t, prep, "layer-secrets"); len(fs) == 0 {
		t.Error("deleted secret not reported")
	}
	root := prep.Root
	prep.Close()
	if _, err := os.Lstat(filepath.Dir(root)); !os.IsNotExist(err) {
		t.Errorf("prepared directory left behind: %v", err)
	}
}

// Content a later layer replaced or deleted is reported only when its
// secret does not survive elsewhere: a value still in the file now at
// that path, or a file still reachable through a hard link, is the tree
// scan's to report, once.
func TestRemovedSecretsNotDoubleReported(t *testing.T) {
	env := "AWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\n"
	img := imagetest.Image{Layers: [][]byte{
		imagetest.Layer(t,
			imagetest.Entry{Name: "kept/.env", Body: env},
			imagetest.Entry{Name: "gone/.env", Body: env},
			imagetest.Entry{Name: "linked/.env", Body: env},
			imagetest.Entry{Name: "alias.env", Type: '1', Link: "linked/.env"},
		),
		imagetest.Layer(t,
			// same secret, one more line: the surviving file reports it
			imagetest.Entry{Name: "kept/.env", Body: env + "DEBUG=1\n"},
			// secret removed from the file: only the old layer has it
			imagetest.Entry{Name: "gone/.env", Body: "DEBUG=1\n"},
			// deleted, but alias.env is the same file
			imagetest.Entry{Name: "linked/.wh..env"},
		),
	}}
	path := filepath.Join(t.TempDir(), "image.tar")
	imagetest.WriteDockerArchive(t, path, img)
	// Unpacked whole, and writing out only what the scanners read (the
	// daemon's way): the secret files are written out either way.
	for mode, p := range map[string]*image.Preparer{"whole": newPreparer(t, image.Limits{}), "read": newReadingPreparer(t)} {
		prep := prepare(t, p, path, scan.TypeCode, scan.TypeDependency)
		fs := runExtra(t, prep, "layer-secrets")
		files := map[string]bool{}
		for _, f := range fs {
			files[f.FilePath] = true
		}
		want := img.DiffIDs()[0] + ":/gone/.env"
		if len(files) != 1 || !files[want] {
			t.Errorf("%s: layer-secrets reported %v, want only %s", mode, files, want)
		}
	}
}

// newReadingPreparer is the preparer as the daemon wires it: it writes
// out only the files the registry's scanners read.
func newReadingPreparer(t *testing.T) *image.Preparer {
	t.Helper()
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	return image.New(image.Options{Work: work, Scanners: registry.All(scan.Config{}), CaptureReads: components.CaptureReads})
}

// The time limit stops unpacking and says which limit it was.
func TestTimeLimit(t *testing.T) {
	var big []imagetest.Entry
	for i := 0; i < 20000; i++ {
		big = append(big, imagetest.Entry{Name: "d/f" + strings.Repeat("x", i%7) + "-" + string(rune('a'+i%26)) + "/" + itoa(i), Body: "x"})
	}
	path := filepath.Join(t.TempDir(), "image.tar")
	imagetest.WriteDockerArchive(t, path, imagetest.Image{Layers: [][]byte{imagetest.Layer(t, big...)}})
	p := newPreparer(t, image.Limits{Timeout: 50 * time.Millisecond})
	_, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: path}}, []string{scan.TypeCode})
	if err == nil || !strings.Contains(err.Error(), "SVC_TARGET_TIMEOUT") {
		t.Fatalf("err = %v", err)
	}
}

// earlyStub stands for trivy: it records the archive it was started on
// and the context its early run lives in.
type earlyStub struct {
	scan.Builtin
	archive string
	ctx     context.Context
}

func (e *earlyStub) StartEarly(ctx context.Context, archive string) scan.Scanner {
	e.archive, e.ctx = archive, ctx
	return &plainStub{scan.NewBuiltin("trivy", scan.TypeDependency)}
}

// plainStub is a scanner that cannot start early.
type plainStub struct{ scan.Builtin }

func (plainStub) Scan(context.Context, scan.Target) ([]finding.Finding, error) { return nil, nil }

func (e *earlyStub) Scan(context.Context, scan.Target) ([]finding.Finding, error) { return nil, nil }

// A docker archive or a layout starts the early scanners on the archive,
// for dependency scans only; an OCI archive (whose layout is written out
// first) and a code-only scan do not; the early run ends with the
// prepared root, however the scan ends.
func TestEarlyScannersStartOnTheArchive(t *testing.T) {
	dir := t.TempDir()
	docker, oci := filepath.Join(dir, "img.tar"), filepath.Join(dir, "oci.tar")
	img := imagetest.Image{Layers: [][]byte{secretLayer(t)}}
	imagetest.WriteDockerArchive(t, docker, img)
	imagetest.WriteOCIArchive(t, oci, img)
	work, err := workdir.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { work.Close() })
	stub := &earlyStub{Builtin: scan.NewBuiltin("trivy", scan.TypeDependency)}
	p := image.New(image.Options{Work: work, Scanners: []scan.Scanner{stub, &plainStub{scan.NewBuiltin("secrets", scan.TypeCode)}}})

	prep, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: docker}}, []string{scan.TypeDependency})
	if err != nil {
		t.Fatal(err)
	}
	if prep.Early["trivy"] == nil || len(prep.Early) != 1 || stub.archive != docker {
		t.Fatalf("early %v, started on %q", prep.Early, stub.archive)
	}
	if stub.ctx.Err() != nil {
		t.Fatal("the early run was stopped before the scan ended")
	}
	prep.Close()
	if stub.ctx.Err() == nil {
		t.Error("the early run outlives the prepared root")
	}

	for name, c := range map[string]struct {
		path  string
		types []string
	}{"oci archive": {oci, []string{scan.TypeDependency}}, "code only": {docker, []string{scan.TypeCode}}} {
		stub.archive = ""
		prep, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: c.path}}, c.types)
		if err != nil {
			t.Fatal(err)
		}
		if len(prep.Early) != 0 || stub.archive != "" {
			t.Errorf("%s: early %v, started on %q", name, prep.Early, stub.archive)
		}
		prep.Close()
	}
}

// A link a scanner reads that leads to files no scanner names (here the
// dpkg database moved elsewhere and linked back) makes the image unpack
// whole: the SBOM is the same as when every file is written out.
func TestALinkIntoUnreadFilesUnpacksWhole(t *testing.T) {
	status := "Package: zlib1g\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:1.2.13.dfsg-1\n\n"
	img := imagetest.Image{Layers: [][]byte{imagetest.Layer(t,
		imagetest.Entry{Name: "etc/", Type: '5'},
		imagetest.Entry{Name: "etc/os-release", Body: "ID=debian\nVERSION_ID=\"12\"\n"},
		imagetest.Entry{Name: "opt/dpkg/status", Body: status},
		imagetest.Entry{Name: "var/lib/", Type: '5'},
		imagetest.Entry{Name: "var/lib/dpkg", Type: '2', Link: "../../opt/dpkg"},
		imagetest.Entry{Name: "usr/bin/tool", Body: "#!/bin/sh\n"},
	)}}
	path := filepath.Join(t.TempDir(), "image.tar")
	imagetest.WriteDockerArchive(t, path, img)
	sbom := map[string]string{}
	for mode, p := range map[string]*image.Preparer{"whole": newPreparer(t, image.Limits{}), "read": newReadingPreparer(t)} {
		prep := prepare(t, p, path, scan.TypeCode, scan.TypeDependency)
		raw, err := components.CaptureJSON(context.Background(), prep.Root)
		if err != nil {
			t.Fatal(err)
		}
		sbom[mode] = string(raw)
	}
	if !strings.Contains(sbom["whole"], "pkg:deb/debian/zlib1g@") {
		t.Fatalf("the whole image's SBOM lacks zlib1g: %s", sbom["whole"])
	}
	if sbom["read"] != sbom["whole"] {
		t.Errorf("SBOM\n%s\nwhole\n%s", sbom["read"], sbom["whole"])
	}
}

// Random layer stacks over a small namespace (nested folders, files a
// scanner reads by name or for a secret and files none reads, links,
// hard links, whiteouts, opaque folders, a file replacing a folder and
// back) unpack to the same result both ways: the same refusal, or the
// same secrets and deleted secrets reported, the same SBOM, every file
// written out holding what it holds when every file is, every file a
// scanner reads written out, and every path mapped to the same layer.
func TestVirtualEntriesBehaveAsFilesOnDisk(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2026))
	dirs := []string{"a", "a/b", "a/b/c", "d", "node_modules", "node_modules/x"}
	names := []string{".env", "notes.txt", "package.json", "tool.bin", "readme.md", "id_rsa"}
	body := func() string {
		switch rng.IntN(4) {
		case 0:
			return "token = \"" + envSecret + "\"\n"
		case 1:
			return `{"name": "x", "version": "1.0.0", "license": "MIT"}`
		case 2:
			return "\x00\x01binary"
		}
		return "plain text\n"
	}
	whole, read := newPreparer(t, image.Limits{}), newReadingPreparer(t)
	const rounds = 150
	refused, secretsSeen := 0, 0
	for round := 0; round < rounds; round++ {
		var layers [][]byte
		named := map[string]bool{}
		for l := 0; l < 1+rng.IntN(4); l++ {
			var entries []imagetest.Entry
			var files []string
			for e := 0; e < 3+rng.IntN(10); e++ {
				dir := dirs[rng.IntN(len(dirs))]
				name := dir + "/" + names[rng.IntN(len(names))]
				switch k := rng.IntN(10); {
				case k < 4:
					entries = append(entries, imagetest.Entry{Name: name, Body: body()})
					files = append(files, name)
				case k == 4:
					entries = append(entries, imagetest.Entry{Name: dir + "/", Type: '5'})
				case k == 5:
					entries = append(entries, imagetest.Entry{Name: name, Type: '2', Link: "../" + names[rng.IntN(len(names))]})
				case k == 6 && len(files) > 0:
					entries = append(entries, imagetest.Entry{Name: name, Type: '1', Link: files[rng.IntN(len(files))]})
				case k == 7:
					entries = append(entries, imagetest.Entry{Name: dir + "/.wh." + names[rng.IntN(len(names))]})
				case k == 8:
					entries = append(entries, imagetest.Entry{Name: dirs[rng.IntN(len(dirs))] + "/.wh..wh..opq"})
				default:
					// a file replaces a folder, then a folder the file
					d := dirs[rng.IntN(len(dirs))]
					entries = append(entries, imagetest.Entry{Name: d, Body: body()}, imagetest.Entry{Name: d + "/", Type: '5'})
				}
			}
			for _, e := range entries {
				named[strings.TrimSuffix(e.Name, "/")] = true
			}
			layers = append(layers, imagetest.Layer(t, entries...))
		}
		img := imagetest.Image{Layers: layers}
		archive := filepath.Join(t.TempDir(), "image.tar")
		imagetest.WriteDockerArchive(t, archive, img)
		spec := scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}}
		types := []string{scan.TypeCode, scan.TypeDependency}
		wp, werr := whole.Prepare(context.Background(), spec, types)
		rp, rerr := read.Prepare(context.Background(), spec, types)
		if (werr == nil) != (rerr == nil) || werr != nil && werr.Error() != rerr.Error() {
			t.Fatalf("round %d: whole: %v; read: %v", round, werr, rerr)
		}
		if werr != nil {
			refused++
			if refused < 8 {
				t.Logf("round %d refused: %v", round, werr)
			}
			continue
		}
		secretsSeen += compareRoots(t, round, wp, rp)
		// Every name the stack used, there or not, maps alike: what was
		// removed is forgotten alike.
		for name := range named {
			if w, r := wp.MapPath(name), rp.MapPath(name); w != r {
				t.Errorf("round %d: %s maps to %s, whole %s", round, name, r, w)
			}
		}
		wp.Close()
		rp.Close()
	}
	t.Logf("%d of %d stacks refused alike, %d secrets found alike in the others", refused, rounds, secretsSeen)
	if refused > rounds/2 || secretsSeen < rounds/2 {
		t.Errorf("the stacks exercise too little: %d refused, %d secrets", refused, secretsSeen)
	}
}

// compareRoots checks one round and returns the secrets found in it.
func compareRoots(t *testing.T, round int, wp, rp *scan.Prepared) int {
	t.Helper()
	secretsOf := func(p *scan.Prepared) []string {
		var out []string
		for _, f := range scantest.Scan(t, registryScanner(t, "secrets"), p.Root) {
			out = append(out, p.MapPath(f.FilePath)+" "+f.RuleID)
		}
		for _, f := range runExtra(t, p, "layer-secrets") {
			out = append(out, f.FilePath+" "+f.RuleID)
		}
		slices.Sort(out)
		return out
	}
	w, r := secretsOf(wp), secretsOf(rp)
	if !slices.Equal(w, r) {
		t.Errorf("round %d: secrets\n%v\nwhole\n%v", round, r, w)
	}
	wc, _ := components.CaptureJSON(context.Background(), wp.Root)
	rc, _ := components.CaptureJSON(context.Background(), rp.Root)
	if string(wc) != string(rc) {
		t.Errorf("round %d: SBOM\n%s\nwhole\n%s", round, rc, wc)
	}
	content := secrets.NewContent(scan.Config{})
	filepath.WalkDir(wp.Root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == wp.Root {
			return nil
		}
		rel, _ := filepath.Rel(wp.Root, p)
		if wp.MapPath(rel) != rp.MapPath(rel) {
			t.Errorf("round %d: %s maps to %s, whole %s", round, rel, rp.MapPath(rel), wp.MapPath(rel))
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join(rp.Root, rel))
		if err == nil && string(got) != string(data) {
			t.Errorf("round %d: %s holds %q, whole %q", round, rel, got, data)
		}
		if err != nil && (components.CaptureReads(rel) || content.ReadsFile(rel, data)) {
			t.Errorf("round %d: %s, which a scanner reads, was not written out", round, rel)
		}
		return nil
	})
	filepath.WalkDir(rp.Root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != rp.Root {
			rel, _ := filepath.Rel(rp.Root, p)
			if _, err := os.Lstat(filepath.Join(wp.Root, rel)); err != nil {
				t.Errorf("round %d: %s written out, but absent when every file is", round, rel)
			}
		}
		return nil
	})
	return len(w)
}

func registryScanner(t *testing.T, name string) scan.Scanner {
	t.Helper()
	for _, s := range registry.All(scan.Config{Getenv: func(string) string { return "" }}) {
		if s.Name() == name {
			return s
		}
	}
	t.Fatalf("no scanner %s", name)
	return nil
}
