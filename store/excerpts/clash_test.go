package excerpts

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// TestHashClashCostsTheExcerpt: a body whose 64-bit hash is already
// stored with other content, in the database or earlier in the batch,
// links no finding to the stored body: a clash costs an excerpt, never
// shows another's.
func TestHashClashCostsTheExcerpt(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	schema, err := os.ReadFile("../migrations/0021_excerpts.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, string(schema)); err != nil {
		t.Fatal(err)
	}
	x := New(db, db, db)
	if err := x.putRows(ctx, 1, []storedRow{{FP: 1, Hash: 7, Body: "00aa"}}); err != nil {
		t.Fatal(err)
	}
	if err := x.putRows(ctx, 2, []storedRow{
		{FP: 2, Hash: 7, Body: "00bb"}, // clashes with scan 1's body
		{FP: 3, Hash: 9, Body: "00cc"},
		{FP: 4, Hash: 9, Body: "00dd"}, // clashes within the batch
		{FP: 5, Hash: 9, Body: "00cc"}, // the same window again
	}); err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	rows, err := db.QueryContext(ctx, "SELECT e.fp, hex(b.body) FROM finding_excerpts e JOIN excerpt_bodies b ON b.id = e.body_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var fp int64
		var body string
		rows.Scan(&fp, &body)
		got[fp] = body
	}
	var bodies int
	db.QueryRowContext(ctx, "SELECT count(*) FROM excerpt_bodies").Scan(&bodies)
	if bodies != 2 {
		t.Errorf("%d bodies stored, want 2 (00aa and 00cc)", bodies)
	}
	want := map[int64]string{1: "00AA", 3: "00CC", 5: "00CC"}
	if len(got) != len(want) {
		t.Fatalf("links %v, want %v", got, want)
	}
	for fp, b := range want {
		if got[fp] != b {
			t.Errorf("finding %d shows %q, want %q", fp, got[fp], b)
		}
	}
}
