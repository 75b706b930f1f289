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
