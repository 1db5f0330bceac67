package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// imageLayer is one layer: entries in order, a body per regular file;
// a nil body with a name ending in / is a directory.
type imageLayer []struct{ name, body string }

// writeDockerArchive writes a `docker save` archive of layers (bottom
// first) to path and returns the layers' diff ids.
func writeDockerArchive(t *testing.T, path string, layers ...imageLayer) []string {
	t.Helper()
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	add := func(name string, data []byte) {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	var diffIDs, names []string
	for i, l := range layers {
		var b bytes.Buffer
		lw := tar.NewWriter(&b)
		for _, e := range l {
			h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
			if e.name[len(e.name)-1] == '/' {
				h = &tar.Header{Name: e.name, Mode: 0o755, Typeflag: tar.TypeDir}
			}
			if err := lw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			lw.Write([]byte(e.body))
		}
		lw.Close()
		sum := sha256.Sum256(b.Bytes())
		diffIDs = append(diffIDs, "sha256:"+hex.EncodeToString(sum[:]))
		name := "layer" + string(rune('0'+i)) + ".tar"
		names = append(names, name)
		add(name, b.Bytes())
	}
	config, _ := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux", "config": map[string]any{"User": "app"},
		"rootfs": map[string]any{"type": "layers", "diff_ids": diffIDs}})
	sum := sha256.Sum256(config)
	configName := hex.EncodeToString(sum[:]) + ".json"
	add(configName, config)
	manifest, _ := json.Marshal([]map[string]any{{"Config": configName, "RepoTags": []string{"shop/api:e2e"}, "Layers": names}})
	add("manifest.json", manifest)
	tw.Close()
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return diffIDs
}

// `scand scan --image` on the built binary: an image archive is unpacked
// (only what its scanners read written out), a secret in a file is
// reported at its layer, one a later layer deleted by layer-secrets, and
// the run leaves nothing in its work directory.
func TestCLIImageScan(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "api.tar")
	diffIDs := writeDockerArchive(t, archive,
		imageLayer{{"etc/", ""}, {"etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n"}, {"usr/", ""}, {"usr/bin/", ""}, {"usr/bin/tool", "#!/bin/sh\necho hi\n"}},
		imageLayer{{"app/", ""}, {"app/deploy.sh", "TOKEN=" + githubPAT + "\n"}, {"app/old.py", "aws_key = \"" + awsKey + "\"\n"}},
		imageLayer{{"app/.wh.old.py", ""}},
	)
	work := t.TempDir()
	r := scandCLI(t, dir, map[string]string{"SVC_WORK_DIR": work}, "scan", "--image", archive, "--format", "json", "-type", "code", "--fail-on", "high").want(t, 1)
	rep := parseReport(t, r.stdout)
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Scanner+" "+f.FilePath+" "+f.RuleID)
	}
	for _, want := range []string{
		"secrets " + diffIDs[1] + ":/app/deploy.sh github-pat",
		"layer-secrets " + diffIDs[1] + ":/app/old.py aws-access-key-id",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("findings %q lack %q", got, want)
		}
	}
	filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("left in the work directory: %s", p)
		}
		return nil
	})
}
