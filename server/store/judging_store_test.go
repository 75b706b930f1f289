package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestConcurrentLeasesRespectR lets many raters lease at once and checks
// that no item ever gets more than r live raters and no rater gets an item
// twice.
func TestConcurrentLeasesRespectR(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	users := judgingtest.Annotators(t, st, "rater", 12)
	var wg sync.WaitGroup
	errs := make(chan error, len(users))
	for _, u := range users {
		wg.Add(1)
		go func(u int64) {
			defer wg.Done()
			_, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 3, Raters: 2, Lease: time.Minute})
			errs <- err
		}(u)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// SKIP LOCKED may make a rater miss a slot under contention (never
	// over-fill one); a second, quiet round fills every slot.
	for _, u := range users {
		if _, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 3, Raters: 2, Lease: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
	var maxPerItem, total, dupes int
	if err := st.Pool().QueryRow(ctx, `SELECT max(n), sum(n) FROM (SELECT item_id, count(*) AS n FROM assignments GROUP BY item_id) x`).Scan(&maxPerItem, &total); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM assignments GROUP BY item_id, user_id HAVING count(*) > 1) x`).Scan(&dupes); err != nil {
		t.Fatal(err)
	}
	if maxPerItem > 2 || total != 12 || dupes != 0 {
		t.Errorf("max raters per item %d (r = 2), %d leases in all (want 6 items x 2), %d repeated rater-item pairs", maxPerItem, total, dupes)
	}
}

// TestConcurrentRetriesStoreOnce sends one judgment many times at once, as a
// client retrying over a flaky network would: exactly one row.
func TestConcurrentRetriesStoreOnce(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u := fx.Users["annotator1"].ID
	as, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute})
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	rel := int16(2)
	n := store.NewJudgment{ClientID: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", ItemID: as[0].ItemID, UserID: u, ProjectID: fx.Project.ID,
		Kind: "relevance", Relevance: &rel, TimeSpentMs: 1000}
	var wg sync.WaitGroup
	var mu sync.Mutex
	inserted, ids := 0, map[int64]bool{}
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, ins, err := st.SaveJudgment(ctx, n)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids[j.ID] = true
			if ins {
				inserted++
			}
		}()
	}
	wg.Wait()
	if c, _ := st.CountJudgmentsByClient(ctx, n.ClientID); c != 1 || inserted != 1 || len(ids) != 1 {
		t.Errorf("rows %d, inserted %d, distinct ids %d; want 1, 1, 1", c, inserted, len(ids))
	}
	var active int64
	if err := st.Pool().QueryRow(ctx, `SELECT active_ms FROM activity WHERE user_id = $1`, u).Scan(&active); err != nil || active != 1000 {
		t.Errorf("activity %d (%v), want the time counted once", active, err)
	}
}

// TestGoldItemsMixedIn checks that gold items come at the project's rate
// and to every rater (they do not use up the r slots).
func TestGoldItemsMixedIn(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	ctx := context.Background()
	for i := 0; i < 4; i++ {
		qid := fx.Queries["q2"]
		if _, err := st.CreateItem(ctx, store.NewItem{ProjectID: fx.Project.ID, Kind: "paraphrase", QueryID: qid, IsGold: true,
			GoldAnswer: []byte(`{"text":"gold"}`), Priority: i}); err != nil {
			t.Fatal(err)
		}
	}
	p := store.LeaseParams{ProjectID: fx.Project.ID, Kind: "paraphrase", N: 6, Raters: 1, GoldRate: 0.5, Lease: time.Minute}
	for _, name := range []string{"annotator1", "annotator2"} {
		p.UserID = fx.Users[name].ID
		as, err := st.Lease(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		gold := goldCount(t, st, as)
		// annotator1: gold, regular, gold, regular, gold, then no regular
		// work is left and gold alone is not served. annotator2 finds the
		// regular items taken (r = 1): one gold item, then nothing.
		want := map[string][2]int{"annotator1": {5, 3}, "annotator2": {1, 1}}[name]
		if len(as) != want[0] || gold != want[1] {
			t.Errorf("%s: %d items, %d gold; want %d and %d", name, len(as), gold, want[0], want[1])
		}
	}
}

// TestAvailableMatchesLeasable checks the progress bar's arithmetic: the
// project's open items minus the rater's own open items is exactly the
// number of new items leasing would give the rater, in a project (r = 3)
// where others hold leases, some items are judged and some are full.
func TestAvailableMatchesLeasable(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	lp := func(user int64, n int) store.LeaseParams {
		return store.LeaseParams{ProjectID: fx.Project.ID, UserID: user, Kind: "relevance", N: n, Raters: 3, Lease: time.Minute}
	}
	users := judgingtest.Annotators(t, st, "avail", 4)
	// users[0] holds 3 and judges 2 of them; users[1] holds 2 and
	// users[2] holds 1 (the first item then has its 3 raters).
	held := map[int64]int{}
	for i, n := range []int{3, 2, 1} {
		as, err := st.Lease(ctx, lp(users[i], n))
		if err != nil || len(as) != n {
			t.Fatalf("lease %d for rater %d: %v %v", n, i, as, err)
		}
		held[users[i]] = n
	}
	first, err := st.Lease(ctx, lp(users[0], 3))
	if err != nil {
		t.Fatal(err)
	}
	rel := int16(1)
	for k, a := range first[:2] {
		n := store.NewJudgment{ClientID: fmt.Sprintf("0b9f4a3e-1c2d-4e5f-8a7b-%012d", k), ItemID: a.ItemID, UserID: users[0],
			ProjectID: fx.Project.ID, Kind: "relevance", Relevance: &rel}
		if _, _, err := st.SaveJudgment(ctx, n); err != nil {
			t.Fatal(err)
		}
		held[users[0]]--
	}
	open, err := st.OpenItems(ctx, fx.Project.ID, "relevance", 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range users {
		theirs, err := st.RaterOpenItems(ctx, lp(u, 0))
		if err != nil {
			t.Fatal(err)
		}
		avail := open - theirs
		// Leasing everything there is shows what was really available;
		// the new leases are deleted again so the next rater sees the
		// same project.
		before := map[int64]bool{}
		prev, err := st.Lease(ctx, lp(u, held[u]))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range prev {
			before[a.ID] = true
		}
		as, err := st.Lease(ctx, lp(u, 100))
		if err != nil {
			t.Fatal(err)
		}
		var fresh []int64
		for _, a := range as {
			if !before[a.ID] {
				fresh = append(fresh, a.ID)
			}
		}
		t.Logf("rater %d: %d open, %d theirs, %d new leases", i, open, theirs, len(fresh))
		if len(fresh) != avail {
			t.Errorf("rater %d: %d open - %d theirs = %d available, but leasing gave %d new items", i, open, theirs, avail, len(fresh))
		}
		if _, err := st.Pool().Exec(ctx, `DELETE FROM assignments WHERE id = ANY($1)`, fresh); err != nil {
			t.Fatal(err)
		}
	}
}

// goldCount is how many of the leased items are gold.
func goldCount(t *testing.T, st *store.Store, as []store.Assignment) int {
	t.Helper()
	gold := 0
	for _, a := range as {
		it, err := st.ItemByID(context.Background(), a.ItemID)
		if err != nil {
			t.Fatal(err)
		}
		if it.IsGold {
			gold++
		}
	}
	return gold
}
