package store

import (
	"context"
	"encoding/json"
	"time"
)

// JudgmentRow is one raw judgment as exported (CSV of raw judgments).
type JudgmentRow struct {
	JudgmentID    int64
	ClientID      string
	Kind          string
	QueryExtID    string
	DocExtID      string // "" for paraphrase/validation tasks
	Username      string
	Relevance     *int16
	Evidence      *string
	Attributions  json.RawMessage
	Payload       json.RawMessage
	Contradiction bool
	Comment       string
	SkipReason    string
	TimeSpentMS   int
	Supersedes    *int64
	IsGold        bool
	CreatedAt     time.Time
}

// EachJudgment streams every judgment of a project in creation order.
func (s *Store) EachJudgment(ctx context.Context, projectID int64, fn func(JudgmentRow) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT j.id, j.client_id::text, j.kind, q.ext_id, coalesce(d.ext_id, ''), u.username,
			j.relevance, j.evidence, j.attributions, j.payload, j.contradiction, j.comment, j.skip_reason,
			j.time_spent_ms, j.supersedes, i.is_gold, j.created_at
		FROM judgments j
		JOIN items i ON i.id = j.item_id
		JOIN queries q ON q.id = i.query_id
		LEFT JOIN documents d ON d.id = i.document_id
		JOIN users u ON u.id = j.user_id
		WHERE i.project_id = $1
		ORDER BY j.id`, projectID)
	var r JudgmentRow
	return forEach(rows, "judgments", func() error { return fn(r) },
		&r.JudgmentID, &r.ClientID, &r.Kind, &r.QueryExtID, &r.DocExtID, &r.Username,
		&r.Relevance, &r.Evidence, &r.Attributions, &r.Payload, &r.Contradiction, &r.Comment, &r.SkipReason,
		&r.TimeSpentMS, &r.Supersedes, &r.IsGold, &r.CreatedAt)
}
