package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// The judging hot path (lease a task, show it, store the judgment) reads
// several tables per request. The reads below are pipelined: the statements
// of one call travel in one batch, so each costs one round trip however
// many tables it touches.

// TaskData is what a task view needs: the item, its query and, for
// relevance items, its document.
type TaskData struct {
	Item     Item
	Query    Query
	Document *Document
}

// ProjectForUser returns the project called name and whether the user is
// one of its members, in one statement.
func (s *Store) ProjectForUser(ctx context.Context, name string, userID int64) (Project, bool, error) {
	if !storable(name) {
		return Project{}, false, fmt.Errorf("store: project %q: %w", name, ErrNotFound)
	}
	type projectMember struct {
		Project
		IsMember bool `db:"is_member"`
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+projectCols+`,
		EXISTS (SELECT 1 FROM project_members m WHERE m.project_id = projects.id AND m.user_id = $2) AS is_member
		FROM projects WHERE name = $1`, name, userID)
	pm, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[projectMember])
	if errors.Is(err, pgx.ErrNoRows) {
		return Project{}, false, fmt.Errorf("store: project %q: %w", name, ErrNotFound)
	}
	if err != nil {
		return Project{}, false, fmt.Errorf("store: project %q: %w", name, err)
	}
	return pm.Project, pm.IsMember, nil
}

// TasksData loads items with their queries and documents, in the order of
// ids (ids that do not exist are left out).
func (s *Store) TasksData(ctx context.Context, ids []int64) ([]TaskData, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	b.Queue(`SELECT `+itemCols+` FROM items WHERE id = ANY($1)`, ids)
	b.Queue(`SELECT `+queryCols+` FROM queries WHERE id IN (SELECT query_id FROM items WHERE id = ANY($1))`, ids)
	b.Queue(`SELECT `+documentCols+` FROM documents WHERE id IN (SELECT document_id FROM items WHERE id = ANY($1))`, ids)
	br := s.pool.SendBatch(ctx, b)
	its, qs, ds, err := readTaskBatch(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("store: tasks: %w", err)
	}
	byID := make(map[int64]Item, len(its))
	for _, it := range its {
		byID[it.ID] = it
	}
	out := make([]TaskData, 0, len(ids))
	for _, id := range ids {
		it, ok := byID[id]
		if !ok {
			continue
		}
		td, err := joinTask(it, qs, ds)
		if err != nil {
			return nil, err
		}
		out = append(out, td)
	}
	return out, nil
}

// AssignedTask loads an item with its query and document and the user's
// assignment of it (nil when the item was never assigned to them), in one
// round trip. A missing item is ErrNotFound.
func (s *Store) AssignedTask(ctx context.Context, itemID, userID int64) (TaskData, *Assignment, error) {
	b := &pgx.Batch{}
	b.Queue(`SELECT `+itemCols+` FROM items WHERE id = $1`, itemID)
	b.Queue(`SELECT `+queryCols+` FROM queries WHERE id = (SELECT query_id FROM items WHERE id = $1)`, itemID)
	b.Queue(`SELECT `+documentCols+` FROM documents WHERE id = (SELECT document_id FROM items WHERE id = $1)`, itemID)
	b.Queue(`SELECT `+assignmentCols+` FROM assignments WHERE item_id = $1 AND user_id = $2`, itemID, userID)
	br := s.pool.SendBatch(ctx, b)
	its, qs, ds, err := readTaskBatch(br)
	var as []Assignment
	if err == nil {
		rows, _ := br.Query()
		as, err = pgx.CollectRows(rows, pgx.RowToStructByName[Assignment])
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return TaskData{}, nil, fmt.Errorf("store: item %d: %w", itemID, err)
	}
	if len(its) == 0 {
		return TaskData{}, nil, fmt.Errorf("store: item %d: %w", itemID, ErrNotFound)
	}
	td, err := joinTask(its[0], qs, ds)
	if err != nil {
		return TaskData{}, nil, err
	}
	if len(as) == 0 {
		return td, nil, nil
	}
	return td, &as[0], nil
}

// readTaskBatch reads the items, queries and documents results at the head
// of a batch; the caller reads the rest and closes it.
func readTaskBatch(br pgx.BatchResults) ([]Item, []Query, []Document, error) {
	rows, _ := br.Query()
	its, err := pgx.CollectRows(rows, pgx.RowToStructByName[Item])
	if err != nil {
		return nil, nil, nil, err
	}
	rows, _ = br.Query()
	qs, err := pgx.CollectRows(rows, pgx.RowToStructByName[Query])
	if err != nil {
		return nil, nil, nil, err
	}
	rows, _ = br.Query()
	ds, err := pgx.CollectRows(rows, pgx.RowToStructByName[Document])
	if err != nil {
		return nil, nil, nil, err
	}
	return its, qs, ds, nil
}

func joinTask(it Item, qs []Query, ds []Document) (TaskData, error) {
	td := TaskData{Item: it}
	found := false
	for _, q := range qs {
		if q.ID == it.QueryID {
			td.Query, found = q, true
			break
		}
	}
	if !found {
		return td, fmt.Errorf("store: query %d of item %d: %w", it.QueryID, it.ID, ErrNotFound)
	}
	if it.DocumentID == nil {
		return td, nil
	}
	for i := range ds {
		if ds[i].ID == *it.DocumentID {
			d := ds[i]
			td.Document = &d
			return td, nil
		}
	}
	return td, fmt.Errorf("store: document %d of item %d: %w", *it.DocumentID, it.ID, ErrNotFound)
}
