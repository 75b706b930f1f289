package store

import (
	"context"
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
	// Member is whether the user AssignedTask was asked for is a member of
	// the item's project now (whether they may open it: MayEnterProject).
	Member bool
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
	pm, err := collectOne[projectMember](rows, fmt.Sprintf("project %q", name))
	if err != nil {
		return Project{}, false, err
	}
	return pm.Project, pm.IsMember, nil
}

// LeaseTasks returns the rater's live leases of the kind (renewed), leasing
// new items until there are p.N of them or nothing is left, with the
// leased items' queries and documents (in lease order) and the rater's
// progress (with their held total when p.HoldIdle is set). Concurrent raters never take the same slot: the lease_items
// function (migration 0050) locks candidate items with SKIP LOCKED. All of
// it is one pipelined batch: one round trip, one implicit transaction, so
// the reads see the leases just taken and row locks are held only that
// long.
func (s *Store) LeaseTasks(ctx context.Context, p LeaseParams) ([]Assignment, []TaskData, RaterProgress, error) {
	var pr RaterProgress
	leased := `SELECT a.item_id FROM assignments a JOIN items i ON i.id = a.item_id
		WHERE a.user_id = $1 AND i.project_id = $2 AND i.kind = $3 AND a.status = 'leased'`
	b := &pgx.Batch{}
	// n is the number of live leases of the kind wanted: p.N, lowered
	// under a cap across kinds by the rater's live leases of other kinds
	// (counted after the lock, so two requests of one rater cannot both
	// take the same room).
	n := `$5::int`
	prelude := 0 // statements before the lease whose results are skipped
	if p.TotalCap > 0 {
		b.Queue(`SELECT pg_advisory_xact_lock($1, `+lockKey+`)`, leaseCapLock, p.UserID)
		prelude++
		if !p.NoNew {
			// Asking for this kind gives back the leases of the others
			// (a late judgment of one is still accepted, as for any
			// expired lease): the participant works on one kind at a
			// time, and the page they left does not hold the cap.
			b.Queue(`UPDATE assignments a SET status = 'expired', lease_expires_at = least(a.lease_expires_at, now())
				FROM items i WHERE i.id = a.item_id AND a.user_id = $1 AND i.project_id = $2 AND i.kind <> $3 AND a.status = 'leased'`,
				p.UserID, p.ProjectID, p.Kind)
			prelude++
		}
		n = `greatest(0, least($5::int, $8::int - (SELECT count(*)::int FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE a.user_id = $2 AND i.project_id = $1 AND i.kind <> $3 AND a.status = 'leased' AND a.lease_expires_at > now())))`
	}
	if p.NoNew {
		b.Queue(`WITH renewed AS (
				UPDATE assignments a SET lease_expires_at = now() + make_interval(secs => $4)
				FROM items i
				WHERE i.id = a.item_id AND a.user_id = $1 AND i.project_id = $2 AND i.kind = $3
				  AND a.status = 'leased' AND a.lease_expires_at > now()
				RETURNING a.*)
			SELECT `+assignmentCols+` FROM renewed ORDER BY leased_at, id LIMIT $5`,
			p.UserID, p.ProjectID, p.Kind, p.Lease.Seconds(), p.N)
	} else {
		args := []any{p.ProjectID, p.UserID, p.Kind, p.Raters, p.N, p.GoldRate, p.Lease.Seconds()}
		if p.TotalCap > 0 {
			args = append(args, p.TotalCap)
		}
		b.Queue(`SELECT `+assignmentCols+` FROM lease_items($1, $2, $3, `+n+`, $4, $6, $7)`, args...)
	}
	b.Queue(`SELECT `+itemCols+` FROM items WHERE id IN (`+leased+`)`, p.UserID, p.ProjectID, p.Kind)
	b.Queue(`SELECT `+queryCols+` FROM queries WHERE id IN (SELECT query_id FROM items WHERE id IN (`+leased+`))`, p.UserID, p.ProjectID, p.Kind)
	b.Queue(`SELECT `+documentCols+` FROM documents WHERE id IN (SELECT document_id FROM items WHERE id IN (`+leased+`))`, p.UserID, p.ProjectID, p.Kind)
	// The progress count has one sensible plan (progressSQL); without
	// this, Postgres planned it afresh on nearly every fetch. Local: for
	// the rest of this batch's transaction only.
	b.Queue(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true)`)
	b.Queue(progressSQL, p.UserID, p.ProjectID, p.Kind)
	if p.HoldIdle > 0 {
		b.Queue(heldTotalSQL, p.ProjectID, p.UserID, p.Kind, p.HoldIdle)
	}
	br := s.pool.SendBatch(ctx, b)
	var as []Assignment
	var err error
	for i := 0; i < prelude && err == nil; i++ {
		_, err = br.Exec()
	}
	if err == nil {
		rows, _ := br.Query()
		as, err = pgx.CollectRows(rows, pgx.RowToStructByName[Assignment])
	}
	var its []Item
	var qs []Query
	var ds []Document
	if err == nil {
		its, qs, ds, err = readTaskBatch(br)
	}
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&pr.Done, &pr.Skipped, &pr.Leased, &pr.ActiveMs)
	}
	if err == nil && p.HoldIdle > 0 {
		pr.Total, pr.TotalHeld, err = scanHeldTotal(br.QueryRow())
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, pr, fmt.Errorf("store: lease: %w", err)
	}
	byID := make(map[int64]Item, len(its))
	for _, it := range its {
		byID[it.ID] = it
	}
	tds := make([]TaskData, 0, len(as))
	for _, a := range as {
		it, ok := byID[a.ItemID]
		if !ok {
			return nil, nil, pr, fmt.Errorf("store: leased item %d not found: %w", a.ItemID, ErrNotFound)
		}
		td, err := joinTask(it, qs, ds)
		if err != nil {
			return nil, nil, pr, err
		}
		tds = append(tds, td)
	}
	return as, tds, pr, nil
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
	b.Queue(`SELECT EXISTS (SELECT 1 FROM project_members pm JOIN items i ON i.project_id = pm.project_id
			WHERE i.id = $1 AND pm.user_id = $2)`, itemID, userID)
	br := s.pool.SendBatch(ctx, b)
	its, qs, ds, err := readTaskBatch(br)
	var as []Assignment
	var member bool
	if err == nil {
		rows, _ := br.Query()
		as, err = pgx.CollectRows(rows, pgx.RowToStructByName[Assignment])
	}
	if err == nil {
		err = br.QueryRow().Scan(&member)
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
	td.Member = member
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
