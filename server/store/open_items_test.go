package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestItemSlotsFollowAssignments: items.taken (leased or done
// assignments) and items.open (taken below the item's rater count), which
// the lease scans instead of every item (migration 0095), follow every
// change of an item's assignments — leases, an expired lease given back
// by the next fetch of anyone, judgments, skips, deletions — and a change
// of the project's raters per item.
func TestItemSlotsFollowAssignments(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "slots", 4)
	lease := func(u int64) int64 {
		t.Helper()
		as, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute})
		if err != nil || len(as) != 1 {
			t.Fatalf("lease for %d: %v %v", u, as, err)
		}
		return as[0].ItemID
	}
	check := func(step string, item int64, taken int, open bool) {
		t.Helper()
		var gotTaken int
		var gotOpen bool
		if err := st.Pool().QueryRow(ctx, `SELECT taken, open FROM items WHERE id = $1`, item).Scan(&gotTaken, &gotOpen); err != nil {
			t.Fatal(err)
		}
		if gotTaken != taken || gotOpen != open {
			t.Errorf("%s: item %d taken %d open %v, want %d %v", step, item, gotTaken, gotOpen, taken, open)
		}
	}
	first, second := fx.Relevance[0], fx.Relevance[1]
	if got := lease(users[0]); got != first {
		t.Fatalf("first lease got item %d, want %d", got, first)
	}
	check("one lease", first, 1, true)
	lease(users[1])
	check("two leases (r = 2)", first, 2, false)
	if got := lease(users[2]); got != second {
		t.Fatalf("a full item was leased again: got %d, want %d", got, second)
	}
	// users[1] walks away: once their lease has run out, the next fetch
	// (anyone's) gives the slot back, and it is leased again.
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET lease_expires_at = now() - interval '1 second' WHERE user_id = $1`, users[1]); err != nil {
		t.Fatal(err)
	}
	if got := lease(users[3]); got != first {
		t.Fatalf("the expired slot was not leased again: got item %d, want %d", got, first)
	}
	var status string
	if err := st.Pool().QueryRow(ctx, `SELECT status FROM assignments WHERE user_id = $1`, users[1]).Scan(&status); err != nil || status != store.AssignExpired {
		t.Errorf("the run-out lease is %q (%v), want expired", status, err)
	}
	check("slot given back and leased again", first, 2, false)
	rel := int16(2)
	save := func(n int, u int64, skip string) {
		t.Helper()
		j := store.NewJudgment{ClientID: fmt.Sprintf("0c9f4a3e-1c2d-4e5f-8a7b-%012d", n), ItemID: first, UserID: u,
			ProjectID: fx.Project.ID, Kind: "relevance", SkipReason: skip}
		if skip == "" {
			j.Relevance = &rel
		}
		if _, _, err := st.SaveJudgment(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	save(1, users[0], "")
	check("a lease judged", first, 2, false)
	save(2, users[3], "cannot tell")
	check("a lease skipped", first, 1, true)
	save(3, users[0], "changed my mind")
	check("a judgment corrected to a skip", first, 0, true)
	save(4, users[0], "")
	check("and back", first, 1, true)

	researcher := fx.Users["researcher"].ID
	if err := st.SetRatersPerItem(ctx, fx.Project.ID, researcher, 1); err != nil {
		t.Fatal(err)
	}
	check("raters per item 2 -> 1", first, 1, false)
	check("raters per item 2 -> 1", second, 1, false)
	if err := st.SetRatersPerItem(ctx, fx.Project.ID, researcher, 3); err != nil {
		t.Fatal(err)
	}
	check("raters per item 1 -> 3", first, 1, true)
	if _, err := st.Pool().Exec(ctx, `DELETE FROM assignments WHERE item_id = $1`, second); err != nil {
		t.Fatal(err)
	}
	check("assignments deleted", second, 0, true)

	// Every item agrees with a count of its assignments.
	var wrong int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM items i
		WHERE i.taken <> (SELECT count(*) FROM assignments a WHERE a.item_id = i.id AND a.status IN ('leased', 'done'))
		   OR i.open <> (i.taken < item_raters(i.project_id, i.kind))`).Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("%d items whose taken/open disagree with their assignments (%v)", wrong, err)
	}
}

// TestBatchLeaseCountsTakenOnce: a lease batch counts its items' slots
// with one UPDATE and the row triggers skip its rows (migration 0100). The
// counts stay exact for a batch of new leases, for a batch that takes the
// rater's own expired leases again (the INSERT's ON CONFLICT path), and
// for any write to assignments after a lease in the same transaction (the
// flag that makes the triggers skip is off again once the lease has run).
func TestBatchLeaseCountsTakenOnce(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "batchtaken", 2)
	if len(fx.Relevance) < 4 {
		t.Fatalf("fixture has %d relevance items, want at least 4", len(fx.Relevance))
	}
	p := store.LeaseParams{ProjectID: fx.Project.ID, UserID: users[0], Kind: "relevance", N: 3, Raters: 2, Lease: time.Minute}
	taken := func(item int64) (n int, open bool) {
		t.Helper()
		if err := st.Pool().QueryRow(ctx, `SELECT taken, open FROM items WHERE id = $1`, item).Scan(&n, &open); err != nil {
			t.Fatal(err)
		}
		return n, open
	}
	agree := func(step string) {
		t.Helper()
		var wrong int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM items i
			WHERE i.taken <> (SELECT count(*) FROM assignments a WHERE a.item_id = i.id AND a.status IN ('leased', 'done'))
			   OR i.open <> (i.taken < item_raters(i.project_id, i.kind))`).Scan(&wrong); err != nil || wrong != 0 {
			t.Errorf("%s: %d items whose taken/open disagree with their assignments (%v)", step, wrong, err)
		}
	}
	as, err := st.Lease(ctx, p)
	if err != nil || len(as) != 3 {
		t.Fatalf("first batch: %v %v", as, err)
	}
	for _, a := range as {
		if n, open := taken(a.ItemID); n != 1 || !open {
			t.Errorf("item %d after one batch: taken %d open %v, want 1 true", a.ItemID, n, open)
		}
	}
	agree("a batch of new leases")

	// The rater's leases run out; their next batch takes the same items
	// again through the INSERT's ON CONFLICT update (expired -> leased).
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET lease_expires_at = now() - interval '1 second' WHERE user_id = $1`, users[0]); err != nil {
		t.Fatal(err)
	}
	again, err := st.Lease(ctx, p)
	if err != nil || len(again) != 3 {
		t.Fatalf("second batch: %v %v", again, err)
	}
	for i, a := range again {
		if a.ItemID != as[i].ItemID || a.ID != as[i].ID {
			t.Errorf("second batch lease %d: item %d (assignment %d), want the expired lease of item %d (assignment %d) again",
				i, a.ItemID, a.ID, as[i].ItemID, as[i].ID)
		}
		if n, open := taken(a.ItemID); n != 1 || !open {
			t.Errorf("item %d after its expired lease was taken again: taken %d open %v, want 1 true", a.ItemID, n, open)
		}
	}
	agree("expired leases taken again")

	// A lease and then another write in one transaction: the triggers count
	// the later write.
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT count(*) FROM lease_items($1, $2, 'relevance', 3, 2, 0, 60)`, fx.Project.ID, users[1]); err != nil {
		t.Fatal(err)
	}
	last := fx.Relevance[3]
	if _, err := tx.Exec(ctx, `INSERT INTO assignments (item_id, user_id, lease_expires_at) VALUES ($1, $2, now() + interval '1 minute')`, last, users[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE assignments SET status = 'skipped' WHERE user_id = $1 AND item_id = $2`, users[1], as[0].ItemID); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := taken(last); n != 1 {
		t.Errorf("item %d leased by a plain INSERT after a lease batch in the same transaction: taken %d, want 1", last, n)
	}
	if n, open := taken(as[0].ItemID); n != 1 || !open {
		t.Errorf("item %d: two leases, one skipped in the lease's transaction: taken %d open %v, want 1 true", as[0].ItemID, n, open)
	}
	agree("writes after a lease in its transaction")
}
