package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Atom is one atomic constraint of a query with its byte span in the
// query's marked text (OriginalQuery without the <mark> tags).
type Atom struct {
	Text  string `json:"text"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

// Query is one query of a project. Expression is a boolexpr.Expr in JSON
// (nil when no structure is known yet).
type Query struct {
	ID            int64           `db:"id"`
	ProjectID     int64           `db:"project_id"`
	ExtID         string          `db:"ext_id"`
	Text          string          `db:"text"`
	OriginalQuery string          `db:"original_query"`
	Template      string          `db:"template"`
	Domain        string          `db:"domain"`
	Split         string          `db:"split"`
	Atoms         []Atom          `db:"atoms"`
	Expression    json.RawMessage `db:"expression"`
	AnswerDocs    []string        `db:"answer_docs"`
	ScoresRaw     *string         `db:"scores_raw"`
	Metadata      json.RawMessage `db:"metadata"`
	Extra         json.RawMessage `db:"extra"`
	Seq           int             `db:"seq"`
	UpdatedAt     time.Time       `db:"updated_at"`
}

const queryCols = `id, project_id, ext_id, text, original_query, template, domain, split, atoms, expression, answer_docs, scores_raw, metadata, extra, seq, updated_at`

// ListQueries returns a project's queries in import order, optionally only
// one split ("" = all).
func (s *Store) ListQueries(ctx context.Context, projectID int64, split string) ([]Query, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+queryCols+` FROM queries
		WHERE project_id = $1 AND ($2 = '' OR split = $2) ORDER BY seq, id`, projectID, split)
	return collectAll[Query](rows, "list queries")
}

// QueryByID fetches one query.
func (s *Store) QueryByID(ctx context.Context, id int64) (Query, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+queryCols+` FROM queries WHERE id = $1`, id)
	return collectOne[Query](rows, fmt.Sprintf("query %d", id))
}

// EachQuery streams a project's queries in import order.
func (s *Store) EachQuery(ctx context.Context, projectID int64, fn func(Query) error) error {
	rows, _ := s.pool.Query(ctx, `SELECT `+queryCols+` FROM queries WHERE project_id = $1 ORDER BY seq, id`, projectID)
	return forEachStruct(rows, "queries", fn)
}

// SetQueryExpression replaces a query's expression (a researcher's
// correction of the decomposer) and records it in the audit log.
func (s *Store) SetQueryExpression(ctx context.Context, userID int64, u ExpressionUpdate) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		return setQueryExpression(ctx, tx, userID, u, "")
	})
}

// ExpressionUpdate is one query's new decomposition.
type ExpressionUpdate struct {
	QueryID    int64
	Template   string
	Atoms      []Atom
	Expression json.RawMessage
	// Renumbered, when set, is recorded in the audit detail: a forced
	// change that renumbers the atoms of a judged query (old atom texts,
	// and for each old index its new one, -1 when dropped).
	Renumbered *Renumbering
}

// Renumbering records how a forced expression change moved atom indexes.
type Renumbering struct {
	OldAtoms  []string `json:"old_atoms"`
	NewIndex  []int    `json:"new_index"`
	Judgments int      `json:"judgments"`
}

// SetQueryExpressions stores many decompositions in one transaction, each
// audited as SetQueryExpression does, with source (e.g. "decomposer") in
// the audit detail. userID 0 = no user (the CLI, an importer).
func (s *Store) SetQueryExpressions(ctx context.Context, userID int64, source string, ups []ExpressionUpdate) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, u := range ups {
			if err := setQueryExpression(ctx, tx, userID, u, source); err != nil {
				return err
			}
		}
		return nil
	})
}

func setQueryExpression(ctx context.Context, tx pgx.Tx, userID int64, u ExpressionUpdate, source string) error {
	atoms := nonNil(u.Atoms)
	var projectID int64
	err := tx.QueryRow(ctx, `UPDATE queries SET template = $2, atoms = $3, expression = $4, updated_at = now()
		WHERE id = $1 RETURNING project_id`, u.QueryID, u.Template, atoms, u.Expression).Scan(&projectID)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("store: query %d: %w", u.QueryID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: set expression: %w", err)
	}
	detail := map[string]any{"template": u.Template, "expression": u.Expression}
	if source != "" {
		detail["source"] = source
	}
	if u.Renumbered != nil {
		detail["renumbered"] = u.Renumbered
	}
	return audit(ctx, tx, userID, projectID, "query.expression", "query", fmt.Sprint(u.QueryID), detail)
}

// AttributedJudgments counts the judgments of a query's items whose
// attributions number its atoms (every judgment, current or superseded:
// each keeps the numbers it was made with).
func (s *Store) AttributedJudgments(ctx context.Context, queryID int64) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id
		WHERE i.query_id = $1 AND jsonb_array_length(j.attributions) > 0`, queryID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count judgments of query %d: %w", queryID, err)
	}
	return n, nil
}
