package proc

// GitInTree is the start of a git command line run in a scanned tree:
// "-C root" plus overrides of the repository settings that make git run
// a program of the repository's choosing. A scanned tree's .git/config is
// as hostile as its files (an unpacked image or a copied tree brings its
// own): core.fsmonitor names a command that "git ls-files" runs, and
// hooks run on checkout. Command-line settings win over the repository's.
// Commands that compare content must still pass --no-ext-diff and
// --no-textconv themselves.
func GitInTree(root string) []string {
	return []string{"-C", root,
		"-c", "core.fsmonitor=false",
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.pager=cat",
		"-c", "diff.external=",
	}
}
