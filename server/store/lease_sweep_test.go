package store_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestExpirySweepCheckReadsNoWholeTable: lease_items' question "has any
// lease run out?" stays one step into the expiry index when assignments
// has no statistics (a new database; before its first autoanalyze) and
// plpgsql has cached its plan. Before 0104 it was an EXISTS that such a
// plan answered with a sequential scan of every assignment on every
// fetch, for the connection's life. Measured as the buffers a whole lease
// call reads (EXPLAIN ANALYZE of the call counts its statements'):
// 40,000 given-back assignments are about 300 pages.
func TestExpirySweepCheckReadsNoWholeTable(t *testing.T) {
	st, url := storetest.NewWithURL(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	// No autoanalyze during the test: the table keeps no statistics.
	if _, err := st.Pool().Exec(ctx, `ALTER TABLE assignments SET (autovacuum_enabled = off)`); err != nil {
		t.Fatal(err)
	}
	// 40,000 expired assignments (neither trigger fires for them) of
	// 40,000 users on the fixture's first item.
	if _, err := st.Pool().Exec(ctx, `WITH u AS (
			INSERT INTO users (username, role) SELECT 'sweep' || g, 'annotator' FROM generate_series(1, 40000) g
			RETURNING id)
		INSERT INTO assignments (item_id, user_id, status, lease_expires_at)
		SELECT $1, u.id, 'expired', now() - interval '1 hour' FROM u`, fx.Relevance[0]); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	user := fx.Users["annotator1"].ID
	// Past plpgsql's five custom plans, to its cached generic one.
	for i := 0; i < 8; i++ {
		if _, err := conn.Exec(ctx, `SELECT * FROM lease_items($1, $2, 'relevance', 2, 3, 0, 600)`, fx.Project.ID, user); err != nil {
			t.Fatal(err)
		}
	}
	bufs, plan := leaseCallBuffers(t, conn, fx.Project.ID, user)
	var pages int
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size('assignments') / current_setting('block_size')::int`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	t.Logf("a lease call read %d buffers; assignments has %d pages", bufs, pages)
	if bufs >= pages/2 {
		t.Errorf("a lease call read %d buffers, assignments has %d pages: the expiry check scans the table\n%s", bufs, pages, plan)
	}
}

// TestFetchProgressReadsAreKeyLookups: the reads a task fetch makes after
// the lease (the rater's progress, time and held total, with generic
// plans kept for the connection's life) stay key look-ups when their
// tables grow after the connection planned them nearly empty, as in a new
// database before its first autoanalyze. Before, the generic plans made
// then were sequential scans, and every fetch read every rater's rows.
// Counted with pg_stat_user_tables.seq_scan, on a store of one connection.
func TestFetchProgressReadsAreKeyLookups(t *testing.T) {
	st, url := storetest.NewWithURL(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	tables := []string{"rater_progress", "rater_totals", "activity"}
	grow := func(n int) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, `WITH u AS (
				INSERT INTO users (username, role) SELECT 'grow' || $2::int || '.' || g, 'annotator' FROM generate_series(1, $2::int) g
				RETURNING id),
			rp AS (INSERT INTO rater_progress (user_id, project_id, kind, done) SELECT id, $1, 'relevance', 1 FROM u),
			rt AS (INSERT INTO rater_totals (project_id, user_id, kind, total) SELECT $1, id, 'relevance', 5 FROM u)
			INSERT INTO activity (user_id, project_id, day, active_ms) SELECT id, $1, current_date, 1000 FROM u`, fx.Project.ID, n); err != nil {
			t.Fatal(err)
		}
	}
	// A few raters' rows, counted by an analyze (as an early
	// autoanalyze would); then no more autoanalyze (whose new statistics
	// would have the plans made again).
	grow(20)
	for _, tb := range tables {
		if _, err := st.Pool().Exec(ctx, `ANALYZE `+tb); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, `ALTER TABLE `+tb+` SET (autovacuum_enabled = off)`); err != nil {
			t.Fatal(err)
		}
	}
	one, err := store.Open(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	p := store.LeaseParams{ProjectID: fx.Project.ID, UserID: fx.Users["annotator1"].ID, Kind: "relevance", N: 1, Raters: 3,
		Lease: time.Minute, HoldIdle: 30 * time.Minute}
	if err := one.HoldTotal(ctx, p.ProjectID, p.UserID, p.Kind, 10); err != nil {
		t.Fatal(err)
	}
	fetch := func() {
		t.Helper()
		if _, _, _, err := one.LeaseTasks(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// The connection plans the reads (past the five custom plans).
	for i := 0; i < 8; i++ {
		fetch()
	}
	// The tables grow: 30,000 other raters' rows each.
	grow(30000)
	seqScans := func() map[string]int64 {
		t.Helper()
		// The one connection's counts reach the shared statistics now.
		if err := one.Pool().QueryRow(ctx, `SELECT pg_stat_force_next_flush()`).Scan(new(any)); err != nil {
			t.Fatal(err)
		}
		if _, err := one.Pool().Exec(ctx, `SELECT 1`); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		n := map[string]int64{}
		rows, _ := conn.Query(ctx, `SELECT relname, coalesce(seq_scan, 0) FROM pg_stat_user_tables WHERE relname = ANY ($1)`, tables)
		var name string
		var c int64
		if _, err := pgx.ForEachRow(rows, []any{&name, &c}, func() error { n[name] = c; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := seqScans()
	for i := 0; i < 5; i++ {
		fetch()
	}
	after := seqScans()
	t.Logf("sequential scans before %v, after %v", before, after)
	for _, tb := range tables {
		if d := after[tb] - before[tb]; d != 0 {
			t.Errorf("%s: %d sequential scans in 5 fetches, want none (key look-ups)", tb, d)
		}
	}
}

// leaseCallBuffers returns the buffers one lease_items call of two
// relevance tasks reads on conn (EXPLAIN ANALYZE of the call counts its
// statements' buffers), and the plan.
func leaseCallBuffers(t *testing.T, conn *pgx.Conn, project, user int64) (int, string) {
	t.Helper()
	ctx := context.Background()
	var plan string
	rows, err := conn.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) SELECT * FROM lease_items($1, $2, 'relevance', 2, 3, 0, 600)`, project, user)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan += line + "\n"
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Buffers: shared hit=(\d+)(?: read=(\d+))?`).FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("no buffer count in the plan:\n%s", plan)
	}
	bufs, _ := strconv.Atoi(m[1])
	if m[2] != "" {
		read, _ := strconv.Atoi(m[2])
		bufs += read
	}
	return bufs, plan
}

// TestLeaseCandidateCheckIgnoresRaterHistory: whether the rater already
// holds or judged a candidate is one key look-up per candidate, however
// many assignments the rater has, and no statement of a lease call reads
// a whole table when the tables grew after the connection planned them
// (plpgsql keeps the plans: before 0104 those made on small tables were
// sequential scans). Before 0104 the NOT EXISTS could be
// planned (and the plan kept by plpgsql) as an anti-join that read every
// assignment of the rater on every fetch. The rater here has 20,000
// assignments (given back, of another project's items) made after the
// connection planned its lease with a short history.
func TestLeaseCandidateCheckIgnoresRaterHistory(t *testing.T) {
	st, url := storetest.NewWithURL(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	user := fx.Users["annotator1"].ID
	other := fx.Users["annotator2"].ID
	history := func(n int) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, `WITH it AS (
				INSERT INTO items (project_id, kind, query_id)
				SELECT $1, 'paraphrase', (SELECT min(id) FROM queries) FROM generate_series(1, $3::int)
				RETURNING id)
			INSERT INTO assignments (item_id, user_id, status, lease_expires_at)
			SELECT it.id, $2, 'expired', now() - interval '1 hour' FROM it`, fx.Other.ID, user, n); err != nil {
			t.Fatal(err)
		}
	}
	// A short history, counted by an analyze; then no autoanalyze.
	history(20)
	if _, err := st.Pool().Exec(ctx, `ANALYZE assignments`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `ALTER TABLE assignments SET (autovacuum_enabled = off)`); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Past plpgsql's five custom plans; each call gives its leases back
	// so the next one scans for candidates again.
	giveBack := func(user int64) {
		t.Helper()
		if _, err := conn.Exec(ctx, `UPDATE assignments SET status = 'expired', lease_expires_at = now() - interval '1 second'
			WHERE user_id = $1 AND status = 'leased'`, user); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 8; i++ {
		if _, err := conn.Exec(ctx, `SELECT * FROM lease_items($1, $2, 'relevance', 2, 3, 0, 600)`, fx.Project.ID, user); err != nil {
			t.Fatal(err)
		}
		giveBack(user)
	}
	history(20000)
	// Each rater's second call is measured (the first after the insert
	// may plan again); another rater's reads what a call reads without
	// the history.
	var bufs, base int
	var plan string
	for i := 0; i < 2; i++ {
		base, _ = leaseCallBuffers(t, conn, fx.Project.ID, other)
		giveBack(other)
		bufs, plan = leaseCallBuffers(t, conn, fx.Project.ID, user)
		giveBack(user)
	}
	var pages int
	if err := conn.QueryRow(ctx, `SELECT (pg_relation_size('assignments') + pg_relation_size('items')) / current_setting('block_size')::int`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	t.Logf("a lease call of the rater with 20,020 assignments read %d buffers, another rater's %d; assignments and items have %d pages", bufs, base, pages)
	if bufs > base+60 {
		t.Errorf("a lease call of the rater with 20,020 assignments read %d buffers, another rater's %d: the candidate check reads the rater's history\n%s", bufs, base, plan)
	}
	if bufs >= pages/2 || base >= pages/2 {
		t.Errorf("lease calls read %d and %d buffers, assignments and items have %d pages: a plan made on small tables scans them\n%s", bufs, base, pages, plan)
	}
}

// TestLeaseStaysAsynchronousCommit: lease_items' SET LOCAL
// synchronous_commit = off outlives the call (a lease's commit does not
// wait for the WAL flush) now that the function has a SET option of its
// own (enable_seqscan, restored at its exit).
func TestLeaseStaysAsynchronousCommit(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT * FROM lease_items($1, $2, 'relevance', 2, 3, 0, 600)`, fx.Project.ID, fx.Users["annotator1"].ID); err != nil {
		t.Fatal(err)
	}
	var sync, seq string
	if err := tx.QueryRow(ctx, `SELECT current_setting('synchronous_commit'), current_setting('enable_seqscan')`).Scan(&sync, &seq); err != nil {
		t.Fatal(err)
	}
	if sync != "off" || seq != "on" {
		t.Errorf("after a lease call: synchronous_commit %s, enable_seqscan %s; want off (for the lease's commit), on (the function's own setting undone)", sync, seq)
	}
}
