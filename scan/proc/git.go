package proc

// GitSafeSettings are the git settings, given with -c, that keep a
// repository's own configuration from making git run a program of its
// choosing. A scanned tree's .git/config is as hostile as its files (an
// unpacked image or a copied tree brings its own): core.fsmonitor names a
// command that "git ls-files" runs, and hooks run on checkout.
// Command-line settings win over the repository's. Commands that compare
// content must still pass --no-ext-diff and --no-textconv themselves.
func GitSafeSettings() []string {
	return []string{"core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "diff.external="}
}

// GitInTree is the start of a git command line run in the scanned tree
// at root: "-C root" and GitSafeSettings.
func GitInTree(root string) []string {
	args := []string{"-C", root}
	for _, s := range GitSafeSettings() {
		args = append(args, "-c", s)
	}
	return args
}
