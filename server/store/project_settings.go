package store

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
)

// SetRatersPerItem changes how many raters judge each item of a project
// (1..20, the column's check) and records the change in the audit log.
func (s *Store) SetRatersPerItem(ctx context.Context, projectID, userID int64, n int) error {
	return s.InTx(ctx, func(tx pgx.Tx) error { return setRatersPerItem(ctx, tx, projectID, userID, n) })
}

// setRatersPerItem is SetRatersPerItem in the caller's transaction.
func setRatersPerItem(ctx context.Context, tx pgx.Tx, projectID, userID int64, n int) error {
	var old int
	err := tx.QueryRow(ctx, `SELECT raters_per_item FROM projects WHERE id = $1 FOR NO KEY UPDATE`, projectID).Scan(&old)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: project %d: %w", projectID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: raters per item: %w", err)
	}
	if old == n {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE projects SET raters_per_item = $2 WHERE id = $1`, projectID, n); err != nil {
		return fmt.Errorf("store: raters per item: %w", err)
	}
	return audit(ctx, tx, userID, projectID, "project.raters_per_item", "project", fmt.Sprint(projectID), map[string]any{"from": old, "to": n})
}

// QualitySettings are a project's gold-item settings: the share of gold
// items mixed into each rater's queue (and created when publishing), and
// the gold accuracy check (migration 0061).
type QualitySettings struct {
	GoldRate        float64 `json:"gold_rate"`
	GoldMinAccuracy float64 `json:"gold_min_accuracy"`
	GoldMinJudged   int     `json:"gold_min_judged"`
	GoldPause       bool    `json:"gold_pause"`
	// ConsensusMethod is the consensus of exports that name none
	// (migration 0097): majority or dawid-skene.
	ConsensusMethod string `json:"consensus_method"`
}

// QualityOf reads a project's quality settings.
func QualityOf(p Project) QualitySettings {
	return QualitySettings{GoldRate: realValue(p.GoldRate), GoldMinAccuracy: realValue(p.GoldMinAccuracy), GoldMinJudged: p.GoldMinJudged, GoldPause: p.GoldPause,
		ConsensusMethod: p.ConsensusMethod}
}

// realValue widens a real column's value to the decimal it was set to
// (0.1 rather than 0.10000000149).
func realValue(x float32) float64 { return math.Round(float64(x)*1e6) / 1e6 }

// SetQualitySettings changes a project's quality settings (the columns'
// checks bound them) and records the change in the audit log.
func (s *Store) SetQualitySettings(ctx context.Context, projectID, userID int64, q QualitySettings) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var old QualitySettings
		err := tx.QueryRow(ctx, `SELECT gold_rate::float8, gold_min_accuracy::float8, gold_min_judged, gold_pause, consensus_method
			FROM projects WHERE id = $1 FOR UPDATE`, projectID).Scan(&old.GoldRate, &old.GoldMinAccuracy, &old.GoldMinJudged, &old.GoldPause, &old.ConsensusMethod)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store: project %d: %w", projectID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: quality settings: %w", err)
		}
		if q.ConsensusMethod == "" {
			q.ConsensusMethod = old.ConsensusMethod
		}
		if _, err := tx.Exec(ctx, `UPDATE projects SET gold_rate = $2::float8, gold_min_accuracy = $3::float8, gold_min_judged = $4, gold_pause = $5,
			consensus_method = $6 WHERE id = $1`, projectID, q.GoldRate, q.GoldMinAccuracy, q.GoldMinJudged, q.GoldPause, q.ConsensusMethod); err != nil {
			return fmt.Errorf("store: quality settings: %w", err)
		}
		return audit(ctx, tx, userID, projectID, "project.quality", "project", fmt.Sprint(projectID), map[string]any{"from": old, "to": q})
	})
}

// GoldRecord is an annotator's record on a project's relevance gold items:
// the gold items whose current judgment (latest, not a skip) they gave,
// and how many of those agree with the gold answer after binarising
// (label >= 2 on both sides or on neither).
type GoldRecord struct {
	Judged  int
	Correct int
}

// goldGrade reads a gold answer: a bare grade (2) or {"relevance": 2}.
const goldGrade = `CASE WHEN jsonb_typeof(i.gold_answer) = 'number' THEN (i.gold_answer #>> '{}')::numeric::int
	ELSE (i.gold_answer ->> 'relevance')::numeric::int END`

// GoldRecordOf returns one annotator's gold record in a project.
func (s *Store) GoldRecordOf(ctx context.Context, projectID, userID int64) (GoldRecord, error) {
	var g GoldRecord
	// Constraint gold items (issue 13) count too: right when the answer
	// (yes / no / unsure) is the gold one.
	err := s.pool.QueryRow(ctx, `WITH rel AS (
			SELECT count(*) AS judged, count(*) FILTER (WHERE (relevance >= 2) = (gold >= 2)) AS correct FROM (
				SELECT c.relevance, `+goldGrade+` AS gold
				FROM current_judgments c JOIN items i ON i.id = c.item_id
				WHERE c.user_id = $2 AND c.project_id = $1 AND c.item_kind = 'relevance' AND i.is_gold
			) gold WHERE relevance IS NOT NULL AND gold BETWEEN 0 AND 3
		), con AS (
			SELECT count(*) AS judged, count(*) FILTER (WHERE c.payload->>'satisfied' = i.gold_answer->>'satisfied') AS correct
			FROM current_judgments c JOIN items i ON i.id = c.item_id
			WHERE c.user_id = $2 AND c.project_id = $1 AND c.item_kind = 'constraint' AND i.is_gold
			AND i.gold_answer->>'satisfied' IS NOT NULL
		)
		SELECT rel.judged + con.judged, rel.correct + con.correct FROM rel, con`, projectID, userID).Scan(&g.Judged, &g.Correct)
	if err != nil {
		return g, fmt.Errorf("store: gold record: %w", err)
	}
	return g, nil
}

// BelowGold reports whether a gold record fails the project's check:
// the check is on (GoldMinAccuracy > 0), enough gold items are judged,
// and the accuracy is below the threshold.
func BelowGold(q QualitySettings, g GoldRecord) bool {
	if q.GoldMinAccuracy <= 0 || g.Judged == 0 || g.Judged < q.GoldMinJudged {
		return false
	}
	return float64(g.Correct) < q.GoldMinAccuracy*float64(g.Judged)
}
