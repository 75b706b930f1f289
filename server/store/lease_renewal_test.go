package store_test

import (
	"context"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestFetchRenewsOnlyLeasesAQuarterRunOut fetches again with two live leases,
// one with nearly all its time left and one with less than three quarters:
// only the second is renewed (the first row is not written at all: same expiry,
// same row version), both are still returned first and counted as live
// (the fetch adds only what is missing).
func TestFetchRenewsOnlyLeasesAQuarterRunOut(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u := fx.Users["annotator1"].ID
	p := store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: api.KindRelevance, N: 2, Raters: 2, Lease: 100 * time.Second}
	as, err := st.Lease(ctx, p)
	if err != nil || len(as) != 2 {
		t.Fatalf("lease: %v %v", as, err)
	}
	fresh, old := as[0].ID, as[1].ID
	// 70 s of 100 left: renewed; the fresh one has ~100 s left.
	if _, err := st.Pool().Exec(ctx, `UPDATE assignments SET lease_expires_at = now() + interval '70 seconds' WHERE id = $1`, old); err != nil {
		t.Fatal(err)
	}
	type state struct {
		exp  time.Time
		xmin string
	}
	read := func(id int64) state {
		var s state
		if err := st.Pool().QueryRow(ctx, `SELECT lease_expires_at, xmin::text FROM assignments WHERE id = $1`, id).Scan(&s.exp, &s.xmin); err != nil {
			t.Fatal(err)
		}
		return s
	}
	freshBefore, oldBefore := read(fresh), read(old)
	p.N = 3
	again, err := st.Lease(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 3 || again[0].ID != fresh || again[1].ID != old {
		t.Fatalf("fetch of 3 with 2 live leases: %v, want the two first and one new", again)
	}
	freshAfter, oldAfter := read(fresh), read(old)
	if freshAfter != freshBefore {
		t.Errorf("the lease with nearly all its time left was written: %+v → %+v", freshBefore, freshAfter)
	}
	if left := time.Until(oldAfter.exp); left < 90*time.Second {
		t.Errorf("the lease with 70 s of 100 left has %v left after the fetch (was %v), want it renewed to ~100 s", left, time.Until(oldBefore.exp))
	}
}
