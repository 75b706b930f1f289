package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is a login session joined with its user. Only the SHA-256 of the
// session token is stored, so a database leak does not leak live sessions.
type Session struct {
	TokenHash []byte    `db:"token_hash"`
	UserID    int64     `db:"user_id"`
	CSRFToken string    `db:"csrf_token"`
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
	User      User      `db:"-"`
}

// CreateSession stores a new session.
func (s *Store) CreateSession(ctx context.Context, tokenHash []byte, userID int64, csrf string, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (token_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, $3, $4)`,
		tokenHash, userID, csrf, expires)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// SessionByTokenHash returns the live (unexpired) session with its enabled
// user, or ErrNotFound.
func (s *Store) SessionByTokenHash(ctx context.Context, tokenHash []byte) (Session, error) {
	var ss Session
	var u User
	err := s.pool.QueryRow(ctx, `SELECT s.token_hash, s.user_id, s.csrf_token, s.created_at, s.expires_at,
			u.id, u.username, u.display_name, u.role, u.external_id, u.disabled, u.created_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > now() AND NOT u.disabled`, tokenHash).
		Scan(&ss.TokenHash, &ss.UserID, &ss.CSRFToken, &ss.CreatedAt, &ss.ExpiresAt,
			&u.ID, &u.Username, &u.DisplayName, &u.Role, &u.ExternalID, &u.Disabled, &u.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, fmt.Errorf("store: session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: session: %w", err)
	}
	ss.User = u
	return ss, nil
}

// DeleteSession ends one session (logout).
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions past their expiry and returns how
// many went.
func (s *Store) DeleteExpiredSessions(ctx context.Context) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("store: expire sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}
