package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Item is one unit of rater work: a relevance (query x document), paraphrase
// (stage 1) or validation (stage 2) task. Gold items carry their answer.
type Item struct {
	ID         int64           `db:"id"`
	ProjectID  int64           `db:"project_id"`
	Kind       string          `db:"kind"`
	QueryID    int64           `db:"query_id"`
	DocumentID *int64          `db:"document_id"`
	PoolID     *int64          `db:"pool_id"`
	Priority   int             `db:"priority"`
	Payload    json.RawMessage `db:"payload"`
	IsGold     bool            `db:"is_gold"`
	GoldAnswer json.RawMessage `db:"gold_answer"`
	CreatedAt  time.Time       `db:"created_at"`
}

const itemCols = `id, project_id, kind, query_id, document_id, pool_id, priority, payload, is_gold, gold_answer, created_at`

// NewItem is the input of CreateItem. Payload and GoldAnswer are JSON (nil =
// {} and NULL).
type NewItem struct {
	ProjectID  int64
	Kind       string
	QueryID    int64
	DocumentID *int64
	PoolID     *int64
	Priority   int
	Payload    json.RawMessage
	IsGold     bool
	GoldAnswer json.RawMessage
}

// CreateItem inserts an item. A second relevance item for the same query and
// document is ErrConflict.
func (s *Store) CreateItem(ctx context.Context, n NewItem) (Item, error) {
	return createItem(ctx, s.pool, n)
}

// querier is what both the pool and a transaction offer.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func createItem(ctx context.Context, q querier, n NewItem) (Item, error) {
	payload := objectOrEmpty(n.Payload)
	var gold any
	if n.GoldAnswer != nil {
		gold = n.GoldAnswer
	}
	rows, _ := q.Query(ctx, `INSERT INTO items (project_id, kind, query_id, document_id, pool_id, priority, payload, is_gold, gold_answer)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING `+itemCols,
		n.ProjectID, n.Kind, n.QueryID, n.DocumentID, n.PoolID, n.Priority, payload, n.IsGold, gold)
	it, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Item])
	if isUniqueViolation(err) {
		return Item{}, fmt.Errorf("store: item exists: %w", ErrConflict)
	}
	if err != nil {
		return Item{}, fmt.Errorf("store: create item: %w", err)
	}
	return it, nil
}

// ItemByID fetches one item.
func (s *Store) ItemByID(ctx context.Context, id int64) (Item, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+itemCols+` FROM items WHERE id = $1`, id)
	return collectOne[Item](rows, fmt.Sprintf("item %d", id))
}

// ItemCounts counts a project's items and judgments for the researcher view.
type ItemCounts struct {
	Items          int
	Judgments      int
	Contradictions int
	Annotators     int
}

// CountItems summarises judging progress in a project.
func (s *Store) CountItems(ctx context.Context, projectID int64) (ItemCounts, error) {
	var c ItemCounts
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM items WHERE project_id = $1),
		(SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1),
		(SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1 AND j.contradiction),
		(SELECT count(DISTINCT j.user_id) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1)`,
		projectID).Scan(&c.Items, &c.Judgments, &c.Contradictions, &c.Annotators)
	if err != nil {
		return c, fmt.Errorf("store: count items: %w", err)
	}
	return c, nil
}
