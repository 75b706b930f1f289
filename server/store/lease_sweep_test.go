package store_test

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"

	"boolpool/internal/judgingtest"
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
	var plan string
	rows, err := conn.Query(ctx, `EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) SELECT * FROM lease_items($1, $2, 'relevance', 2, 3, 0, 600)`, fx.Project.ID, user)
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
	var pages int
	if err := conn.QueryRow(ctx, `SELECT pg_relation_size('assignments') / current_setting('block_size')::int`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	t.Logf("a lease call read %d buffers; assignments has %d pages", bufs, pages)
	if bufs >= pages/2 {
		t.Errorf("a lease call read %d buffers, assignments has %d pages: the expiry check scans the table\n%s", bufs, pages, plan)
	}
}
