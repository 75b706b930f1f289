package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/server/apperr"
)

// Judgment is one stored judgment. Rows are never updated: a correction is a
// new row whose Supersedes names the rater's previous judgment of the item.
type Judgment struct {
	ID            int64           `db:"id"`
	ClientID      string          `db:"client_id"`
	ItemID        int64           `db:"item_id"`
	UserID        int64           `db:"user_id"`
	Kind          string          `db:"kind"`
	Relevance     *int16          `db:"relevance"`
	Evidence      *string         `db:"evidence"`
	Attributions  json.RawMessage `db:"attributions"`
	Payload       json.RawMessage `db:"payload"`
	Contradiction bool            `db:"contradiction"`
	Comment       string          `db:"comment"`
	SkipReason    string          `db:"skip_reason"`
	TimeSpentMs   int             `db:"time_spent_ms"`
	Supersedes    *int64          `db:"supersedes"`
	CreatedAt     time.Time       `db:"created_at"`
}

// currentJudgmentsOfItems is current_judgments (migration 0071: each
// rater's latest judgment of an item, unless it is a skip) for the items
// in $1 only, read from judgments alone: an item's project and kind, by
// which the view also partitions, follow from the item, so the view's
// join with items (an index probe per judgment) and its sort are not
// needed. Its rows have the judgments table's columns.
const currentJudgmentsOfItems = `(SELECT * FROM (SELECT DISTINCT ON (item_id, user_id) * FROM judgments
	WHERE item_id = ANY ($1::bigint[]) ORDER BY item_id, user_id, id DESC) l WHERE l.skip_reason = '')`

// currentJudgmentsOfItem is currentJudgmentsOfItems for the one item $1.
const currentJudgmentsOfItem = `(SELECT * FROM (SELECT DISTINCT ON (user_id) * FROM judgments
	WHERE item_id = $1 ORDER BY user_id, id DESC) l WHERE l.skip_reason = '')`

const judgmentCols = `id, client_id::text AS client_id, item_id, user_id, kind, relevance, evidence, attributions, payload,
	contradiction, comment, skip_reason, time_spent_ms, supersedes, created_at`

// NewJudgment is the input of SaveJudgment. Attributions and Payload are
// JSON (nil = [] and {}). FollowUp, when set, is an item created in the same
// transaction (the validation task of a new paraphrase).
type NewJudgment struct {
	ClientID      string
	ItemID        int64
	UserID        int64
	ProjectID     int64
	Kind          string
	Relevance     *int16
	Evidence      *string
	Attributions  json.RawMessage
	Payload       json.RawMessage
	Contradiction bool
	Comment       string
	SkipReason    string
	TimeSpentMs   int
	FollowUp      *NewItem
}

// saveJudgment is the whole judgment write as one statement (one implicit
// transaction, one round trip): the new row supersedes the rater's previous
// judgment of the item, their assignment is completed (or skipped), and
// the time spent goes to the day's activity. The item row is not written
// (its taken count, migration 0095, changes only when the assignment
// leaves or joins leased/done: a skip), so the raters of one item do not
// queue for its row lock through each other's commits. A client
// id seen before inserts nothing and changes nothing; the statement then
// returns no row.
const saveJudgment = `WITH ins AS (
		INSERT INTO judgments (client_id, item_id, user_id, kind, relevance, evidence, attributions,
			payload, contradiction, comment, skip_reason, time_spent_ms, supersedes)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
			(SELECT id FROM judgments WHERE item_id = $2 AND user_id = $3 ORDER BY id DESC LIMIT 1))
		ON CONFLICT (client_id) DO NOTHING
		RETURNING ` + judgmentCols + `
	), prev AS (
		SELECT id, status FROM assignments
		WHERE item_id = $2 AND user_id = $3 AND EXISTS (SELECT 1 FROM ins)
		FOR UPDATE
	), completed AS (
		UPDATE assignments a SET status = $13, done_at = now() FROM prev WHERE a.id = prev.id
		RETURNING a.id
	), active AS (
		INSERT INTO activity (user_id, project_id, day, active_ms)
		SELECT $3, $14, current_date, $12 WHERE EXISTS (SELECT 1 FROM ins)
		ON CONFLICT (user_id, project_id, day) DO UPDATE SET active_ms = activity.active_ms + EXCLUDED.active_ms
		RETURNING 1
	)
	SELECT * FROM ins`

// SaveJudgment stores a judgment idempotently: a client id seen before
// returns the stored row with inserted = false and changes nothing, if the
// judgment is the same (everything the rater chose or typed; the time spent
// and the derived contradiction flag are not compared). A different
// judgment under a stored client id is an *apperr.Refused wrapping
// ErrConflict (field client_id): the first one stays, and the caller learns
// that the second was not stored rather than getting a silent "duplicate". A new
// row supersedes the rater's previous judgment of the item, completes (or
// skips) their assignment and adds its time to the day's activity,
// atomically; a follow-up item is created in the same transaction.
func (s *Store) SaveJudgment(ctx context.Context, n NewJudgment) (j Judgment, inserted bool, err error) {
	attrs, payload, status := n.normalised()
	save := func(q querier) error {
		rows, _ := q.Query(ctx, saveJudgment,
			n.ClientID, n.ItemID, n.UserID, n.Kind, n.Relevance, n.Evidence, attrs, payload,
			n.Contradiction, n.Comment, n.SkipReason, n.TimeSpentMs, status, n.ProjectID)
		got, err := pgx.CollectRows(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: save judgment: %w", err)
		}
		if len(got) == 1 {
			j, inserted = got[0], true
			return nil
		}
		// A retry: hand back what was stored the first time.
		rows, _ = q.Query(ctx, `SELECT `+judgmentCols+` FROM judgments WHERE client_id = $1`, n.ClientID)
		j, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Judgment])
		if err != nil {
			return fmt.Errorf("store: judgment %s: %w", n.ClientID, err)
		}
		return sameAsStored(j, n)
	}
	// A deadlock victim or serialization failure was rolled back whole:
	// saved again (retryAborted).
	err = retryAborted(ctx, func() error {
		j, inserted = Judgment{}, false
		if n.FollowUp == nil {
			return save(s.pool)
		}
		return s.InTx(ctx, func(tx pgx.Tx) error {
			if err := save(tx); err != nil || !inserted {
				return err
			}
			_, err := createItem(ctx, tx, *n.FollowUp)
			return err
		})
	})
	return j, inserted, err
}

// normalised returns n's attributions and payload with their defaults ([]
// and {}) and the status its assignment takes (skipped with a skip reason,
// done without).
func (n NewJudgment) normalised() (attrs, payload json.RawMessage, status string) {
	attrs, payload, status = n.Attributions, n.Payload, AssignDone
	if attrs == nil {
		attrs = json.RawMessage(`[]`)
	}
	if payload == nil {
		payload = json.RawMessage(`{}`)
	}
	if n.SkipReason != "" {
		status = AssignSkipped
	}
	return attrs, payload, status
}

// sameAsStored checks a judgment sent again under a stored client id
// against the stored row j: nil when it is the same judgment (a retry),
// ErrConflict when the id belongs to another rater's or item's judgment,
// and an *apperr.Refused wrapping ErrConflict (field client_id) naming the
// first part that differs otherwise.
func sameAsStored(j Judgment, n NewJudgment) error {
	attrs, payload, _ := n.normalised()
	if j.UserID != n.UserID || j.ItemID != n.ItemID {
		return fmt.Errorf("store: client id %s belongs to another judgment: %w", n.ClientID, ErrConflict)
	}
	if field := differingField(j, n, attrs, payload); field != "" {
		return apperr.Refusedf(ErrConflict, "client_id",
			"judgment %s of item %d was stored before with a different %s; a changed judgment needs a new client id (nothing was stored)",
			n.ClientID, n.ItemID, field)
	}
	return nil
}

// differingField names the first part of n that differs from the stored j
// ("" when they are the same judgment). JSON is compared by value, since
// jsonb does not keep the bytes it was given.
func differingField(j Judgment, n NewJudgment, attrs, payload json.RawMessage) string {
	switch {
	case j.Kind != n.Kind:
		return "kind"
	case j.SkipReason != n.SkipReason:
		return "skip_reason"
	case !sameInt16(j.Relevance, n.Relevance):
		return "relevance"
	case !sameString(j.Evidence, n.Evidence):
		return "evidence"
	case !sameJSON(j.Attributions, attrs):
		return "attributions"
	case !sameJSON(j.Payload, payload):
		return "payload (paraphrase or validation)"
	case j.Comment != n.Comment:
		return "comment"
	}
	return ""
}

func sameInt16(a, b *int16) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameString(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(va, vb)
}

// JudgmentsByItem returns every judgment of an item, oldest first.
func (s *Store) JudgmentsByItem(ctx context.Context, itemID int64) ([]Judgment, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+judgmentCols+` FROM judgments WHERE item_id = $1 ORDER BY id`, itemID)
	return collectAll[Judgment](rows, fmt.Sprintf("judgments of item %d", itemID))
}

// CurrentJudgments returns each rater's latest, non-skipped judgment of an
// item (the ones that count: the current_judgments view), oldest first.
func (s *Store) CurrentJudgments(ctx context.Context, itemID int64) ([]Judgment, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+judgmentCols+` FROM current_judgments WHERE item_id = $1 ORDER BY id`, itemID)
	return collectAll[Judgment](rows, fmt.Sprintf("current judgments of item %d", itemID))
}

// CountJudgmentsByClient counts rows with a client id (tests use it to prove
// a retried judgment was stored exactly once).
func (s *Store) CountJudgmentsByClient(ctx context.Context, clientID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM judgments WHERE client_id = $1`, clientID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count judgments: %w", err)
	}
	return n, nil
}

// ValidationVerdict is the majority vote over a paraphrase's validations.
type ValidationVerdict struct {
	ItemID      int64     `db:"item_id"`
	Fluent      string    `db:"fluent"`
	Meaning     string    `db:"meaning"`
	Naturalness string    `db:"naturalness"`
	Votes       int       `db:"votes"`
	Accepted    bool      `db:"accepted"`
	DecidedAt   time.Time `db:"decided_at"`
}

// SaveValidationVerdict writes (or refreshes) an item's verdict.
func (s *Store) SaveValidationVerdict(ctx context.Context, v ValidationVerdict) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO validation_verdicts (item_id, fluent, meaning, naturalness, votes, accepted)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (item_id) DO UPDATE SET fluent = EXCLUDED.fluent, meaning = EXCLUDED.meaning,
			naturalness = EXCLUDED.naturalness, votes = EXCLUDED.votes, accepted = EXCLUDED.accepted, decided_at = now()`,
		v.ItemID, v.Fluent, v.Meaning, v.Naturalness, v.Votes, v.Accepted)
	if err != nil {
		return fmt.Errorf("store: save verdict: %w", err)
	}
	return nil
}

// ValidationVerdictFor returns an item's verdict, or ErrNotFound.
func (s *Store) ValidationVerdictFor(ctx context.Context, itemID int64) (ValidationVerdict, error) {
	rows, _ := s.pool.Query(ctx, `SELECT item_id, fluent, meaning, naturalness, votes, accepted, decided_at
		FROM validation_verdicts WHERE item_id = $1`, itemID)
	return collectOne[ValidationVerdict](rows, fmt.Sprintf("verdict of item %d", itemID))
}
