package image_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"scand/scan"
	"scand/scan/components"
	"scand/scan/image"
	"scand/scan/internal/imagetest"
	"scand/scan/registry"
	"scand/scan/workdir"
)

// BenchmarkPrepareDebian unpacks the Debian test image (a docker archive
// of the mmdebstrap root, an application layer and a whiteout layer), or
// the archive SCAND_BENCH_IMAGE names.
func BenchmarkPrepareDebian(b *testing.B) {
	archive := os.Getenv("SCAND_BENCH_IMAGE")
	if archive == "" {
		rootfs, err := os.ReadFile(imagetest.DebianRootfs(b))
		if err != nil {
			b.Fatal(err)
		}
		archive = filepath.Join(b.TempDir(), "debian.tar")
		imagetest.WriteDockerArchive(b, archive, imagetest.Image{Layers: [][]byte{rootfs, secretLayer(b), deleteLayer(b)}})
	}
	info, _ := os.Stat(archive)
	b.SetBytes(info.Size())
	workBase := os.Getenv("SCAND_BENCH_WORK_DIR")
	if workBase == "" {
		workBase = b.TempDir()
	}
	work, err := workdir.Open(workBase)
	if err != nil {
		b.Fatal(err)
	}
	defer work.Close()
	// "whole" writes out every file; "read" only what the registry's code
	// and dependency scanners read, as the daemon does.
	reg := registry.All(scan.Config{})
	for _, c := range []struct {
		name string
		o    image.Options
	}{
		{"whole", image.Options{Work: work}},
		{"read", image.Options{Work: work, Scanners: reg, CaptureReads: components.CaptureReads}},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := image.New(c.o)
			for i := 0; i < b.N; i++ {
				prep, err := p.Prepare(context.Background(), scan.TargetSpec{Image: &scan.ImageSpec{Path: archive}}, []string{scan.TypeCode, scan.TypeDependency})
				if err != nil {
					b.Fatal(err)
				}
				prep.Close()
			}
		})
	}
}
