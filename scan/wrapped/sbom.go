package wrapped

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"scand/finding"
	"scand/scan"
)

// sbomRun is how a tool matches an SBOM target (scan.Target.SBOM): the
// CycloneDX documents scand wrote from a scan's stored components
// (scan/reevaluate), one per manifest or lockfile, instead of a tree.
type sbomRun struct {
	// args builds one run's arguments over some of the documents.
	args func(c *call, files []scan.SBOMFile) ([]string, error)
	// each: one run per document (trivy sbom reads one file).
	each bool
}

// ReadsSBOM implements scan.SBOMReader.
func (w *cli) ReadsSBOM() bool { return w.tool.sbom != nil }

// scanSBOM runs the tool over an SBOM target's documents and reports each
// finding at the manifest or lockfile its components came from.
func (w *cli) scanSBOM(ctx context.Context, t scan.Target) ([]finding.Finding, error) {
	if w.tool.sbom == nil {
		return nil, fmt.Errorf("%s does not read SBOMs", w.tool.name)
	}
	if err := validateDir(t.Path); err != nil {
		return nil, err
	}
	if err := w.notReady(ctx); err != nil {
		return nil, err
	}
	sources := map[string]string{}
	for _, f := range t.SBOM {
		if !filepath.IsAbs(f.Path) {
			return nil, fmt.Errorf("SBOM document %q is not absolute", f.Path)
		}
		sources[relPath(t.Path, t.Path, f.Path)] = f.Source
	}
	batches := [][]scan.SBOMFile{t.SBOM}
	if w.tool.sbom.each {
		batches = nil
		for _, f := range t.SBOM {
			batches = append(batches, []scan.SBOMFile{f})
		}
	}
	var all []finding.Finding
	var skipped []scan.SkippedPart
	idle := 0
	for _, files := range batches {
		c := w.newCall()
		c.root, c.dir, c.ctx = t.Path, t.Path, ctx
		args, err := w.tool.sbom.args(c, files)
		skipped = append(skipped, c.skipped...)
		if err == errNothingToScan {
			idle++
			continue
		}
		if err != nil {
			return nil, err
		}
		res, err := w.run(ctx, c.dir, args)
		if err != nil {
			return nil, err
		}
		fs, err := w.interpret(c, res)
		if err != nil {
			return nil, err
		}
		for i := range fs {
			if src, ok := sources[fs[i].FilePath]; ok {
				fs[i].FilePath = src
			}
		}
		all = append(all, fs...)
	}
	if len(skipped) > 0 {
		return finish(w.cfg, w.tool.name, all), &scan.PartialSkip{Parts: skipped, NothingScanned: idle == len(batches)}
	}
	return finish(w.cfg, w.tool.name, all), nil
}

// osvSBOMArgs passes osv-scanner the documents whose ecosystem database
// is present, as osvArgs does with lockfiles.
func osvSBOMArgs(c *call, files []scan.SBOMFile) ([]string, error) {
	args := []string{"scan", "source", "--offline", "--local-db-path", c.db, "--format", "json", "--config", os.DevNull}
	missing := map[string][]string{}
	var ecos []string
	for _, f := range files {
		if f.Ecosystem != "" {
			if _, err := os.Stat(filepath.Join(c.db, "osv-scalibr", f.Ecosystem, "all.zip")); err != nil {
				if len(missing[f.Ecosystem]) == 0 {
					ecos = append(ecos, f.Ecosystem)
				}
				missing[f.Ecosystem] = append(missing[f.Ecosystem], f.Source)
				continue
			}
		}
		args = append(args, "-L", f.Path)
	}
	for _, e := range ecos {
		c.skipped = append(c.skipped, skippedFiles(e, scan.SkipDatabaseNotConfigured,
			fmt.Sprintf("components of %s not checked: the OSV database has no %s data; import OSV's %s/all.zip with `scand vulndb import`", fileList(missing[e]), e, e),
			missing[e]))
	}
	if len(args) == 9 {
		return nil, errNothingToScan
	}
	return args, nil
}

// trivySBOMArgs runs `trivy sbom` on one document with the offline flags
// of trivy fs, and, as for an image, nothing written into the (possibly
// read-only, imported) database folder.
func trivySBOMArgs(c *call, files []scan.SBOMFile) ([]string, error) {
	return []string{"sbom", "--scanners", "vuln", "--format", "json", "--quiet",
		"--cache-dir", c.db, "--cache-backend", "memory", "--skip-db-update", "--skip-java-db-update",
		"--offline-scan", "--skip-version-check", "--disable-telemetry",
		"--config", os.DevNull, "--ignorefile", os.DevNull, files[0].Path}, nil
}
