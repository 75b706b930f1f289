package store_test

import (
	"context"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// waitForLockWait polls until a backend of the test database waits for a
// lock (the fetch under test), or fails after 10 s.
func waitForLockWait(t *testing.T, st *store.Store, what string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never waited for a lock", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLeaseDeadlockVictimIsFetchedAgain: a task fetch that Postgres picks
// as a deadlock victim is run again, not answered with an error (a 500).
// The deadlock: the rater's own expired lease of the first item in
// priority order is held by another transaction; the fetch's candidate
// scan locks that item and its lease INSERT … ON CONFLICT waits for the
// held lease; the other transaction then wants the item. The fetch waited
// first, so it is the victim, and its second run leases the next item.
func TestLeaseDeadlockVictimIsFetchedAgain(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "deadlock", 1)
	params := store.LeaseParams{ProjectID: fx.Project.ID, UserID: users[0], Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute}
	as, err := st.Lease(ctx, params)
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	own, item := as[0].ID, as[0].ItemID
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET status = 'expired' WHERE id = $1`, own); err != nil {
		t.Fatal(err)
	}

	other, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback(ctx) }()
	if _, err := other.Exec(ctx, `UPDATE assignments SET leased_at = leased_at WHERE id = $1`, own); err != nil {
		t.Fatal(err)
	}
	type result struct {
		as  []store.Assignment
		err error
	}
	done := make(chan result, 1)
	go func() {
		as, _, _, err := st.LeaseTasks(ctx, params)
		done <- result{as, err}
	}()
	waitForLockWait(t, st, "the fetch (holding the item, leasing it again)")
	// Now the other transaction wants the item: a deadlock, found by the
	// fetch's backend (it waited first), which Postgres aborts.
	if _, err := other.Exec(ctx, `UPDATE items SET priority = priority WHERE id = $1`, item); err != nil {
		t.Fatalf("the other transaction was the victim, not the fetch: %v", err)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("the deadlocked fetch was not run again: %v", r.err)
	}
	if len(r.as) != 1 {
		t.Fatalf("the fetch leased %d tasks, want 1", len(r.as))
	}
}

// TestLeaseExpiryNeverWaits: a fetch gives run-out leases back without
// waiting for a lock. Another rater's run-out lease whose item a
// transaction holds is left leased (its slot still counted) and the fetch
// answers at once; the next fetch after that transaction ends expires it
// and the item's count drops by exactly one. (Before migration 0102 the
// fetch waited for the item while holding the lease: two fetches doing so
// in different orders deadlocked.)
func TestLeaseExpiryNeverWaits(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "expiry", 2)
	params := func(u int64) store.LeaseParams {
		return store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute}
	}
	as, err := st.Lease(ctx, params(users[0]))
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	runOut, item := as[0].ID, as[0].ItemID
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, runOut); err != nil {
		t.Fatal(err)
	}
	taken := func() int {
		t.Helper()
		return storetest.Column[int](t, st, `SELECT taken FROM items WHERE id = $1`, item)[0]
	}
	status := func() string {
		t.Helper()
		return storetest.Column[string](t, st, `SELECT status FROM assignments WHERE id = $1`, runOut)[0]
	}
	before := taken()

	other, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Rollback(ctx) }()
	if _, err := other.Exec(ctx, `UPDATE items SET priority = priority WHERE id = $1`, item); err != nil {
		t.Fatal(err)
	}
	fetchCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	got, _, _, err := st.LeaseTasks(fetchCtx, params(users[1]))
	if err != nil {
		t.Fatalf("fetch beside a transaction holding the run-out lease's item: %v (after %s)", err, time.Since(start))
	}
	if len(got) != 1 || got[0].ItemID == item {
		t.Fatalf("the fetch leased %+v, want one task of another item", got)
	}
	if s := status(); s != "leased" {
		t.Fatalf("the run-out lease whose item was held is %q, want it left leased for a later fetch", s)
	}
	if err := other.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.LeaseTasks(ctx, params(users[1])); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != "expired" {
		t.Fatalf("after the holder committed, the next fetch left the run-out lease %q, want expired", s)
	}
	if n := taken(); n != before-1 {
		t.Fatalf("the item's taken count is %d after its lease expired, want %d", n, before-1)
	}
}
