package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"scand/store/sqlbase"
)

// Notification is a stored in-app notification.
type Notification struct {
	ID        string
	Severity  string
	Title     string
	Body      string
	ScanID    string
	CreatedAt time.Time
	ReadAt    *time.Time
}

const notificationColumns = "id, severity, title, body, scan_id, created_at, read_at"

func scanNotification(row sqlbase.Row) (Notification, error) {
	var n Notification
	var created string
	var read sql.NullString
	if err := row.Scan(&n.ID, &n.Severity, &n.Title, &n.Body, &n.ScanID, &created, &read); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return n, ErrNotFound
		}
		return n, err
	}
	n.CreatedAt = sqlbase.ParseTime(created)
	n.ReadAt = sqlbase.ParseNullTime(read)
	return n, nil
}

// CreateNotification stores n as unread. ID and CreatedAt are filled in
// when empty.
func (s *Store) CreateNotification(ctx context.Context, n Notification) (Notification, error) {
	if n.ID == "" {
		n.ID = NewID()
	}
	if n.CreatedAt.IsZero() {
		n.CreatedAt = s.now()
	}
	n.CreatedAt = n.CreatedAt.UTC().Truncate(time.Microsecond)
	n.ReadAt = nil
	_, err := s.w.ExecContext(ctx, "INSERT INTO notifications (id, severity, title, body, scan_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		n.ID, n.Severity, n.Title, n.Body, n.ScanID, sqlbase.FormatTime(n.CreatedAt))
	return n, err
}

// Notifications lists notifications newest first (arrival order, so two
// created in the same microsecond still come out in a stable order).
func (s *Store) Notifications(ctx context.Context, unreadOnly bool, limit int) ([]Notification, error) {
	q := "SELECT " + notificationColumns + " FROM notifications"
	if unreadOnly {
		q += " WHERE read_at IS NULL"
	}
	q += " ORDER BY seq DESC LIMIT ?"
	rows, err := s.db.QueryContext(ctx, q, limit)
	return sqlbase.Collect(rows, err, scanNotification)
}

// UnreadNotificationCount counts notifications not yet read.
func (s *Store) UnreadNotificationCount(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM notifications WHERE read_at IS NULL").Scan(&n)
	return n, err
}

// MarkNotificationRead sets read_at on one notification and returns it.
// Marking an already read notification keeps its first read_at.
func (s *Store) MarkNotificationRead(ctx context.Context, id string, at time.Time) (Notification, error) {
	return scanNotification(s.w.QueryRowContext(ctx,
		"UPDATE notifications SET read_at = COALESCE(read_at, ?) WHERE id = ? RETURNING "+notificationColumns,
		sqlbase.FormatTime(at.UTC()), id))
}

// MarkAllNotificationsRead marks every unread notification read and says
// how many changed.
func (s *Store) MarkAllNotificationsRead(ctx context.Context, at time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, "UPDATE notifications SET read_at = ? WHERE read_at IS NULL", sqlbase.FormatTime(at.UTC()))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// PruneReadNotifications deletes read notifications created before
// cutoff. Unread ones are kept however old: nobody has seen them yet.
func (s *Store) PruneReadNotifications(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, "DELETE FROM notifications WHERE read_at IS NOT NULL AND created_at < ?", sqlbase.FormatTime(cutoff.UTC()))
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
