package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/vocab"
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
	return collectOne[User](rows, fmt.Sprintf("user %q", username))
}

// UserByID looks a user up by id.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users WHERE id = $1`, id)
	return collectOne[User](rows, fmt.Sprintf("user %d", id))
}

// ListUsers returns all users by username.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userCols+` FROM users ORDER BY username`)
	return collectAll[User](rows, "list users")
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

// MayEnterProject is boolpool's one rule of project access: an admin may
// enter every project, any other user only the projects they are a member
// of. Callers look the membership up as suits them (ProjectForUser,
// AssignedTask, IsProjectMember) and decide with this.
func MayEnterProject(role string, member bool) bool {
	return role == vocab.RoleAdmin || member
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

// ErrLastAdmin refuses a change that would leave no enabled admin.
var ErrLastAdmin = errors.New("the last enabled admin cannot lose the admin role or be disabled")

// UserUpdate changes an account; nil fields stay as they are. Projects,
// when not nil, becomes the user's exact set of project memberships.
type UserUpdate struct {
	ID       int64
	Role     *string
	Disabled *bool
	Projects []string
	By       int64 // the admin making the change, for the audit log
}

// UpdateUser applies u in one transaction, audited with the old and new
// values. Taking the admin role from (or disabling) the last enabled admin
// fails with an error wrapping ErrLastAdmin and ErrConflict; an unknown
// project name is ErrNotFound.
func (s *Store) UpdateUser(ctx context.Context, u UserUpdate) (User, error) {
	var out User
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// Lock every enabled admin first: two concurrent demotions of the
		// last two admins must not both see the other one still there.
		if _, err := tx.Exec(ctx, `SELECT id FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE`); err != nil {
			return fmt.Errorf("store: update user: lock admins: %w", err)
		}
		rows, _ := tx.Query(ctx, `SELECT `+userCols+` FROM users WHERE id = $1 FOR UPDATE`, u.ID)
		old, err := collectOne[User](rows, fmt.Sprintf("user %d", u.ID))
		if err != nil {
			return err
		}
		role, disabled := old.Role, old.Disabled
		if u.Role != nil {
			role = *u.Role
		}
		if u.Disabled != nil {
			disabled = *u.Disabled
		}
		if old.Role == vocab.RoleAdmin && !old.Disabled && (role != vocab.RoleAdmin || disabled) {
			var others int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE role = 'admin' AND NOT disabled AND id <> $1`, u.ID).Scan(&others); err != nil {
				return fmt.Errorf("store: update user: count admins: %w", err)
			}
			if others == 0 {
				return fmt.Errorf("store: %w (%s is the only one; make another account admin first): %w", ErrLastAdmin, old.Username, ErrConflict)
			}
		}
		rows, _ = tx.Query(ctx, `UPDATE users SET role = $2, disabled = $3 WHERE id = $1 RETURNING `+userCols, u.ID, role, disabled)
		if out, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User]); err != nil {
			return fmt.Errorf("store: update user %d: %w", u.ID, err)
		}
		detail := map[string]any{"username": old.Username}
		if role != old.Role {
			detail["role"] = map[string]string{"from": old.Role, "to": role}
		}
		if disabled != old.Disabled {
			detail["disabled"] = map[string]bool{"from": old.Disabled, "to": disabled}
		}
		if u.Projects != nil {
			before, after, err := replaceMemberships(ctx, tx, u.ID, u.Projects)
			if err != nil {
				return err
			}
			detail["projects"] = map[string][]string{"from": before, "to": after}
		}
		if disabled && !old.Disabled {
			// A disabled account's sessions end now, not when they expire.
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, u.ID); err != nil {
				return fmt.Errorf("store: update user: end sessions: %w", err)
			}
		}
		return audit(ctx, tx, u.By, 0, "user.update", "user", fmt.Sprint(u.ID), detail)
	})
	return out, err
}

// replaceMemberships makes names the user's exact project set and returns
// the sorted names before and after.
func replaceMemberships(ctx context.Context, tx pgx.Tx, userID int64, names []string) ([]string, []string, error) {
	rows, _ := tx.Query(ctx, `SELECT p.name FROM projects p JOIN project_members m ON m.project_id = p.id
		WHERE m.user_id = $1 ORDER BY p.name`, userID)
	before, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("store: memberships: %w", err)
	}
	ids := []int64{}
	for _, n := range names {
		if !storable(n) {
			return nil, nil, fmt.Errorf("store: project %q: %w", n, ErrNotFound)
		}
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM projects WHERE name = $1`, n).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil, fmt.Errorf("store: project %q: %w", n, ErrNotFound)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("store: project %q: %w", n, err)
		}
		ids = append(ids, id)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM project_members WHERE user_id = $1 AND NOT (project_id = ANY($2))`, userID, ids); err != nil {
		return nil, nil, fmt.Errorf("store: memberships: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO project_members (project_id, user_id) SELECT unnest($2::bigint[]), $1
		ON CONFLICT DO NOTHING`, userID, ids); err != nil {
		return nil, nil, fmt.Errorf("store: memberships: %w", err)
	}
	rows, _ = tx.Query(ctx, `SELECT p.name FROM projects p JOIN project_members m ON m.project_id = p.id
		WHERE m.user_id = $1 ORDER BY p.name`, userID)
	after, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, nil, fmt.Errorf("store: memberships: %w", err)
	}
	return before, after, nil
}
