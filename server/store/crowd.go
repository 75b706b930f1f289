package store

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"boolpool/server/apperr"
)

// CrowdSettings is a project's crowd entry: off by default; when enabled,
// the entry link carries Key, and at most MaxParticipants (0 = no cap)
// participant accounts may be created.
type CrowdSettings struct {
	ProjectID       int64
	Project         string
	Enabled         bool
	Key             string
	MaxParticipants int
	Participants    int // crowd accounts of the project so far
}

// CrowdSettingsByName reads a project's crowd entry settings.
func (s *Store) CrowdSettingsByName(ctx context.Context, name string) (CrowdSettings, error) {
	var c CrowdSettings
	err := s.pool.QueryRow(ctx, `SELECT p.id, p.name, p.crowd_enabled, p.crowd_key, p.crowd_max_participants,
			(SELECT count(*) FROM users u WHERE u.crowd_project_id = p.id)
		FROM projects p WHERE p.name = $1`, name).
		Scan(&c.ProjectID, &c.Project, &c.Enabled, &c.Key, &c.MaxParticipants, &c.Participants)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, fmt.Errorf("store: project %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("store: crowd settings: %w", err)
	}
	return c, nil
}

// CrowdUpdate changes a project's crowd entry; nil fields stay. A non-empty
// NewKey replaces the key (rotation: old links stop working at once).
type CrowdUpdate struct {
	ProjectID       int64
	Enabled         *bool
	MaxParticipants *int
	NewKey          string
	By              int64
}

// UpdateCrowdSettings applies u and records it in the audit log (without
// the key).
func (s *Store) UpdateCrowdSettings(ctx context.Context, u CrowdUpdate) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE projects SET
				crowd_enabled = coalesce($2, crowd_enabled),
				crowd_max_participants = coalesce($3, crowd_max_participants),
				crowd_key = CASE WHEN $4 = '' THEN crowd_key ELSE $4 END
			WHERE id = $1`, u.ProjectID, u.Enabled, u.MaxParticipants, u.NewKey)
		if err != nil {
			return fmt.Errorf("store: crowd settings: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: project %d: %w", u.ProjectID, ErrNotFound)
		}
		return audit(ctx, tx, u.By, u.ProjectID, "project.crowd", "project", fmt.Sprint(u.ProjectID),
			map[string]any{"enabled": u.Enabled, "max_participants": u.MaxParticipants, "key_rotated": u.NewKey != ""})
	})
}

// CrowdEntry is one participant's entry into a project.
type CrowdEntry struct {
	ProjectID   int64
	Project     string
	Participant string
	// PresentedHash is the SHA-256 of the binding token the browser sent
	// (nil when it sent none); NewHash binds a participant entering for
	// the first time (or an account made before binding existed).
	PresentedHash   []byte
	NewHash         []byte
	MaxParticipants int
}

// Errors of EnterCrowd.
var (
	ErrCrowdBound   = fmt.Errorf("this participant id was already used from another browser: %w", apperr.ErrForbidden)
	ErrCrowdFull    = fmt.Errorf("this study has reached its number of participants: %w", apperr.ErrForbidden)
	ErrCrowdRemoved = fmt.Errorf("this participant no longer has access to the project: %w", apperr.ErrForbidden)
)

// EnterCrowd returns the annotator account of a participant (external_id
// "<project>/<participant>"). A new participant gets an account with no
// password, bound to NewHash, and the project membership, unless the
// project's participant cap is reached. A known participant must present
// the token bound on first entry; one whose membership was removed stays
// out. Returns whether NewHash was bound (the caller then sets the cookie).
func (s *Store) EnterCrowd(ctx context.Context, e CrowdEntry) (User, bool, error) {
	ext := e.Project + "/" + e.Participant
	var u User
	var bound bool
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// One entry at a time per project, so the cap holds under races.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM projects WHERE id = $1 FOR UPDATE`, e.ProjectID); err != nil {
			return fmt.Errorf("store: crowd entry: %w", err)
		}
		var hash []byte
		var member bool
		err := tx.QueryRow(ctx, `SELECT u.id, u.username, u.display_name, u.role, u.password_hash, u.external_id, u.disabled, u.created_at, u.crowd_token_hash,
				EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = $2 AND pm.user_id = u.id)
			FROM users u WHERE u.external_id = $1`, ext, e.ProjectID).
			Scan(&u.ID, &u.Username, &u.DisplayName, &u.Role, &u.PasswordHash, &u.ExternalID, &u.Disabled, &u.CreatedAt, &hash, &member)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return s.newCrowdUser(ctx, tx, e, ext, &u, &bound)
		case err != nil:
			return fmt.Errorf("store: crowd entry: %w", err)
		}
		switch {
		case len(hash) == 0:
			// An account from before binding: bind it now.
			if _, err := tx.Exec(ctx, `UPDATE users SET crowd_token_hash = $2, crowd_project_id = $3 WHERE id = $1`,
				u.ID, e.NewHash, e.ProjectID); err != nil {
				return fmt.Errorf("store: crowd entry: %w", err)
			}
			bound = true
		case subtle.ConstantTimeCompare(hash, e.PresentedHash) != 1:
			return ErrCrowdBound
		}
		if !member {
			return ErrCrowdRemoved
		}
		return nil
	})
	return u, bound, err
}

func (s *Store) newCrowdUser(ctx context.Context, tx pgx.Tx, e CrowdEntry, ext string, u *User, bound *bool) error {
	if e.MaxParticipants > 0 {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM users WHERE crowd_project_id = $1`, e.ProjectID).Scan(&n); err != nil {
			return fmt.Errorf("store: crowd entry: %w", err)
		}
		if n >= e.MaxParticipants {
			return ErrCrowdFull
		}
	}
	rows, _ := tx.Query(ctx, `INSERT INTO users (username, display_name, role, external_id, crowd_project_id, crowd_token_hash)
		VALUES ($1, $2, 'annotator', $3, $4, $5) RETURNING `+userCols,
		"crowd-"+e.Project+"-"+e.Participant, "participant "+e.Participant, ext, e.ProjectID, e.NewHash)
	nu, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
	if isUniqueViolation(err) {
		return fmt.Errorf("store: crowd user %q: %w", ext, ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("store: crowd user: %w", err)
	}
	*u, *bound = nu, true
	if _, err := tx.Exec(ctx, `INSERT INTO project_members (project_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, e.ProjectID, u.ID); err != nil {
		return fmt.Errorf("store: crowd membership: %w", err)
	}
	return audit(ctx, tx, u.ID, e.ProjectID, "user.crowd_entry", "user", fmt.Sprint(u.ID), map[string]any{"participant": e.Participant})
}
