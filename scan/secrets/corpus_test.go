package secrets

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"scand/finding"
	"scand/scan/internal/scantest"
)

// secretsCorpusDir is the labeled corpus: files/ holds true positives of
// every credential family gitleaks documents (written from the vendors'
// published formats) and hard negatives; LABELS.tsv lists the true
// positives. testdata/secrets/corpus/gen/main.go wrote both.
var secretsCorpusDir = filepath.Join("..", "..", "testdata", "secrets", "corpus")

// Bars of the labeled corpus (issue 16): recall at least 0.95, and no
// finding on a line that is not a labeled true positive.
const (
	secretsCorpusMinRecall = 0.95
	secretsCorpusMaxFP     = 0
)

type secretsCorpusLoc struct {
	file string
	line int
}

// secretsLabeledLoc returns the label a finding at loc stands for: loc
// itself, or a labeled line of the same shell command continued over
// several lines with a trailing backslash (curl ... \ -u user:pass). A
// credential on a continuation line is reported on its own line and on
// the command's first line, since labels in public rule sets use either;
// gitleaks' findings span the command and are scored the same way by
// bench/secrets-score.go.
func secretsLabeledLoc(t *testing.T, root string, labels map[secretsCorpusLoc]string, loc secretsCorpusLoc) (secretsCorpusLoc, bool) {
	t.Helper()
	if _, ok := labels[loc]; ok {
		return loc, true
	}
	if whole := (secretsCorpusLoc{loc.file, 0}); labels[whole] != "" {
		return whole, true // line 0: the example is the whole file
	}
	data, err := os.ReadFile(filepath.Join(root, "files", filepath.FromSlash(loc.file)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	continued := func(i int) bool { // line i (1-based) ends in a backslash
		return i >= 1 && i <= len(lines) && strings.HasSuffix(strings.TrimRight(lines[i-1], " \t\r"), "\\")
	}
	first, last := loc.line, loc.line
	for continued(first - 1) {
		first--
	}
	for continued(last) {
		last++
	}
	for l := first; l <= last; l++ {
		if _, ok := labels[secretsCorpusLoc{loc.file, l}]; ok {
			return secretsCorpusLoc{loc.file, l}, true
		}
	}
	return loc, false
}

// secretsCorpusLabels reads LABELS.tsv: location → family.
func secretsCorpusLabels(t *testing.T) map[secretsCorpusLoc]string {
	t.Helper()
	labels := secretsReadLabels(t, secretsCorpusDir)
	if len(labels) < 150 {
		t.Fatalf("only %d labels; the corpus covers every family", len(labels))
	}
	return labels
}

// secretsReadLabels reads a labeled corpus's LABELS.tsv (file, line,
// family, and in the held-out corpus the example's source).
func secretsReadLabels(t *testing.T, dir string) map[secretsCorpusLoc]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "LABELS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels := map[secretsCorpusLoc]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") || sc.Text() == "" {
			continue
		}
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 3 && len(parts) != 4 {
			t.Fatalf("bad label line %q", sc.Text())
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("bad label line %q", sc.Text())
		}
		labels[secretsCorpusLoc{parts[0], n}] = parts[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return labels
}

// TestSecretsLabeledCorpus computes recall over the labeled true positives
// (a label counts as found when any rule reports its line) and the false
// positives (findings on any other line), per family, and holds them to
// the bars.
func TestSecretsLabeledCorpus(t *testing.T) {
	labels := secretsCorpusLabels(t)
	got := secretsReported(scantest.Scan(t, secretsTestScanner(t, false), filepath.Join(secretsCorpusDir, "files")))
	found := map[secretsCorpusLoc]bool{}
	var fps []string
	for _, f := range got {
		if loc, ok := secretsLabeledLoc(t, secretsCorpusDir, labels, secretsCorpusLoc{f.FilePath, f.Line}); ok {
			found[loc] = true
			continue
		}
		fps = append(fps, f.FilePath+":"+strconv.Itoa(f.Line)+" "+f.RuleID)
	}
	missedBy := map[string][]string{}
	for loc, fam := range labels {
		if !found[loc] {
			missedBy[fam] = append(missedBy[fam], loc.file+":"+strconv.Itoa(loc.line))
		}
	}
	recall := float64(len(found)) / float64(len(labels))
	t.Logf("labeled corpus: %d true positives, %d found, recall %.3f, %d false positives", len(labels), len(found), recall, len(fps))
	fams := make([]string, 0, len(missedBy))
	for fam := range missedBy {
		fams = append(fams, fam)
	}
	sort.Strings(fams)
	for _, fam := range fams {
		t.Logf("missed %s: %s", fam, strings.Join(missedBy[fam], ", "))
	}
	sort.Strings(fps)
	for _, fp := range fps {
		t.Logf("false positive: %s", fp)
	}
	if recall < secretsCorpusMinRecall {
		t.Errorf("recall %.3f below %.2f", recall, secretsCorpusMinRecall)
	}
	if len(fps) > secretsCorpusMaxFP {
		t.Errorf("%d false positives, at most %d allowed", len(fps), secretsCorpusMaxFP)
	}
}

// secretsHeldoutDir is the held-out corpus: example values copied from
// public rule sets and detector tests that scand's rule authors did not
// write (Nosey Parker, gitleaks, trufflehog, detect-secrets), placed in the
// files developers commit them in; LABELS.tsv names each one's source.
// testdata/secrets/heldout/gen writes it from gen/corpus.txt.
var secretsHeldoutDir = filepath.Join("..", "..", "testdata", "secrets", "heldout")

// Bars of the held-out corpus (issue 16): recall at least 0.95 of its true
// positives, and no more lines with a false positive than gitleaks has on
// the same corpus. secretsHeldoutGitleaksFP was measured with gitleaks
// v8.28.0 (default configuration, `gitleaks dir`) by
// `bench/secrets-corpus.sh testdata/secrets/heldout`: 10 lines with a
// finding that is not a labeled true positive (its recall there: 0.741,
// 166/224). It is a constant so that the test does not need gitleaks.
// The bar is met: scand's recall there is 0.978 (219/224) with false
// positives on 3 lines (same script, same corpus). The third came with
// issue 28: NRAK-123456788ABCDEFGHIJKLMNOPQR, a placeholder among Nosey
// Parker's examples, passes the New Relic format, and values of an exact
// vendor format are no longer rejected for counting runs, because the
// public rule sets label such hand-made values true positives elsewhere
// (docs/secrets.md).
const (
	secretsHeldoutMinRecall  = 0.95
	secretsHeldoutGitleaksFP = 10
)

// TestSecretsHeldoutCorpus scores the scanner on the held-out corpus the
// way bench/secrets-score.go does: a label is found when any finding is on
// its line, and every other line with a finding is one false positive.
func TestSecretsHeldoutCorpus(t *testing.T) {
	labels := secretsReadLabels(t, secretsHeldoutDir)
	if len(labels) < 150 {
		t.Fatalf("only %d labels in the held-out corpus", len(labels))
	}
	got := secretsReported(scantest.Scan(t, secretsTestScanner(t, false), filepath.Join(secretsHeldoutDir, "files")))
	found := map[secretsCorpusLoc]bool{}
	fpLines := map[secretsCorpusLoc][]string{}
	for _, f := range got {
		loc, ok := secretsLabeledLoc(t, secretsHeldoutDir, labels, secretsCorpusLoc{f.FilePath, f.Line})
		if ok {
			found[loc] = true
			continue
		}
		fpLines[loc] = append(fpLines[loc], f.RuleID)
	}
	var missed []string
	for loc, fam := range labels {
		if !found[loc] {
			missed = append(missed, fam+" "+loc.file+":"+strconv.Itoa(loc.line))
		}
	}
	sort.Strings(missed)
	var fps []string
	for loc, rules := range fpLines {
		fps = append(fps, loc.file+":"+strconv.Itoa(loc.line)+" "+strings.Join(rules, ","))
	}
	sort.Strings(fps)
	recall := float64(len(found)) / float64(len(labels))
	t.Logf("held-out corpus: %d true positives, %d found, recall %.3f, false positives on %d lines (gitleaks: %d)",
		len(labels), len(found), recall, len(fps), secretsHeldoutGitleaksFP)
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	for _, fp := range fps {
		t.Logf("false positive: %s", fp)
	}
	if recall < secretsHeldoutMinRecall {
		t.Errorf("recall %.3f below %.2f", recall, secretsHeldoutMinRecall)
	}
	if len(fps) > secretsHeldoutGitleaksFP {
		t.Errorf("false positives on %d lines, gitleaks has %d", len(fps), secretsHeldoutGitleaksFP)
	}
}

// The families corpus (issue 28): the credential families and
// false-positive classes the issue names, built from public rule examples
// (gitleaks, Nosey Parker, trufflehog, Kingfisher; sources in LABELS.tsv)
// and from values generated in the vendors' formats, in realistic files.
// dev is the part the rules were tuned on. heldout was written before any
// tuning and measured after the first round; heldout2 was written after
// that and measured after the second round (docs/secrets.md has the
// history). testdata/secrets/heldout/gen writes every part from its
// gen/corpus.txt.
var (
	secretsFamiliesDevDir = filepath.Join("..", "..", "testdata", "secrets", "families", "dev")
	secretsFamiliesDir    = filepath.Join("..", "..", "testdata", "secrets", "families")
)

// Bars of the families corpus (issue 28): recall at least 0.95 on each
// part, and no more files with a false positive than gitleaks has on the
// same part. The gitleaks counts were measured with gitleaks v8.28.0
// (default configuration, `gitleaks dir`) by `bench/secrets-corpus.sh
// testdata/secrets/families/PART`; they are constants so that the test
// does not need gitleaks. scand, same script: dev 1.000 (150/150) with no
// false-positive file; heldout 1.000 (71/71) with 3; heldout2 1.000
// (20/20) with none; heldout3 1.000 (68/68) with none after round 5
// (0.868 with 2 when scored blind, before it); heldout4 1.000 (24/24)
// with none after round 6 (0.917 with 2 blind, after round 5); heldout5
// 1.000 (25/25) with 1 after round 8 (blind after round 7: 0.880 with 4
// by the line-exact scoring of that time, 0.920 with 3 counting a
// continued command's lines as one); heldout6 1.000 (18/18) with none
// after round 9 (0.722 with none blind, after round 8); heldout7 1.000
// (31/31) with none after round 10 (0.806 with 1 blind, after round 9);
// heldout8 1.000 (29/29) with none after round 11 (0.621 with none
// blind, after round 10); heldout9 1.000 (23/23) with none after round
// 12 (0.609 with 1 blind, after round 11); heldout10 1.000 (22/22) with
// none after round 13 (0.864 with 3 blind, after round 12); heldout11
// 1.000 (20/20) with none after round 14 (0.900 with none blind);
// heldout12 1.000 (18/18) with none after round 15 (0.889 with none
// blind); heldout13 1.000 (14/14) with none after round 16 (1.000 with 1
// blind). gitleaks has 11 false-positive files on dev since rounds 10 to
// 16; the bar stays at the 8 it had. gl-dev (gitleaks' own rule examples,
// even-indexed rule files) 0.992 (125/126) with 6 after round 17 (0.960
// with 10 blind). gl-heldout (the odd-indexed files) 0.955 (168/176) with
// 4 after round 18 (0.926 with 8 blind, after round 16; round 18 looked at
// it, so it is held out no longer); gitleaks 0.994 with 5. gl-contexts
// (gl-*'s bare values in each context of gitleaks' sample generator)
// 0.987 (2001/2028) with none after round 21 (0.984 before it); gitleaks
// 0.949 with none. names-heldout (hand-written names with an environment,
// version or encoding after the credential's word) 0.933 (28/30) with
// none blind after round 23, 0.967 (29/30) after; gitleaks 0.933 with 5.
// gl-random (gitleaks v8.30.0's random samples drawn from their patterns)
// 0.964 (401/416) at its first score, 0.976 after round 25; gitleaks 0.995,
// no negatives in it. bl-random (the samples betterleaks v1.8.1 added)
// 0.948 (127/134) blind, 0.955 after round 26 (its misses: AWS secrets
// drawn with a "=" inside, PostHog project keys and wallet addresses,
// both public); gitleaks 0.843. az-dev and az-heldout (Microsoft Azure
// keys: the identifiable formats of microsoft/security-utilities and the
// older keys, round 29), blind: 0.600 (12/20), 0 and 0.667 (14/21), 0;
// gitleaks 0.700 and 0.714, 0. After round 29's Azure rules: 1.000 and
// 1.000, 0. heldout14 (round 30, hand-written from the families and
// false-positive classes): 0.976 (40/41), 0 blind, the miss a malformed
// sample; 1.000, 0 with it corrected; gitleaks 0.878, 1.
const secretsFamiliesMinRecall = 0.95

var secretsFamiliesGitleaksFPFiles = map[string]int{"dev": 8, "heldout": 6, "heldout2": 1, "heldout3": 2, "heldout4": 1, "heldout5": 3, "heldout6": 1, "heldout7": 1, "heldout8": 0, "heldout9": 0, "heldout10": 2, "heldout11": 0, "heldout12": 1, "heldout13": 1, "gl-dev": 7, "gl-heldout": 5, "gl-contexts": 0, "gl-examples": 10, "names-heldout": 5, "gl-random": 0, "bl-random": 0, "az-dev": 0, "az-heldout": 0, "heldout14": 1}

// TestSecretsFamiliesCorpus scores every part the way
// bench/secrets-score.go does: a label is found when any finding is on its
// line; a file with a finding on any other line is a false-positive file.
func TestSecretsFamiliesCorpus(t *testing.T) {
	for _, part := range []string{"dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10", "heldout11", "heldout12", "heldout13", "gl-dev", "gl-heldout", "gl-contexts", "gl-examples", "names-heldout", "gl-random", "bl-random", "az-dev", "az-heldout", "heldout14"} {
		t.Run(part, func(t *testing.T) {
			recall, fpFiles := secretsScorePart(t, part, secretsFamiliesGitleaksFPFiles[part])
			if recall < secretsFamiliesMinRecall {
				t.Errorf("recall %.3f below %.2f", recall, secretsFamiliesMinRecall)
			}
			if fpFiles > secretsFamiliesGitleaksFPFiles[part] {
				t.Errorf("false positives in %d files, gitleaks has %d", fpFiles, secretsFamiliesGitleaksFPFiles[part])
			}
		})
	}
}

// MongoDB Kingfisher's rule examples (round 27: kf from the first 100 rule
// files, kf2 from 259 more) are written by hand around the vendor's
// format, counting runs and alphabets included, and name many vendors by a
// bare name or an API ID; neither scanner comes near the bar there. Blind
// (scand / gitleaks v8.28.0, recall, false-positive files): kf-dev 0.681,
// 1 / 0.617, 5; kf-heldout 0.591, 0 / 0.543, 1; kf2-dev 0.660, 2 / 0.719,
// 2; kf2-heldout 0.642, 4 / 0.679, 9. After the rules the dev halves gave:
// kf-dev 0.734 (69/94), 1; kf-heldout 0.591, 0; kf2-dev 0.712 (205/288), 1
// (gitleaks 2 after the PEM-label fix); kf2-heldout 0.645 (191/296), 4. The
// held-out halves were then looked at, and are held out no longer: kf-heldout
// 0.630 (80/127), 0; kf2-heldout 0.686 (203/296), 4. The test holds the last
// figures as a floor and the false-positive files to gitleaks' count.
//
// secretlint's snapshot tests (round 28; sl-source/SOURCE) are regex tests
// of its own rules, many with filler values this corpus labels as
// placeholders. Blind: sl-dev 0.764 (42/55), 7 / 0.255, 3; sl-heldout 0.750
// (27/36), 1 / 0.750, 3. The development half's stale outputs were then
// read line by line (11 more labels) and its classes fixed: 0.821 (55/67),
// none / 0.254, 2. sl-heldout after them, same labels: 0.750, 1; then
// looked at (Cloudflare's scannable tokens, Groq's 52-character keys, one
// stale label, two allow-list cases left out): 0.865 (32/37), none /
// 0.757, 1.
//
// Semgrep's secrets rule tests (round 28; sg-source/SOURCE) mark near
// misses of its regexes `ok` and many placeholders `ruleid`. Blind: sg-dev
// 0.478 (22/46), 3 / 0.457, 3; sg-heldout 0.583 (28/48), 1 / 0.438, 1.
// sg-dev's unannotated keys labeled by reading and a Kolide rule: 0.558
// (29/52), 1 / 0.462, 1. sg-heldout after that 0.583, 1; looked at, it gave
// no class, and two marker lines became negatives: 0.609 (28/46), 1.
//
// Praetorian Titus' rule examples (round 28; kf-source/SOURCE), after
// those already in other parts were left out and a labeler fix: blind
// ti-dev 0.395 (15/38), 0 / 0.447, 0; ti-heldout 0.351 (26/74), 2 /
// 0.419, 2. After ti-dev's rules (Cypress record keys, Contentful and
// Coze tokens): ti-dev 0.526 (20/38), 0; ti-heldout 0.351, 2; then looked
// at (Baseten, Customer.io App API, Eventbrite, Alchemy RPC URLs): 0.527
// (39/74), 2. The rest of Titus' files (ti2), blind: ti2-dev 0.537
// (29/54), 2 / 0.537, 2; ti2-heldout 0.512 (43/84), 8 / 0.405, 9. After
// ti2-dev's (Mattermost webhooks, paths of words): 0.593 (32/54), 1;
// ti2-heldout 0.512, 8; then looked at (Oracle JDBC passwords, and five
// classes of false positive): 0.560 (47/84), 2. Windows' own commands
// (net use, schtasks, cmdkey): ti2-dev 0.630 (34/54), 1.
func TestSecretsRuleExampleParts(t *testing.T) {
	for _, tc := range []struct {
		part       string
		minRecall  float64
		gitleaksFP int
	}{{"kf-dev", 0.755, 5}, {"kf-heldout", 0.668, 1}, {"kf2-dev", 0.725, 2}, {"kf2-heldout", 0.725, 9},
		{"sl-dev", 0.820, 2}, {"sl-heldout", 0.864, 1}, {"sg-dev", 0.576, 1}, {"sg-heldout", 0.608, 1},
		{"ti-dev", 0.578, 0}, {"ti-heldout", 0.540, 2}, {"ti2-dev", 0.629, 2}, {"ti2-heldout", 0.606, 9}} {
		t.Run(tc.part, func(t *testing.T) {
			recall, fpFiles := secretsScorePart(t, tc.part, tc.gitleaksFP)
			if recall < tc.minRecall {
				t.Errorf("recall %.3f below round 27's %.3f", recall, tc.minRecall)
			}
			if fpFiles > tc.gitleaksFP {
				t.Errorf("false positives in %d files, gitleaks has %d", fpFiles, tc.gitleaksFP)
			}
		})
	}
}

// secretsScorePart scans a part and logs what it missed and where it
// reported an unlabeled line; it returns the recall and the number of
// files with such a line.
func secretsScorePart(t *testing.T, part string, gitleaksFP int) (float64, int) {
	t.Helper()
	return secretsScoreDir(t, filepath.Join(secretsFamiliesDir, part), part, gitleaksFP)
}

// secretsScoreDir is secretsScorePart for a part kept in dir.
func secretsScoreDir(t *testing.T, dir, part string, gitleaksFP int) (float64, int) {
	t.Helper()
	labels := secretsReadLabels(t, dir)
	if len(labels) < 10 { // a part that was not generated, not a bar
		t.Fatalf("only %d labels in %s", len(labels), dir)
	}
	got := secretsReported(scantest.Scan(t, secretsTestScanner(t, false), filepath.Join(dir, "files")))
	found := map[secretsCorpusLoc]bool{}
	fpFiles := map[string][]string{}
	for _, f := range got {
		if loc, ok := secretsLabeledLoc(t, dir, labels, secretsCorpusLoc{f.FilePath, f.Line}); ok {
			found[loc] = true
			continue
		}
		fpFiles[f.FilePath] = append(fpFiles[f.FilePath], strconv.Itoa(f.Line)+" "+f.RuleID)
	}
	var missed []string
	for loc, fam := range labels {
		if !found[loc] {
			missed = append(missed, fam+" "+loc.file+":"+strconv.Itoa(loc.line))
		}
	}
	sort.Strings(missed)
	recall := float64(len(found)) / float64(len(labels))
	t.Logf("%s: %d true positives, %d found, recall %.3f, false positives in %d files (gitleaks: %d)",
		part, len(labels), len(found), recall, len(fpFiles), gitleaksFP)
	for _, m := range missed {
		t.Logf("missed: %s", m)
	}
	for f, l := range fpFiles {
		t.Logf("false positive: %s: %s", f, strings.Join(l, ", "))
	}
	return recall, len(fpFiles)
}

// The parts name their files after the format an example is in (.env,
// .yaml, .txt); an outside set need not. Renamed so that no file's name
// says a format (bench/secrets-renamed.sh), a part scores what it scores
// with its names: before round 31 such files were read as source code,
// and kf2-heldout fell to 0.483, kf-heldout to 0.488. Written into a
// Markdown document instead, each example in a code block of no language
// (bench/secrets-renamed.sh PART markdown), or as Markdown prose, the
// same: before round 32 Markdown was read as code, with the same losses.
func TestSecretsRenamedParts(t *testing.T) {
	noFormat := func(rel string, data []byte) (string, []byte, int) { return strings.ReplaceAll(rel, ".", "_"), data, 0 }
	const preamble = "# Example\n\nSet it like this:\n\n```\n"
	inMarkdown := func(rel string, data []byte) (string, []byte, int) {
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		return rel + ".md", append([]byte(preamble), append(data, "```\n"...)...), strings.Count(preamble, "\n")
	}
	asMarkdown := func(rel string, data []byte) (string, []byte, int) { return rel + ".md", data, 0 }
	for _, tc := range []struct {
		part       string
		disguise   string
		rename     func(rel string, data []byte) (string, []byte, int)
		minRecall  float64
		gitleaksFP int
	}{
		{"kf-heldout", "no extension", noFormat, 0.668, 1}, {"kf2-heldout", "no extension", noFormat, 0.725, 9}, {"th-heldout", "no extension", noFormat, 0.786, 26},
		{"kf-heldout", "markdown block", inMarkdown, 0.66, 1}, {"kf2-heldout", "markdown block", inMarkdown, 0.725, 9}, {"th-heldout", "markdown block", inMarkdown, 0.786, 26},
		{"kf2-heldout", "markdown", asMarkdown, 0.725, 9},
	} {
		t.Run(tc.part+" "+tc.disguise, func(t *testing.T) {
			src := filepath.Join(secretsFamiliesDir, tc.part)
			dst := t.TempDir()
			names := map[string]string{}
			shift := 0
			err := filepath.WalkDir(filepath.Join(src, "files"), func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, err := filepath.Rel(filepath.Join(src, "files"), p)
				if err != nil {
					return err
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				var newRel string
				newRel, data, shift = tc.rename(rel, data)
				names[rel] = newRel
				out := filepath.Join(dst, "files", newRel)
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return err
				}
				return os.WriteFile(out, data, 0o600)
			})
			if err != nil {
				t.Fatal(err)
			}
			labels, err := os.ReadFile(filepath.Join(src, "LABELS.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			var renamed []string
			for _, l := range strings.Split(string(labels), "\n") {
				f := strings.Split(l, "\t")
				if len(f) >= 2 && !strings.HasPrefix(l, "#") {
					line, err := strconv.Atoi(f[1])
					if err != nil || names[f[0]] == "" {
						t.Fatalf("label %q: no such line or file", l)
					}
					if line > 0 {
						line += shift
					}
					f[0], f[1] = names[f[0]], strconv.Itoa(line)
					l = strings.Join(f, "\t")
				}
				renamed = append(renamed, l)
			}
			if err := os.WriteFile(filepath.Join(dst, "LABELS.tsv"), []byte(strings.Join(renamed, "\n")), 0o600); err != nil {
				t.Fatal(err)
			}
			recall, fpFiles := secretsScoreDir(t, dst, tc.part+" "+tc.disguise, tc.gitleaksFP)
			if recall < tc.minRecall {
				t.Errorf("recall %.3f below %.3f", recall, tc.minRecall)
			}
			if fpFiles > tc.gitleaksFP {
				t.Errorf("false positives in %d files, gitleaks has %d", fpFiles, tc.gitleaksFP)
			}
		})
	}
}

// secretsReported drops the findings reported as suppressed (a line a
// reviewer marked for another scanner): like gitleaks, the corpus scores
// what would fail a gate.
func secretsReported(fs []finding.Finding) []finding.Finding {
	return slices.DeleteFunc(fs, finding.IsSuppressed)
}
