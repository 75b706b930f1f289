package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

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
// progress (with their held total when p.HoldIdle is set). Concurrent
// raters never take the same slot: the lease_items function (migrations
// 0050, 0095, 0099, 0100) locks candidate items with SKIP LOCKED. The leases
// come back joined with their items, queries and documents in one
// statement. All of it is one pipelined batch: one round trip, one
// implicit transaction, so the reads see the leases just taken and row
// locks are held only that long. A deadlock victim is fetched again
// (retryAborted).
func (s *Store) LeaseTasks(ctx context.Context, p LeaseParams) (as []Assignment, tds []TaskData, pr RaterProgress, err error) {
	err = retryAborted(ctx, func() error {
		as, tds, pr, err = s.leaseTasksOnce(ctx, p)
		return err
	})
	return as, tds, pr, err
}

// leaseTasksOnce is one attempt of LeaseTasks: one pipelined batch.
func (s *Store) leaseTasksOnce(ctx context.Context, p LeaseParams) ([]Assignment, []TaskData, RaterProgress, error) {
	var pr RaterProgress
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
				RETURNING a.*
			), a AS (SELECT * FROM renewed ORDER BY leased_at, id LIMIT $5)
			SELECT `+taskJoinCols+` FROM a `+taskJoin+` ORDER BY a.leased_at, a.id`,
			p.UserID, p.ProjectID, p.Kind, p.Lease.Seconds(), p.N)
	} else {
		args := []any{p.ProjectID, p.UserID, p.Kind, p.Raters, p.N, p.GoldRate, p.Lease.Seconds()}
		if p.TotalCap > 0 {
			args = append(args, p.TotalCap)
		}
		b.Queue(`SELECT `+taskJoinCols+` FROM lease_items($1, $2, $3, `+n+`, $4, $6, $7) a `+taskJoin+`
			ORDER BY a.leased_at, a.id`, args...)
	}
	// The progress count has one sensible plan (progressSQL); without
	// this, Postgres planned it afresh on nearly every fetch. Local: for
	// the rest of this batch's transaction only. The reads after it are
	// key look-ups of the rater's rows (progress, time, held total), and
	// a generic plan is kept for the connection's life: without
	// enable_seqscan off, one made while those tables were nearly empty (a
	// new database, before its first autoanalyze) scanned every rater's
	// rows on every fetch.
	b.Queue(`SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true)`)
	b.Queue(progressSQL, p.UserID, p.ProjectID, p.Kind)
	if p.HoldIdle > 0 {
		b.Queue(heldTotalSQL, p.ProjectID, p.UserID, p.Kind, p.HoldIdle)
	}
	br := s.pool.SendBatch(ctx, b)
	var as []Assignment
	var tds []TaskData
	var err error
	for i := 0; i < prelude && err == nil; i++ {
		_, err = br.Exec()
	}
	if err == nil {
		as, tds, err = scanTasks(br.Query())
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
	return as, tds, pr, nil
}

// taskJoin joins the assignments a (a lease_items call or a CTE) with their
// items, queries and documents; taskJoinCols are the columns scanTasks
// reads.
const taskJoin = `JOIN items i ON i.id = a.item_id JOIN queries q ON q.id = i.query_id
	LEFT JOIN documents d ON d.id = i.document_id`

var taskJoinCols = prefixCols("a.", assignmentCols) + ", " + prefixCols("i.", itemCols) + ", " +
	prefixCols("q.", queryCols) + ", " + prefixCols("d.", documentCols)

// scanTasks reads the rows of a taskJoin statement.
func scanTasks(rows pgx.Rows, err error) ([]Assignment, []TaskData, error) {
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var as []Assignment
	var tds []TaskData
	for rows.Next() {
		var a Assignment
		var td TaskData
		var d Document
		targets := append(assignmentFields.targets(&a), itemFields.targets(&td.Item)...)
		targets = append(targets, queryFields.targets(&td.Query)...)
		dt, present := documentFields.nullableTargets(&d)
		if err := rows.Scan(append(targets, dt...)...); err != nil {
			return nil, nil, err
		}
		if present() {
			td.Document = &d
		} else if td.Item.DocumentID != nil {
			return nil, nil, fmt.Errorf("store: document %d of item %d: %w", *td.Item.DocumentID, td.Item.ID, ErrNotFound)
		}
		as = append(as, a)
		tds = append(tds, td)
	}
	return as, tds, rows.Err()
}

var assignedTaskSQL = `SELECT ` + prefixCols("i.", itemCols) + `, ` + prefixCols("q.", queryCols) + `, ` +
	prefixCols("d.", documentCols) + `, ` + prefixCols("a.", assignmentCols) + `,
	EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = i.project_id AND pm.user_id = $2)
	FROM items i JOIN queries q ON q.id = i.query_id
	LEFT JOIN documents d ON d.id = i.document_id
	LEFT JOIN assignments a ON a.item_id = i.id AND a.user_id = $2
	WHERE i.id = $1`

// AssignedTask loads an item with its query and document, the user's
// assignment of it (nil when the item was never assigned to them) and
// whether they are a member of its project, in one statement. A missing
// item is ErrNotFound.
func (s *Store) AssignedTask(ctx context.Context, itemID, userID int64) (TaskData, *Assignment, error) {
	var td TaskData
	var a Assignment
	targets := append(itemFields.targets(&td.Item), queryFields.targets(&td.Query)...)
	var d Document
	dt, docPresent := documentFields.nullableTargets(&d)
	at, assigned := assignmentFields.nullableTargets(&a)
	targets = append(append(append(targets, dt...), at...), &td.Member)
	err := s.pool.QueryRow(ctx, assignedTaskSQL, itemID, userID).Scan(targets...)
	if errors.Is(err, pgx.ErrNoRows) {
		return TaskData{}, nil, fmt.Errorf("store: item %d: %w", itemID, ErrNotFound)
	}
	if err != nil {
		return TaskData{}, nil, fmt.Errorf("store: item %d: %w", itemID, err)
	}
	if docPresent() {
		td.Document = &d
	} else if td.Item.DocumentID != nil {
		return TaskData{}, nil, fmt.Errorf("store: document %d of item %d: %w", *td.Item.DocumentID, itemID, ErrNotFound)
	}
	if !assigned() {
		return td, nil, nil
	}
	return td, &a, nil
}

// prefixCols qualifies each column of a column list (plain names, as the
// *Cols constants) with a table alias: "a.", "id, status" → "a.id, a.status".
func prefixCols(alias, cols string) string {
	names := strings.Split(cols, ",")
	for i, c := range names {
		names[i] = alias + strings.TrimSpace(c)
	}
	return strings.Join(names, ", ")
}

// colFields maps a column list (plain names, as the *Cols constants) to
// the fields of a struct with those db tags, worked out once per list: the
// scan targets of a joined row, whose column names repeat across tables.
type colFields struct {
	index []int          // field index of each column, in the order of the list
	ptrs  []reflect.Type // pointer to each field's type (nullableTargets)
}

// Per table, for the joined task rows (scanTasks, AssignedTask).
var (
	assignmentFields = newColFields(reflect.TypeFor[Assignment](), assignmentCols)
	itemFields       = newColFields(reflect.TypeFor[Item](), itemCols)
	queryFields      = newColFields(reflect.TypeFor[Query](), queryCols)
	documentFields   = newColFields(reflect.TypeFor[Document](), documentCols)
)

// newColFields panics on a column without a field: the lists are constants
// next to their structs, and this runs at start-up.
func newColFields(t reflect.Type, cols string) colFields {
	var cf colFields
	for _, c := range strings.Split(cols, ",") {
		c = strings.TrimSpace(c)
		i := -1
		for j := 0; j < t.NumField(); j++ {
			if name, _, _ := strings.Cut(t.Field(j).Tag.Get("db"), ","); name == c {
				i = j
				break
			}
		}
		if i < 0 {
			panic(fmt.Sprintf("store: %s has no field for column %q", t, c))
		}
		cf.index = append(cf.index, i)
		cf.ptrs = append(cf.ptrs, reflect.PointerTo(t.Field(i).Type))
	}
	return cf
}

// targets returns pointers to the fields of the struct dst points to, in
// the order of the columns.
func (cf colFields) targets(dst any) []any {
	v := reflect.ValueOf(dst).Elem()
	out := make([]any, len(cf.index))
	for k, i := range cf.index {
		out[k] = v.Field(i).Addr().Interface()
	}
	return out
}

// nullableTargets is targets for the columns of a LEFT JOINed table, which
// are all NULL when it has no row: the targets are pointers to pointers,
// copied into dst by present, which reports whether the row was there (its
// first column, the key, is not NULL).
func (cf colFields) nullableTargets(dst any) (targets []any, present func() bool) {
	v := reflect.ValueOf(dst).Elem()
	ptrs := make([]reflect.Value, len(cf.index))
	targets = make([]any, len(cf.index))
	for k, pt := range cf.ptrs {
		ptrs[k] = reflect.New(pt)
		targets[k] = ptrs[k].Interface()
	}
	return targets, func() bool {
		if ptrs[0].Elem().IsNil() {
			return false
		}
		for k, p := range ptrs {
			if !p.Elem().IsNil() {
				v.Field(cf.index[k]).Set(p.Elem().Elem())
			}
		}
		return true
	}
}
