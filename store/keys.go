package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"scand/store/sqlbase"
)

// APIKey is a stored API key row. Hash is never shown to clients.
type APIKey struct {
	ID         string
	Name       string
	Prefix     string
	Hash       string
	Scopes     []string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

const apiKeyColumns = "id, name, prefix, hash, scopes, created_at, last_used_at, revoked_at"

func scanAPIKey(row sqlbase.Row) (APIKey, error) {
	var k APIKey
	var scopes, created string
	var used, revoked sql.NullString
	if err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.Hash, &scopes, &created, &used, &revoked); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return k, ErrNotFound
		}
		return k, err
	}
	if err := json.Unmarshal([]byte(scopes), &k.Scopes); err != nil {
		return k, err
	}
	k.CreatedAt = sqlbase.ParseTime(created)
	k.LastUsedAt = sqlbase.ParseNullTime(used)
	k.RevokedAt = sqlbase.ParseNullTime(revoked)
	return k, nil
}

// CreateAPIKey stores a new key row; CreatedAt is set by the store.
func (s *Store) CreateAPIKey(ctx context.Context, k APIKey) (APIKey, error) {
	k.CreatedAt = s.now().UTC().Truncate(time.Microsecond)
	scopes, _ := json.Marshal(k.Scopes)
	_, err := s.w.ExecContext(ctx, "INSERT INTO api_keys (id, name, prefix, hash, scopes, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		k.ID, k.Name, k.Prefix, k.Hash, string(scopes), sqlbase.FormatTime(k.CreatedAt))
	return k, err
}

// APIKeyByID returns one key, revoked or not.
func (s *Store) APIKeyByID(ctx context.Context, id string) (APIKey, error) {
	return scanAPIKey(s.db.QueryRowContext(ctx, "SELECT "+apiKeyColumns+" FROM api_keys WHERE id = ?", id))
}

// APIKeys lists every key, oldest first.
func (s *Store) APIKeys(ctx context.Context) ([]APIKey, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+apiKeyColumns+" FROM api_keys ORDER BY created_at, id")
	return sqlbase.Collect(rows, err, scanAPIKey)
}

// HasActiveAPIKeys reports whether any unrevoked key exists; it decides
// whether the service is still in dev mode.
func (s *Store) HasActiveAPIKeys(ctx context.Context) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL)").Scan(&n)
	return n == 1, err
}

// TouchAPIKey records a successful authentication.
func (s *Store) TouchAPIKey(ctx context.Context, id string) error {
	_, err := s.w.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE id = ?", sqlbase.FormatTime(s.now()), id)
	return err
}

// RevokeAPIKey revokes a key. Revoking an already revoked key is a no-op.
// When guardLastAdmin is set, revoking the last unrevoked admin key fails
// with ErrConflict; the check and the update share one transaction so two
// concurrent revocations cannot both pass it.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, guardLastAdmin bool) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		k, err := scanAPIKey(tx.QueryRowContext(ctx, "SELECT "+apiKeyColumns+" FROM api_keys WHERE id = ?", id))
		if err != nil {
			return err
		}
		if k.RevokedAt != nil {
			return nil
		}
		if guardLastAdmin && hasScope(k.Scopes, "admin") {
			var others int
			// Qualified columns: json_each has an "id" column of its own.
			err := tx.QueryRowContext(ctx, `SELECT count(*) FROM api_keys, json_each(api_keys.scopes)
				WHERE api_keys.revoked_at IS NULL AND api_keys.id != ? AND json_each.value = 'admin'`, id).Scan(&others)
			if err != nil {
				return err
			}
			if others == 0 {
				return ErrConflict
			}
		}
		_, err = tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", sqlbase.FormatTime(s.now()), id)
		return err
	})
}

func hasScope(scopes []string, want string) bool {
	for _, s := range scopes {
		if s == want {
			return true
		}
	}
	return false
}
