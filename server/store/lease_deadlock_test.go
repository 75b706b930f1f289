package store_test

import (
	"context"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestLeaseDeadlockVictimIsFetchedAgain: a task fetch that Postgres picks
// as a deadlock victim is run again, not answered with an error (a 500).
// The deadlock is the one a load run met: the fetch's expiry of another
// rater's run-out lease locks that assignment, then its item through the
// taken trigger, while another transaction holds the item and waits for
// the assignment. The fetch waits first, so it is the victim.
func TestLeaseDeadlockVictimIsFetchedAgain(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "deadlock", 2)
	params := func(u int64) store.LeaseParams {
		return store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute}
	}
	as, err := st.Lease(ctx, params(users[0]))
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	run, item := as[0].ID, as[0].ItemID
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, run); err != nil {
		t.Fatal(err)
	}

	other, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback(ctx) }()
	if _, err := other.Exec(ctx, `UPDATE items SET priority = priority WHERE id = $1`, item); err != nil {
		t.Fatal(err)
	}
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		as, _, _, err := st.LeaseTasks(ctx, params(users[1]))
		done <- result{len(as), err}
	}()
	// The fetch holds the run-out assignment and waits for the item.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fetch never waited for the item")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Now the other transaction wants the assignment: a deadlock, found by
	// the fetch's backend (it waited first), which Postgres aborts.
	if _, err := other.Exec(ctx, `UPDATE assignments SET lease_expires_at = lease_expires_at WHERE id = $1`, run); err != nil {
		t.Fatalf("the other transaction was the victim, not the fetch: %v", err)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("the deadlocked fetch was not run again: %v", r.err)
	}
	if r.n != 1 {
		t.Fatalf("the fetch leased %d tasks, want 1", r.n)
	}
	var status string
	if err := st.Pool().QueryRow(ctx, `SELECT status FROM assignments WHERE id = $1`, run).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status != "expired" {
		t.Fatalf("the run-out lease is %q after the fetch, want expired", status)
	}
}
