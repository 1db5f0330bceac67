//go:build ignore

// image-build wraps a root file system tar (from mmdebstrap) and a small
// application layer (a package-lock.json and a planted secret, deleted
// again by a third layer) into a `docker save` archive, for
// bench/image.sh. No registry or container engine is involved.
// Usage: go run ./bench/image-build.go ROOTFS.tar LOCKFILE OUT.tar
package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

func layer(files map[string]string) []byte {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for name, body := range files {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), ModTime: time.Unix(1700000000, 0)})
		io.WriteString(tw, body)
	}
	tw.Close()
	return b.Bytes()
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: image-build ROOTFS.tar LOCKFILE OUT.tar")
		os.Exit(2)
	}
	rootfs, err := os.ReadFile(os.Args[1])
	check(err)
	lock, err := os.ReadFile(os.Args[2])
	check(err)
	layers := [][]byte{
		rootfs,
		layer(map[string]string{
			"app/package-lock.json": string(lock),
			"app/.env":              "AWS_ACCESS_KEY_ID=AKIAZ7Q3XK2M5N8P4R6T\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYzQ8v3kL2pA\n",
		}),
		layer(map[string]string{"app/.wh..env": ""}),
	}
	var diffIDs []string
	for _, l := range layers {
		diffIDs = append(diffIDs, "sha256:"+digest(l))
	}
	cfg, _ := json.Marshal(map[string]any{"architecture": "amd64", "os": "linux",
		"config":  map[string]any{"Env": []string{"PATH=/usr/bin"}, "ExposedPorts": map[string]any{"8080/tcp": map[string]any{}}},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": diffIDs},
		"history": []map[string]any{{"created_by": "ADD rootfs.tar /"}, {"created_by": "COPY app /app"}, {"created_by": "RUN rm /app/.env"}}})
	cfgName := digest(cfg) + ".json"
	var names []string
	files := []struct {
		name string
		body []byte
	}{{cfgName, cfg}}
	for i, l := range layers {
		n := fmt.Sprintf("%s/layer.tar", digest([]byte(fmt.Sprint(i)+diffIDs[i])))
		names = append(names, n)
		files = append(files, struct {
			name string
			body []byte
		}{n, l})
	}
	man, _ := json.Marshal([]map[string]any{{"Config": cfgName, "RepoTags": []string{"bench/debian:latest"}, "Layers": names}})
	files = append([]struct {
		name string
		body []byte
	}{{"manifest.json", man}}, files...)
	out, err := os.Create(os.Args[3])
	check(err)
	tw := tar.NewWriter(out)
	for _, f := range files {
		check(tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: time.Unix(1700000000, 0)}))
		_, err := tw.Write(f.body)
		check(err)
	}
	check(tw.Close())
	check(out.Close())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
