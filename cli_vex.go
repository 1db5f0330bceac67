package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"scand/store"
	"scand/store/audit"
	"scand/vex"
	"scand/vex/vexops"
)

// vexFlags are scand scan's VEX flags (docs/vex.md).
type vexFlags struct {
	in             listFlag
	out, outFormat string
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (v *vexFlags) register(fs *flag.FlagSet) {
	fs.Var(&v.in, "vex", "VEX document (OpenVEX or CycloneDX VEX; repeatable): findings its not_affected statements match are shown as suppressed by VEX and never gate")
	fs.StringVar(&v.out, "vex-out", "", "write the VEX of this scan's verdicts to this file (with -server: the daemon's verdicts; else those of -vex)")
	fs.StringVar(&v.outFormat, "vex-format", "", "format of -vex-out: openvex or cyclonedx (default: cyclonedx for a name with cdx or cyclonedx in it, else openvex)")
}

// read parses every -vex document before anything runs: a bad one is a
// usage error (exit 2) naming the file and the fault.
func (v *vexFlags) read() ([]vex.Document, error) {
	if v.outFormat != "" && v.outFormat != vex.FormatOpenVEX && v.outFormat != vex.FormatCycloneDX {
		return nil, &usageError{fmt.Sprintf("-vex-format must be openvex or cyclonedx, got %q", v.outFormat)}
	}
	var docs []vex.Document
	for _, path := range v.in {
		f, err := os.Open(path)
		if err != nil {
			return nil, &usageError{"-vex: " + err.Error()}
		}
		raw, err := io.ReadAll(io.LimitReader(f, vex.MaxDocumentBytes+1))
		f.Close()
		if err != nil {
			return nil, &usageError{"-vex " + path + ": " + err.Error()}
		}
		doc, err := vex.Parse(raw)
		if err != nil {
			return nil, &usageError{"-vex " + path + ": " + err.Error()}
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

// apply keeps the documents' statements in the run's store; the store's
// VEX planner then marks the scan's matching findings as it completes.
func (v *vexFlags) apply(ctx context.Context, st *store.Store, docs []vex.Document) error {
	for i, doc := range docs {
		rec := audit.Record{Actor: audit.System("scand scan --vex"), Action: "vex.import", ObjectType: "vex_document"}
		if _, err := vexops.Import(ctx, st, doc, "scand scan --vex "+v.in[i], rec); err != nil {
			return &exitError{exitNoScan, "-vex " + v.in[i] + ": " + err.Error()}
		}
	}
	return nil
}

// write writes -vex-out atomically (a temporary file renamed into place).
func (v *vexFlags) write(ctx context.Context, st *store.Store, sc store.Scan, author string) error {
	if v.out == "" {
		return nil
	}
	format := v.outFormat
	if format == "" {
		format = vex.FormatOpenVEX
		if base := strings.ToLower(filepath.Base(v.out)); strings.Contains(base, "cdx") || strings.Contains(base, "cyclonedx") {
			format = vex.FormatCycloneDX
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(v.out), ".scand-vex-*")
	if err != nil {
		return &exitError{exitNoScan, "-vex-out: " + err.Error()}
	}
	defer os.Remove(tmp.Name())
	_, err = vexops.Export(ctx, st, tmp, format, sc, "scan", vexops.Options{Author: author, ToolVersion: version(), Now: time.Now, Standalone: true})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), v.out)
	}
	if err != nil {
		return &exitError{exitNoScan, "-vex-out: " + err.Error()}
	}
	return nil
}
