package secrets

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

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

// secretsCorpusLabels reads LABELS.tsv: location → family.
func secretsCorpusLabels(t *testing.T) map[secretsCorpusLoc]string {
	t.Helper()
	f, err := os.Open(filepath.Join(secretsCorpusDir, "LABELS.tsv"))
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
		if len(parts) != 3 {
			t.Fatalf("bad label line %q", sc.Text())
		}
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("bad label line %q", sc.Text())
		}
		labels[secretsCorpusLoc{parts[0], n}] = parts[2]
	}
	if len(labels) < 150 {
		t.Fatalf("only %d labels; the corpus covers every family", len(labels))
	}
	return labels
}

// TestSecretsLabeledCorpus computes recall over the labeled true positives
// (a label counts as found when any rule reports its line) and the false
// positives (findings on any other line), per family, and holds them to
// the bars.
func TestSecretsLabeledCorpus(t *testing.T) {
	labels := secretsCorpusLabels(t)
	got := scantest.Scan(t, secretsTestScanner(t, false), filepath.Join(secretsCorpusDir, "files"))
	found := map[secretsCorpusLoc]bool{}
	var fps []string
	for _, f := range got {
		loc := secretsCorpusLoc{f.FilePath, f.Line}
		if _, ok := labels[loc]; ok {
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
