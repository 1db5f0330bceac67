package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func newKeyStore(t *testing.T) (*Store, *storeClock) {
	t.Helper()
	clock := &storeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)}
	return openTestStoreAt(t, filepath.Join(t.TempDir(), "keys.db"), clock), clock
}

func addTestAPIKey(t *testing.T, s *Store, id string, scopes ...string) APIKey {
	t.Helper()
	k, err := s.CreateAPIKey(context.Background(), APIKey{ID: id, Name: "name " + id, Prefix: "ssk_" + id, Hash: "00$" + id, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestAPIKeyRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, clock := newKeyStore(t)
	created := addTestAPIKey(t, s, "AAAAAAAAAA", "read", "admin")
	if want := clock.Now().Truncate(time.Microsecond); !created.CreatedAt.Equal(want) {
		t.Fatalf("CreatedAt = %v, want %v", created.CreatedAt, want)
	}
	got, err := s.APIKeyByID(ctx, "AAAAAAAAAA")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "AAAAAAAAAA" || got.Name != "name AAAAAAAAAA" || got.Prefix != "ssk_AAAAAAAAAA" || got.Hash != "00$AAAAAAAAAA" ||
		!slices.Equal(got.Scopes, []string{"read", "admin"}) || !got.CreatedAt.Equal(created.CreatedAt) ||
		got.LastUsedAt != nil || got.RevokedAt != nil {
		t.Fatalf("read back %+v, stored %+v", got, created)
	}
	if _, err := s.APIKeyByID(ctx, "BBBBBBBBBB"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v, want ErrNotFound", err)
	}
	if _, err := s.CreateAPIKey(ctx, APIKey{ID: "AAAAAAAAAA", Name: "dup", Prefix: "p", Hash: "h", Scopes: []string{"read"}}); err == nil {
		t.Fatal("a second key with the same id was stored")
	}
}

func TestAPIKeysListsOldestFirstWithRevoked(t *testing.T) {
	ctx := context.Background()
	s, clock := newKeyStore(t)
	if keys, err := s.APIKeys(ctx); err != nil || keys == nil || len(keys) != 0 {
		t.Fatalf("empty store: %v, %v; want an empty, non-nil list", keys, err)
	}
	base := clock.Now()
	ids := []string{"CCCCCCCCCC", "AAAAAAAAAA", "BBBBBBBBBB"}
	for i, id := range ids {
		clock.Set(base.Add(time.Duration(i) * time.Second))
		addTestAPIKey(t, s, id, "read")
	}
	if err := s.RevokeAPIKey(ctx, "AAAAAAAAAA", false); err != nil {
		t.Fatal(err)
	}
	keys, err := s.APIKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, k.ID)
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("order %v, want creation order %v", got, ids)
	}
	if keys[1].RevokedAt == nil {
		t.Fatal("revoked key listed without revoked_at")
	}
}

func TestHasActiveAPIKeys(t *testing.T) {
	ctx := context.Background()
	s, _ := newKeyStore(t)
	check := func(want bool) {
		t.Helper()
		if got, err := s.HasActiveAPIKeys(ctx); err != nil || got != want {
			t.Fatalf("HasActiveAPIKeys = %v, %v; want %v", got, err, want)
		}
	}
	check(false)
	addTestAPIKey(t, s, "AAAAAAAAAA", "read")
	check(true)
	addTestAPIKey(t, s, "BBBBBBBBBB", "admin")
	if err := s.RevokeAPIKey(ctx, "AAAAAAAAAA", false); err != nil {
		t.Fatal(err)
	}
	check(true)
	if err := s.RevokeAPIKey(ctx, "BBBBBBBBBB", false); err != nil {
		t.Fatal(err)
	}
	check(false)
}

func TestTouchAPIKey(t *testing.T) {
	ctx := context.Background()
	s, clock := newKeyStore(t)
	addTestAPIKey(t, s, "AAAAAAAAAA", "read")
	addTestAPIKey(t, s, "BBBBBBBBBB", "read")
	used := clock.Now().Add(time.Minute)
	clock.Set(used)
	if err := s.TouchAPIKey(ctx, "AAAAAAAAAA"); err != nil {
		t.Fatal(err)
	}
	a, _ := s.APIKeyByID(ctx, "AAAAAAAAAA")
	b, _ := s.APIKeyByID(ctx, "BBBBBBBBBB")
	if a.LastUsedAt == nil || !a.LastUsedAt.Equal(used.Truncate(time.Microsecond)) {
		t.Fatalf("last_used_at = %v, want %v", a.LastUsedAt, used)
	}
	if b.LastUsedAt != nil {
		t.Fatalf("touching one key moved another's last_used_at to %v", b.LastUsedAt)
	}
}

func TestRevokeAPIKeyIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s, clock := newKeyStore(t)
	addTestAPIKey(t, s, "AAAAAAAAAA", "read")
	first := clock.Now()
	if err := s.RevokeAPIKey(ctx, "AAAAAAAAAA", true); err != nil {
		t.Fatal(err)
	}
	clock.Set(first.Add(time.Hour))
	if err := s.RevokeAPIKey(ctx, "AAAAAAAAAA", true); err != nil {
		t.Fatalf("second revocation: %v", err)
	}
	k, _ := s.APIKeyByID(ctx, "AAAAAAAAAA")
	if k.RevokedAt == nil || !k.RevokedAt.Equal(first.Truncate(time.Microsecond)) {
		t.Fatalf("revoked_at = %v, want the first revocation's time %v", k.RevokedAt, first)
	}
	if err := s.RevokeAPIKey(ctx, "ZZZZZZZZZZ", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v, want ErrNotFound", err)
	}
}

func TestRevokeAPIKeyLastAdminGuard(t *testing.T) {
	type key struct {
		id      string
		scopes  []string
		revoked bool
	}
	cases := []struct {
		name   string
		keys   []key
		revoke string
		guard  bool
		want   error
	}{
		{"only admin, guarded", []key{{"A", []string{"admin"}, false}}, "A", true, ErrConflict},
		{"only admin, unguarded", []key{{"A", []string{"admin"}, false}}, "A", false, nil},
		{"admin among scopes, guarded", []key{{"A", []string{"read", "write", "admin"}, false}, {"R", []string{"read", "write"}, false}}, "A", true, ErrConflict},
		{"another admin left", []key{{"A", []string{"admin"}, false}, {"B", []string{"read", "admin"}, false}}, "A", true, nil},
		{"the other admin is revoked", []key{{"A", []string{"admin"}, false}, {"B", []string{"admin"}, true}}, "A", true, ErrConflict},
		{"non-admin key, guarded", []key{{"A", []string{"admin"}, false}, {"R", []string{"read"}, false}}, "R", true, nil},
		{"already revoked admin, guarded", []key{{"A", []string{"admin"}, false}, {"B", []string{"admin"}, true}}, "B", true, nil},
		{"scope named like admin", []key{{"A", []string{"admin"}, false}, {"B", []string{"administrator"}, false}}, "A", true, ErrConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s, _ := newKeyStore(t)
			for _, k := range c.keys {
				id := strings.Repeat(k.id, 10)
				addTestAPIKey(t, s, id, k.scopes...)
				if k.revoked {
					if err := s.RevokeAPIKey(ctx, id, false); err != nil {
						t.Fatal(err)
					}
				}
			}
			id := strings.Repeat(c.revoke, 10)
			err := s.RevokeAPIKey(ctx, id, c.guard)
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Fatalf("RevokeAPIKey = %v, want %v", err, c.want)
			}
			k, _ := s.APIKeyByID(ctx, id)
			if stillActive := k.RevokedAt == nil; stillActive != (c.want != nil) {
				t.Fatalf("revoked_at = %v after %v", k.RevokedAt, err)
			}
		})
	}
}

// TestRevokeLastTwoAdminsConcurrently: the guard's read and the update
// share a transaction, so two racing revocations cannot both see "another
// admin is left" and lock everyone out.
func TestRevokeLastTwoAdminsConcurrently(t *testing.T) {
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		s, _ := newKeyStore(t)
		addTestAPIKey(t, s, "AAAAAAAAAA", "admin")
		addTestAPIKey(t, s, "BBBBBBBBBB", "admin")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []string{"AAAAAAAAAA", "BBBBBBBBBB"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.RevokeAPIKey(ctx, id, true)
			}()
		}
		wg.Wait()
		var ok, conflict int
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, ErrConflict):
				conflict++
			default:
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("round %d: %d succeeded, %d conflicted; want exactly one of each", round, ok, conflict)
		}
		if has, _ := s.HasActiveAPIKeys(ctx); !has {
			t.Fatalf("round %d: both admin keys were revoked", round)
		}
	}
}
