package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// User is one account. PasswordHash is an encoded argon2id hash (see
// server/auth); it never leaves the server.
type User struct {
	ID           int64     `db:"id"`
	Username     string    `db:"username"`
	DisplayName  string    `db:"display_name"`
	Role         string    `db:"role"`
	PasswordHash string    `db:"password_hash"`
	ExternalID   *string   `db:"external_id"`
	Disabled     bool      `db:"disabled"`
	CreatedAt    time.Time `db:"created_at"`
}

const userCols = `id, username, display_name, role, password_hash, external_id, disabled, created_at`

// NewUser is the input of CreateUser.
type NewUser struct {
	Username     string
	DisplayName  string
	Role         string
	PasswordHash string
	CreatedBy    int64 // for the audit log; 0 = system / command line
}

// CreateUser inserts a user; a taken username is ErrConflict.
func (s *Store) CreateUser(ctx context.Context, n NewUser) (User, error) {
	var u User
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `INSERT INTO users (username, display_name, role, password_hash)
			VALUES ($1, $2, $3, $4) RETURNING `+userCols, n.Username, n.DisplayName, n.Role, n.PasswordHash)
		var err error
		u, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
		if isUniqueViolation(err) {
			return fmt.Errorf("store: user %q exists: %w", n.Username, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: create user: %w", err)
		}
		return audit(ctx, tx, n.CreatedBy, 0, "user.create", "user", fmt.Sprint(u.ID), map[string]any{"username": u.Username, "role": u.Role})
	})
	return u, err
}

// SetUserPassword replaces a user's password hash.
func (s *Store) SetUserPassword(ctx context.Context, userID int64, hash string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET password_hash = $2 WHERE id = $1`, userID, hash)
	if err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("store: user %d: %w", userID, ErrNotFound)
	}
	return nil
}

// UserByUsername looks a user up by name.
func (s *Store) UserByUsername(ctx context.Context, username string) (User, error) {
	if !storable(username) {
		return User{}, fmt.Errorf("store: user %q: %w", username, ErrNotFound)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users WHERE username = $1`, username)
	u, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, fmt.Errorf("store: user %q: %w", username, ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user %q: %w", username, err)
	}
	return u, nil
}

// UserByID looks a user up by id.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users WHERE id = $1`, id)
	u, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, fmt.Errorf("store: user %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("store: user %d: %w", id, err)
	}
	return u, nil
}

// ListUsers returns all users by username.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users ORDER BY username`)
	us, err := pgx.CollectRows(rows, pgx.RowToStructByName[User])
	if err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	return us, nil
}

// AddProjectMember makes a user a member of a project (idempotent).
func (s *Store) AddProjectMember(ctx context.Context, projectID, userID int64) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO project_members (project_id, user_id) VALUES ($1, $2)
		ON CONFLICT DO NOTHING`, projectID, userID)
	if err != nil {
		return fmt.Errorf("store: add member: %w", err)
	}
	return nil
}

// IsProjectMember reports whether a user belongs to a project.
func (s *Store) IsProjectMember(ctx context.Context, projectID, userID int64) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM project_members WHERE project_id = $1 AND user_id = $2)`,
		projectID, userID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: membership: %w", err)
	}
	return ok, nil
}

// UserProjects returns the names of the projects a user belongs to.
func (s *Store) UserProjects(ctx context.Context, userID int64) ([]string, error) {
	rows, _ := s.pool.Query(ctx, `SELECT p.name FROM projects p JOIN project_members m ON m.project_id = p.id
		WHERE m.user_id = $1 ORDER BY p.name`, userID)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: user projects: %w", err)
	}
	return names, nil
}

// EnsureCrowdUser returns the annotator account of a crowd-platform
// participant in a project (external_id "<project>/<participant>"),
// creating it, with no password, and its membership on first entry.
func (s *Store) EnsureCrowdUser(ctx context.Context, projectName, participant string) (User, error) {
	p, err := s.ProjectByName(ctx, projectName)
	if err != nil {
		return User{}, err
	}
	ext := projectName + "/" + participant
	var u User
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO users (username, display_name, role, external_id)
			VALUES ($1, $2, 'annotator', $3) ON CONFLICT (external_id) DO NOTHING`,
			"crowd-"+projectName+"-"+participant, "participant "+participant, ext)
		if isUniqueViolation(err) {
			return fmt.Errorf("store: crowd user %q: %w", ext, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: crowd user: %w", err)
		}
		rows, _ := tx.Query(ctx, `SELECT `+userCols+` FROM users WHERE external_id = $1`, ext)
		if u, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User]); err != nil {
			return fmt.Errorf("store: crowd user: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO project_members (project_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, p.ID, u.ID); err != nil {
			return fmt.Errorf("store: crowd membership: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return audit(ctx, tx, u.ID, p.ID, "user.crowd_entry", "user", fmt.Sprint(u.ID), map[string]any{"participant": participant})
		}
		return nil
	})
	return u, err
}
