package image

import (
	"io/fs"
	"path"
)

// Virtual entries are the files, links and directories of an image that
// no scanner reads (reading.go): they are known by name only, never
// created on disk. A path is real (on disk under rootfs/), virtual, or
// absent, never two of these. A virtual directory holds only virtual
// entries: writing out anything under it makes it real first.

// vnode is one virtual entry.
type vnode struct {
	dir  bool
	link bool // a symbolic link (else a file, or a directory)
	// mode and owner are a directory's, applied if it becomes real.
	mode     fs.FileMode
	uid, gid int
	// readable marks a text file whose content fileReaders were shown:
	// a hard link to it may need that content again (recent).
	readable bool
}

// virtualIndex holds the virtual entries by parent directory ("" is the
// root), real or virtual, so a directory's virtual children are found
// without a scan of every entry.
type virtualIndex map[string]map[string]*vnode

func (v virtualIndex) get(rel string) *vnode {
	dir, base := splitRel(rel)
	return v[dir][base]
}

func (v virtualIndex) put(rel string, n *vnode) {
	dir, base := splitRel(rel)
	kids := v[dir]
	if kids == nil {
		kids = map[string]*vnode{}
		v[dir] = kids
	}
	kids[base] = n
}

// drop removes the virtual entry at rel and, for a directory, everything
// under it; owner forgets them.
func (v virtualIndex) drop(rel string, owner map[string]int) {
	dir, base := splitRel(rel)
	n := v[dir][base]
	if n == nil {
		return
	}
	delete(v[dir], base)
	delete(owner, rel)
	if n.dir {
		v.dropUnder(rel, owner)
	}
}

// dropUnder removes every virtual entry under the directory rel.
func (v virtualIndex) dropUnder(rel string, owner map[string]int) {
	for name := range v[rel] {
		v.drop(path.Join(rel, name), owner)
	}
	delete(v, rel)
}

// recentLimit bounds the content of virtual files kept for hard links to
// them, per layer. A hard link names an earlier entry of its own layer,
// usually a near one; one to content no longer kept unpacks the image
// whole.
const recentLimit = 16 << 20

// recent keeps the latest virtual files' content of the current layer.
type recent struct {
	data  map[string][]byte
	order []string
	bytes int
}

func (r *recent) reset() {
	r.data, r.order, r.bytes = nil, nil, 0
}

func (r *recent) add(rel string, data []byte) {
	if len(data) > recentLimit {
		return
	}
	if r.data == nil {
		r.data = map[string][]byte{}
	}
	if old, ok := r.data[rel]; ok {
		r.bytes -= len(old)
	}
	r.data[rel] = append([]byte(nil), data...)
	r.order = append(r.order, rel)
	r.bytes += len(data)
	for r.bytes > recentLimit && len(r.order) > 0 {
		oldest := r.order[0]
		r.order = r.order[1:]
		if d, ok := r.data[oldest]; ok {
			r.bytes -= len(d)
			delete(r.data, oldest)
		}
	}
}

func (r *recent) get(rel string) ([]byte, bool) {
	d, ok := r.data[rel]
	return d, ok
}
