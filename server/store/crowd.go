package store

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	// Completion (migration 0091): the code shown to a participant who is
	// done, the crowd platform's URL they are sent back to, and the quota
	// that makes them done (items judged, active minutes; 0 = none).
	CompletionCode string
	CompletionURL  string
	QuotaItems     int
	QuotaMinutes   int
}

// CrowdSettingsByName reads a project's crowd entry settings.
func (s *Store) CrowdSettingsByName(ctx context.Context, name string) (CrowdSettings, error) {
	var c CrowdSettings
	err := s.pool.QueryRow(ctx, `SELECT p.id, p.name, p.crowd_enabled, p.crowd_key, p.crowd_max_participants,
			(SELECT count(*) FROM users u WHERE u.crowd_project_id = p.id),
			p.completion_code, p.crowd_completion_url, p.crowd_quota_items, p.crowd_quota_minutes
		FROM projects p WHERE p.name = $1`, name).
		Scan(&c.ProjectID, &c.Project, &c.Enabled, &c.Key, &c.MaxParticipants, &c.Participants,
			&c.CompletionCode, &c.CompletionURL, &c.QuotaItems, &c.QuotaMinutes)
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
	CompletionCode  *string
	CompletionURL   *string // "" clears it
	QuotaItems      *int
	QuotaMinutes    *int
	NewKey          string
	// EnableKey becomes the key when this update turns entry on while it
	// is off (or the project has no key yet): turning entry off and on
	// again makes a new link, so the old one stays closed.
	EnableKey string
	By        int64
}

// Bounds of the crowd settings (the columns' checks, migrations 0060 and
// 0091).
const (
	MaxCrowdParticipants = 1_000_000
	MaxCompletionCode    = 200
	MaxCompletionURL     = 2048
	MaxCrowdQuotaItems   = 1_000_000
	MaxCrowdQuotaMinutes = 100_000
)

// Validate checks the fields u sets; the error is an *apperr.Invalid
// naming the field as the API spells it (max_participants,
// completion_code, completion_url, quota_items, quota_minutes).
func (u CrowdUpdate) Validate() error {
	if u.MaxParticipants != nil && (*u.MaxParticipants < 0 || *u.MaxParticipants > MaxCrowdParticipants) {
		return apperr.Invalidf("max_participants", "must be between 0 (no cap) and %d", MaxCrowdParticipants)
	}
	if u.CompletionCode != nil {
		c := *u.CompletionCode
		if len(c) > MaxCompletionCode {
			return apperr.Invalidf("completion_code", "must be at most %d bytes", MaxCompletionCode)
		}
		if !utf8.ValidString(c) || strings.IndexFunc(c, func(r rune) bool { return unicode.IsControl(r) }) >= 0 {
			return apperr.Invalidf("completion_code", "must be text without control characters")
		}
		if strings.TrimSpace(c) != c {
			return apperr.Invalidf("completion_code", "must not start or end with white space")
		}
	}
	if u.CompletionURL != nil && *u.CompletionURL != "" {
		if err := validCompletionURL(*u.CompletionURL); err != "" {
			return apperr.Invalidf("completion_url", "%s", err)
		}
	}
	if u.QuotaItems != nil && (*u.QuotaItems < 0 || *u.QuotaItems > MaxCrowdQuotaItems) {
		return apperr.Invalidf("quota_items", "must be between 0 (no quota) and %d", MaxCrowdQuotaItems)
	}
	if u.QuotaMinutes != nil && (*u.QuotaMinutes < 0 || *u.QuotaMinutes > MaxCrowdQuotaMinutes) {
		return apperr.Invalidf("quota_minutes", "must be between 0 (no quota) and %d", MaxCrowdQuotaMinutes)
	}
	return nil
}

// validCompletionURL says what is wrong with a completion URL ("" if
// nothing): an absolute http or https URL with a host, at most
// MaxCompletionURL bytes, without spaces or control characters.
func validCompletionURL(s string) string {
	if len(s) > MaxCompletionURL {
		return fmt.Sprintf("must be at most %d bytes", MaxCompletionURL)
	}
	if strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "must not contain spaces or control characters"
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "must be an http:// or https:// URL with a host, e.g. https://app.prolific.com/submissions/complete?cc=CODE"
	}
	return ""
}

// UpdateCrowdSettings validates u (Validate), applies it and records it in
// the audit log (without the key).
func (s *Store) UpdateCrowdSettings(ctx context.Context, u CrowdUpdate) error {
	if err := u.Validate(); err != nil {
		return err
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var wasOn bool
		var oldKey string
		err := tx.QueryRow(ctx, `SELECT crowd_enabled, crowd_key FROM projects WHERE id = $1 FOR UPDATE`, u.ProjectID).Scan(&wasOn, &oldKey)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: project %d: %w", u.ProjectID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: crowd settings: %w", err)
		}
		if u.NewKey == "" && u.EnableKey != "" && u.Enabled != nil && *u.Enabled && (!wasOn || oldKey == "") {
			u.NewKey = u.EnableKey
		}
		tag, err := tx.Exec(ctx, `UPDATE projects SET
				crowd_enabled = coalesce($2, crowd_enabled),
				crowd_max_participants = coalesce($3, crowd_max_participants),
				crowd_key = CASE WHEN $4 = '' THEN crowd_key ELSE $4 END,
				completion_code = coalesce($5, completion_code),
				crowd_completion_url = coalesce($6, crowd_completion_url),
				crowd_quota_items = coalesce($7, crowd_quota_items),
				crowd_quota_minutes = coalesce($8, crowd_quota_minutes)
			WHERE id = $1`, u.ProjectID, u.Enabled, u.MaxParticipants, u.NewKey,
			u.CompletionCode, u.CompletionURL, u.QuotaItems, u.QuotaMinutes)
		if err != nil {
			return fmt.Errorf("store: crowd settings: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("store: project %d: %w", u.ProjectID, ErrNotFound)
		}
		return audit(ctx, tx, u.By, u.ProjectID, "project.crowd", "project", fmt.Sprint(u.ProjectID),
			map[string]any{"enabled": u.Enabled, "max_participants": u.MaxParticipants, "key_rotated": u.NewKey != "",
				"completion_code": u.CompletionCode, "completion_url": u.CompletionURL,
				"quota_items": u.QuotaItems, "quota_minutes": u.QuotaMinutes})
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
	// ErrCrowdUnbound: an account from before binding (or one an admin
	// has not released) is not bound by whichever browser enters first.
	ErrCrowdUnbound = fmt.Errorf("this participant id was registered before browsers were bound to it; an admin must release it first: %w", apperr.ErrForbidden)
	// ErrCrowdNameTaken: another account (made by an admin) already has
	// the participant's account name.
	ErrCrowdNameTaken = fmt.Errorf("an account with this participant's name already exists: %w", apperr.ErrConflict)
)

// CrowdUsername is the account name of a participant of a project:
// "crowd-<project id>-<participant>". The project id has no '-', so no two
// (project, participant) pairs share a name (with the project's name they
// did: pa/x-y and pa-x/y); admins cannot create names with the prefix
// (auth.CreateAccount).
func CrowdUsername(projectID int64, participant string) string {
	return fmt.Sprintf("crowd-%d-%s", projectID, participant)
}

// EnterCrowd returns the annotator account of a participant (external_id
// "<project>/<participant>"). A new participant gets an account with no
// password, bound to NewHash, and the project membership, unless the
// project's participant cap is reached. A known participant must present
// the token bound on first entry; one whose membership was removed stays
// out; one without a bound token (made before binding) is bound only after
// an admin released it (ReleaseCrowdBinding), else ErrCrowdUnbound.
// Returns whether NewHash was bound (the caller then sets the cookie).
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
		var member, rebind bool
		err := tx.QueryRow(ctx, `SELECT u.id, u.username, u.display_name, u.role, u.password_hash, u.external_id, u.disabled, u.created_at, u.crowd_token_hash,
				u.crowd_rebind, EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = $2 AND pm.user_id = u.id)
			FROM users u WHERE u.external_id = $1 FOR UPDATE OF u`, ext, e.ProjectID).
			Scan(&u.ID, &u.Username, &u.DisplayName, &u.Role, &u.PasswordHash, &u.ExternalID, &u.Disabled, &u.CreatedAt, &hash, &rebind, &member)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return s.newCrowdUser(ctx, tx, e, ext, &u, &bound)
		case err != nil:
			return fmt.Errorf("store: crowd entry: %w", err)
		}
		switch {
		case len(hash) == 0 && !rebind:
			// An account from before binding: only an admin's release
			// (ReleaseCrowdBinding) lets a browser bind it.
			return ErrCrowdUnbound
		case len(hash) == 0:
			if _, err := tx.Exec(ctx, `UPDATE users SET crowd_token_hash = $2, crowd_project_id = $3, crowd_rebind = false WHERE id = $1`,
				u.ID, e.NewHash, e.ProjectID); err != nil {
				return fmt.Errorf("store: crowd entry: %w", err)
			}
			bound = true
			if err := audit(ctx, tx, u.ID, e.ProjectID, "user.crowd_bound", "user", fmt.Sprint(u.ID), map[string]any{"participant": e.Participant}); err != nil {
				return err
			}
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
		CrowdUsername(e.ProjectID, e.Participant), "participant "+e.Participant, ext, e.ProjectID, e.NewHash)
	nu, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[User])
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "users_username_key" {
		return fmt.Errorf("store: crowd user %q: %w", CrowdUsername(e.ProjectID, e.Participant), ErrCrowdNameTaken)
	}
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

// CrowdUserID is the account id of a participant of a project (by name);
// ErrNotFound if that participant never entered.
func (s *Store) CrowdUserID(ctx context.Context, project, participant string) (int64, error) {
	var id int64
	ext := project + "/" + participant
	if !storable(ext) {
		return 0, fmt.Errorf("store: participant %q of project %q: %w", participant, project, ErrNotFound)
	}
	err := s.pool.QueryRow(ctx, `SELECT id FROM users WHERE external_id = $1`, ext).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("store: participant %q of project %q: %w", participant, project, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("store: crowd user: %w", err)
	}
	return id, nil
}

// ReleaseCrowdBinding forgets the browser bound to a participant account
// (if any) and lets the next entry with its participant id bind a new one:
// how an admin hands a participant who changed browser, or an account made
// before binding, back to its participant. Not a crowd account:
// apperr.Invalid naming crowd_rebind.
func (s *Store) ReleaseCrowdBinding(ctx context.Context, userID, by int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var project *int64
		err := tx.QueryRow(ctx, `UPDATE users SET crowd_token_hash = NULL, crowd_rebind = true
			WHERE id = $1 AND external_id IS NOT NULL RETURNING crowd_project_id`, userID).Scan(&project)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Invalidf("crowd_rebind", "user %d is not a crowd participant", userID)
		}
		if err != nil {
			return fmt.Errorf("store: release crowd binding: %w", err)
		}
		var pid int64
		if project != nil {
			pid = *project
		}
		return audit(ctx, tx, by, pid, "user.crowd_released", "user", fmt.Sprint(userID), map[string]any{})
	})
}

// entryFormLife is how long a used entry form token is remembered: longer
// than the form cookie lives (an hour), after which it is refused anyway.
const entryFormLife = 2 * time.Hour

// UseEntryForm records the use of a crowd start page's form token (its
// SHA-256) and reports whether it was its first use; tokens used more
// than two hours ago are forgotten on the way.
func (s *Store) UseEntryForm(ctx context.Context, tokenHash []byte) (bool, error) {
	if _, err := s.pool.Exec(ctx, `DELETE FROM crowd_entry_forms WHERE used_at < now() - $1::interval`, entryFormLife); err != nil {
		return false, fmt.Errorf("store: entry form: %w", err)
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO crowd_entry_forms (token_hash) VALUES ($1) ON CONFLICT DO NOTHING`, tokenHash)
	if err != nil {
		return false, fmt.Errorf("store: entry form: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// CrowdWork is one participant's work in a project: items judged (done
// assignments of any kind, not skips), the active time logged with their
// judgments (the judging page's clock: gaps between inputs capped at two
// minutes), and when they were first told they were done.
type CrowdWork struct {
	Items       int
	ActiveMs    int64
	CompletedAt *time.Time
}

// QuotaReached reports whether w meets one of the project's crowd quotas
// (none set: never).
func QuotaReached(p Project, w CrowdWork) bool {
	return quotaReached(p.CrowdQuotaItems, p.CrowdQuotaMinutes, w)
}

func quotaReached(items, minutes int, w CrowdWork) bool {
	return (items > 0 && w.Items >= items) || (minutes > 0 && w.ActiveMs >= int64(minutes)*60_000)
}

// CrowdWorkOf reads one participant's work in a project (their own rows).
func (s *Store) CrowdWorkOf(ctx context.Context, projectID, userID int64) (CrowdWork, error) {
	var w CrowdWork
	err := s.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM assignments a JOIN items i ON i.id = a.item_id
				WHERE a.user_id = $2 AND i.project_id = $1 AND a.status = 'done'),
			(SELECT coalesce(sum(active_ms), 0) FROM activity WHERE user_id = $2 AND project_id = $1),
			(SELECT crowd_completed_at FROM users WHERE id = $2)`, projectID, userID).
		Scan(&w.Items, &w.ActiveMs, &w.CompletedAt)
	if err != nil {
		return w, fmt.Errorf("store: crowd work: %w", err)
	}
	return w, nil
}

// EndCrowdWork records that a participant was told they are done (the
// first time, audited). With release (they reached the quota) their live
// leases in the project, of every kind, are given back too; a late
// judgment of one is still accepted, as for any expired lease.
func (s *Store) EndCrowdWork(ctx context.Context, projectID, userID int64, release bool) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if release {
			if _, err := tx.Exec(ctx, `UPDATE assignments a SET status = 'expired', lease_expires_at = least(a.lease_expires_at, now())
				FROM items i WHERE i.id = a.item_id AND a.user_id = $2 AND i.project_id = $1 AND a.status = 'leased'`,
				projectID, userID); err != nil {
				return fmt.Errorf("store: end crowd work: %w", err)
			}
		}
		tag, err := tx.Exec(ctx, `UPDATE users SET crowd_completed_at = now() WHERE id = $1 AND crowd_completed_at IS NULL`, userID)
		if err != nil {
			return fmt.Errorf("store: end crowd work: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil
		}
		return audit(ctx, tx, userID, projectID, "user.crowd_completed", "user", fmt.Sprint(userID), map[string]any{})
	})
}

// CrowdParticipant is one participant's line of a project's payment table.
type CrowdParticipant struct {
	UserID      int64
	Participant string // the id the crowd platform gave them
	Disabled    bool
	CrowdWork
	GoldJudged, GoldCorrect int // as GoldRecordOf
	FirstAt, LastAt         *time.Time
	Completed               bool // told they were done, or past the quota now
}

// CrowdParticipants is the payment table of a project: every participant
// who entered by its crowd link, in order of entry.
func (s *Store) CrowdParticipants(ctx context.Context, projectID int64) ([]CrowdParticipant, error) {
	var items, minutes int
	var name string
	err := s.pool.QueryRow(ctx, `SELECT name, crowd_quota_items, crowd_quota_minutes FROM projects WHERE id = $1`, projectID).
		Scan(&name, &items, &minutes)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("store: project %d: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: crowd participants: %w", err)
	}
	rows, err := s.pool.Query(ctx, `WITH crowd AS (
			SELECT id, external_id, disabled, crowd_completed_at, created_at FROM users WHERE crowd_project_id = $1
		), done AS (
			SELECT a.user_id, count(*) AS n FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE i.project_id = $1 AND a.status = 'done' AND a.user_id IN (SELECT id FROM crowd)
			GROUP BY a.user_id
		), act AS (
			SELECT user_id, sum(active_ms) AS ms FROM activity
			WHERE project_id = $1 AND user_id IN (SELECT id FROM crowd) GROUP BY user_id
		), times AS (
			SELECT j.user_id, min(j.created_at) AS first_at, max(j.created_at) AS last_at
			FROM judgments j JOIN items i ON i.id = j.item_id
			WHERE i.project_id = $1 AND j.user_id IN (SELECT id FROM crowd) GROUP BY j.user_id
		), gold AS (
			SELECT g.user_id, count(*) AS judged, count(*) FILTER (WHERE g.correct) AS correct FROM (
				SELECT c.user_id, (c.relevance >= 2) = (`+goldGrade+` >= 2) AS correct
				FROM current_judgments c JOIN items i ON i.id = c.item_id
				WHERE c.project_id = $1 AND c.item_kind = 'relevance' AND i.is_gold AND c.relevance IS NOT NULL
					AND `+goldGrade+` BETWEEN 0 AND 3 AND c.user_id IN (SELECT id FROM crowd)
				UNION ALL
				SELECT c.user_id, c.payload->>'satisfied' = i.gold_answer->>'satisfied'
				FROM current_judgments c JOIN items i ON i.id = c.item_id
				WHERE c.project_id = $1 AND c.item_kind = 'constraint' AND i.is_gold
					AND i.gold_answer->>'satisfied' IS NOT NULL AND c.user_id IN (SELECT id FROM crowd)
			) g GROUP BY g.user_id
		)
		SELECT u.id, coalesce(u.external_id, ''), u.disabled, coalesce(done.n, 0), coalesce(act.ms, 0)::bigint,
			u.crowd_completed_at, coalesce(gold.judged, 0), coalesce(gold.correct, 0), times.first_at, times.last_at
		FROM crowd u
		LEFT JOIN done ON done.user_id = u.id
		LEFT JOIN act ON act.user_id = u.id
		LEFT JOIN times ON times.user_id = u.id
		LEFT JOIN gold ON gold.user_id = u.id
		ORDER BY u.created_at, u.id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: crowd participants: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CrowdParticipant, error) {
		var c CrowdParticipant
		err := r.Scan(&c.UserID, &c.Participant, &c.Disabled, &c.Items, &c.ActiveMs, &c.CompletedAt,
			&c.GoldJudged, &c.GoldCorrect, &c.FirstAt, &c.LastAt)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: crowd participants: %w", err)
	}
	for i := range out {
		c := &out[i]
		c.Participant = strings.TrimPrefix(c.Participant, name+"/")
		c.Completed = c.CompletedAt != nil || quotaReached(items, minutes, c.CrowdWork)
	}
	return out, nil
}
