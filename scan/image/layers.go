package image

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"scand/finding"
	"scand/scan"
	"scand/scan/secrets"
)

// The layer-secrets scanner (scan type code) reports secrets in files that
// a later layer deleted (a whiteout, an opaque directory) or replaced: the
// running container never sees them, but every copy of the image carries
// the layer that does. Its file_path is "<diff id of the layer that wrote
// the file>:/<path>"; metadata.removed_by_layer names the layer that hid it.
//
// It never repeats the secrets scanner: a value that is also in the file
// that now stands at the same path is reported there, once; a removed file
// still reachable through a hard link is reported at the link; the same
// value at the same path in several layers is reported for the lowest.
type layerSecrets struct {
	scan.Builtin
	root    string
	removed []removedFile
	layers  []string
	secrets *secrets.Content
}

func newLayerSecrets(root string, removed []removedFile, layers []string, s *secrets.Content) scan.Scanner {
	return &layerSecrets{Builtin: scan.NewBuiltin("layer-secrets", scan.TypeCode), root: root, removed: removed, layers: layers, secrets: s}
}

func (l *layerSecrets) Scan(ctx context.Context, _ scan.Target) ([]finding.Finding, error) {
	type key struct {
		rel   string
		value [32]byte
	}
	type hit struct {
		m secrets.Match
		r removedFile
	}
	best := map[key]hit{}
	surviving := map[string]map[[32]byte]bool{}
	survivors := func(rel string) map[[32]byte]bool {
		if s, ok := surviving[rel]; ok {
			return s
		}
		s := map[[32]byte]bool{}
		ms, _ := l.secrets.ScanFile(filepath.Join(l.root, filepath.FromSlash(rel)), rel)
		for _, m := range ms {
			s[m.Value] = true
		}
		surviving[rel] = s
		return s
	}
	for _, r := range l.removed {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if info, err := os.Lstat(r.abs); err != nil || linkedElsewhere(info) {
			continue
		}
		ms, err := l.secrets.ScanFile(r.abs, r.rel)
		if err != nil || len(ms) == 0 {
			continue
		}
		alive := survivors(r.rel)
		for _, m := range ms {
			if alive[m.Value] {
				continue
			}
			k := key{r.rel, m.Value}
			if prev, ok := best[k]; ok && prev.r.layer <= r.layer {
				continue
			}
			best[k] = hit{m, r}
		}
	}
	out := make([]finding.Finding, 0, len(best))
	for _, h := range best {
		f := h.m.Finding
		f.Scanner = "layer-secrets"
		f.FilePath = l.layers[h.r.layer] + ":/" + h.r.rel
		how := "deleted"
		if h.r.removedBy == h.r.layer {
			how = "overwritten within the same layer"
		} else if _, err := os.Lstat(filepath.Join(l.root, filepath.FromSlash(h.r.rel))); err == nil {
			how = "replaced"
		}
		f.Title += " in a file removed from the image"
		f.Description = f.Title + ": layer " + l.layers[h.r.layer] + " added /" + h.r.rel + " and layer " +
			l.layers[h.r.removedBy] + " " + how + " it. Containers do not see the file, but every copy of the image still carries it. " +
			f.Description
		f.Metadata["layer"] = l.layers[h.r.layer]
		f.Metadata["removed_by_layer"] = l.layers[h.r.removedBy]
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b finding.Finding) int {
		return cmp.Or(strings.Compare(a.FilePath, b.FilePath), cmp.Compare(a.Line, b.Line), strings.Compare(a.RuleID, b.RuleID))
	})
	return out, nil
}

// linkedElsewhere reports a removed file whose content is still reachable
// at another name in the image (a hard link): the tree scan reports it there.
func linkedElsewhere(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
