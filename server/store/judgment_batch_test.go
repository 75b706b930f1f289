package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// saved is one SaveJudgment answer.
type saved struct {
	j        store.Judgment
	inserted bool
	err      error
}

// oneBatch sends ns to a held batcher, in order, waits until all of them
// are queued, then starts its writer: its first batch holds them all.
func oneBatch(t *testing.T, st *store.Store, ns []store.NewJudgment) []saved {
	t.Helper()
	ctx := context.Background()
	b, start := store.NewHeldJudgmentBatcher(st)
	out := make([]saved, len(ns))
	var wg sync.WaitGroup
	for i, n := range ns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, ins, err := b.SaveJudgment(ctx, n)
			out[i] = saved{j, ins, err}
		}()
		waitUntil(t, func() bool { return b.Queued() == i+1 })
	}
	start()
	wg.Wait()
	b.Close()
	return out
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

func uuidN(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i) }

func relevanceJudgment(fx *judgingtest.Fixture, client int, item, user int64, rel int16, spent int) store.NewJudgment {
	ev := api.EvidencePartial
	return store.NewJudgment{ClientID: uuidN(client), ItemID: item, UserID: user, ProjectID: fx.Project.ID,
		Kind: api.KindRelevance, Relevance: &rel, Evidence: &ev, TimeSpentMs: spent}
}

// transactionsOf counts the transactions that wrote the judgments of
// these client ids (their rows' xmin).
func transactionsOf(t *testing.T, st *store.Store, clientIDs []string) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(),
		`SELECT count(DISTINCT xmin::text) FROM judgments WHERE client_id = ANY ($1::uuid[])`, clientIDs).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// twelveRatersTwoLeases is the batch tests' fixture: a judging project
// with 10 more relevance items, 12 raters, and two relevance leases of
// each rater (leases[r] are raters[r]'s).
func twelveRatersTwoLeases(t *testing.T) (*store.Store, *judgingtest.Fixture, []int64, [][]store.Assignment) {
	t.Helper()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	if err := judgingtest.AddRelevanceItems(ctx, st, fx, 10); err != nil {
		t.Fatal(err)
	}
	raters := judgingtest.Annotators(t, st, "rater", 12)
	leases := make([][]store.Assignment, len(raters))
	for r, u := range raters {
		as, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: api.KindRelevance, N: 2, Raters: 2, Lease: time.Minute})
		if err != nil || len(as) != 2 {
			t.Fatalf("lease of rater %d: %v %v", r, as, err)
		}
		leases[r] = as
	}
	return st, fx, raters, leases
}

// TestBatchedJudgmentsOneTransaction writes the judgments of 12 raters,
// two items each (one a skip), and a paraphrase with its follow-up
// validation item as one batch: one transaction, every assignment
// completed or skipped, the activity and the progress counters summed per
// rater as one-by-one writes sum them.
func TestBatchedJudgmentsOneTransaction(t *testing.T) {
	st, fx, raters, leases := twelveRatersTwoLeases(t)
	ctx := context.Background()
	var ns []store.NewJudgment
	for r, u := range raters {
		as := leases[r]
		ns = append(ns, relevanceJudgment(fx, 2*r, as[0].ItemID, u, int16(r%4), 1000+r))
		skip := relevanceJudgment(fx, 2*r+1, as[1].ItemID, u, 0, 500)
		skip.Relevance, skip.Evidence, skip.SkipReason = nil, nil, "cannot decide"
		ns = append(ns, skip)
	}
	para := fx.Users["annotator1"].ID
	pas, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: para, Kind: api.KindParaphrase, N: 1, Raters: 2, Lease: time.Minute})
	if err != nil || len(pas) != 1 {
		t.Fatalf("paraphrase lease: %v %v", pas, err)
	}
	pi, err := st.ItemByID(ctx, pas[0].ItemID)
	if err != nil {
		t.Fatal(err)
	}
	ns = append(ns, store.NewJudgment{ClientID: uuidN(900), ItemID: pi.ID, UserID: para, ProjectID: fx.Project.ID,
		Kind: api.KindParaphrase, Payload: []byte(`{"text":"andean birds not in colombia"}`), TimeSpentMs: 7,
		FollowUp: &store.NewItem{ProjectID: fx.Project.ID, Kind: api.KindValidation, QueryID: pi.QueryID, Priority: 5, Payload: []byte(`{"paraphrase":"andean birds not in colombia"}`)}})

	got := oneBatch(t, st, ns)
	var ids []string
	for i, g := range got {
		if g.err != nil || !g.inserted || g.j.ClientID != ns[i].ClientID || g.j.ItemID != ns[i].ItemID || g.j.UserID != ns[i].UserID {
			t.Fatalf("judgment %d: %+v, want inserted as sent", i, g)
		}
		ids = append(ids, ns[i].ClientID)
	}
	if n := transactionsOf(t, st, ids); n != 1 {
		t.Errorf("the batch was written by %d transactions, want 1", n)
	}
	var followUps, sameTx int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE i.xmin = j.xmin) FROM items i, judgments j
		WHERE i.kind = 'validation' AND i.project_id = $1 AND j.client_id = $2`, fx.Project.ID, uuidN(900)).Scan(&followUps, &sameTx); err != nil {
		t.Fatal(err)
	}
	if followUps != 1 || sameTx != 1 {
		t.Errorf("%d follow-up items, %d in the judgments' transaction; want 1, 1", followUps, sameTx)
	}
	for r, u := range raters {
		var done, skipped int
		var active int64
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = 'skipped')
			FROM assignments WHERE user_id = $1`, u).Scan(&done, &skipped); err != nil {
			t.Fatal(err)
		}
		if err := st.Pool().QueryRow(ctx, `SELECT active_ms FROM activity WHERE user_id = $1`, u).Scan(&active); err != nil {
			t.Fatal(err)
		}
		var pDone, pSkipped int
		if err := st.Pool().QueryRow(ctx, `SELECT done, skipped FROM rater_progress WHERE user_id = $1 AND kind = 'relevance'`, u).Scan(&pDone, &pSkipped); err != nil {
			t.Fatal(err)
		}
		if done != 1 || skipped != 1 || active != int64(1000+r+500) || pDone != 1 || pSkipped != 1 {
			t.Errorf("rater %d: assignments done %d skipped %d, activity %d ms, progress %d/%d; want 1, 1, %d, 1/1",
				r, done, skipped, active, pDone, pSkipped, 1000+r+500)
		}
	}
}

// TestBatchedDuplicateClientIDs sends one client id several times in one
// batch and again in a later one: the same judgment gets the stored row
// back (not inserted), a different one the same refusal as one-by-one
// writes give, and the row and its time are stored once.
func TestBatchedDuplicateClientIDs(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u1, u2 := fx.Users["annotator1"].ID, fx.Users["annotator2"].ID
	item, other := fx.Relevance[0], fx.Relevance[1]
	a := relevanceJudgment(fx, 1, item, u1, 2, 1000)
	changed := relevanceJudgment(fx, 1, item, u1, 3, 1000)
	foreign := relevanceJudgment(fx, 1, other, u2, 2, 1000)

	check := func(round string, got []saved, firstInserted bool) {
		t.Helper()
		if got[0].err != nil || got[0].inserted != firstInserted {
			t.Fatalf("%s: first %+v, want inserted=%v", round, got[0], firstInserted)
		}
		id := got[0].j.ID
		if got[1].err != nil || got[1].inserted || got[1].j.ID != id {
			t.Errorf("%s: the same judgment again: %+v, want the stored row %d, not inserted", round, got[1], id)
		}
		var refused *apperr.Refused
		if !errors.As(got[2].err, &refused) || !errors.Is(got[2].err, store.ErrConflict) || refused.Field != "client_id" {
			t.Errorf("%s: a changed judgment under the id: %v, want a refusal on client_id wrapping ErrConflict", round, got[2].err)
		}
		if !errors.Is(got[3].err, store.ErrConflict) || errors.As(got[3].err, &refused) {
			t.Errorf("%s: another rater's judgment under the id: %v, want ErrConflict", round, got[3].err)
		}
	}
	check("one batch", oneBatch(t, st, []store.NewJudgment{a, a, changed, foreign}), true)
	check("a later batch", oneBatch(t, st, []store.NewJudgment{a, a, changed, foreign}), false)

	// The errors are Store.SaveJudgment's, word for word.
	for k, n := range []store.NewJudgment{changed, foreign} {
		_, _, want := st.SaveJudgment(ctx, n)
		got := oneBatch(t, st, []store.NewJudgment{relevanceJudgment(fx, 50+k, fx.Relevance[2+k], u1, 1, 10), n})
		if got[1].err == nil || want == nil || got[1].err.Error() != want.Error() {
			t.Errorf("batched error %v, one by one %v", got[1].err, want)
		}
	}
	if c, err := st.CountJudgmentsByClient(ctx, a.ClientID); c != 1 || err != nil {
		t.Errorf("%d rows under the client id (%v), want 1", c, err)
	}
	var active int64
	if err := st.Pool().QueryRow(ctx, `SELECT active_ms FROM activity WHERE user_id = $1`, u1).Scan(&active); err != nil || active != 1000+2*10 {
		t.Errorf("activity %d ms (%v), want the judgment's time once plus the two others' (1020)", active, err)
	}
}

// TestBatchedFailingRowKeepsOthers puts a judgment the database refuses
// (a relevance out of range) and one of an item that does not exist into a
// batch of good ones: the good ones are stored, and each bad one gets the
// error it gets on its own.
func TestBatchedFailingRowKeepsOthers(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	ctx := context.Background()
	u1, u2, u3 := fx.Users["annotator1"].ID, fx.Users["annotator2"].ID, fx.Users["annotator3"].ID
	ns := []store.NewJudgment{
		relevanceJudgment(fx, 1, fx.Relevance[0], u1, 1, 10),
		relevanceJudgment(fx, 2, fx.Relevance[0], u2, 9, 10), // judgments_relevance_check
		relevanceJudgment(fx, 3, fx.Relevance[1], u1, 2, 10),
		relevanceJudgment(fx, 4, 999999, u3, 2, 10), // no such item
		relevanceJudgment(fx, 5, fx.Relevance[0], u3, 3, 10),
	}
	got := oneBatch(t, st, ns)
	for _, i := range []int{0, 2, 4} {
		if got[i].err != nil || !got[i].inserted {
			t.Errorf("good judgment %d: %+v, want stored", i, got[i])
		}
		if c, _ := st.CountJudgmentsByClient(ctx, ns[i].ClientID); c != 1 {
			t.Errorf("good judgment %d: %d rows, want 1", i, c)
		}
	}
	for _, i := range []int{1, 3} {
		_, _, want := st.SaveJudgment(ctx, ns[i])
		if got[i].err == nil || want == nil || got[i].err.Error() != want.Error() {
			t.Errorf("bad judgment %d: batched error %v, on its own %v", i, got[i].err, want)
		}
		if c, _ := st.CountJudgmentsByClient(ctx, ns[i].ClientID); c != 0 {
			t.Errorf("bad judgment %d: %d rows stored", i, c)
		}
	}
}

// TestBatchedSupersedeOrder has one rater judge one item twice in one
// batch (a correction sent right after the first judgment): the second
// supersedes the first, which supersedes the rater's judgment stored
// before, as when they arrive apart.
func TestBatchedSupersedeOrder(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u1, u2 := fx.Users["annotator1"].ID, fx.Users["annotator2"].ID
	item := fx.Relevance[0]
	j0, _, err := st.SaveJudgment(ctx, relevanceJudgment(fx, 1, item, u1, 0, 10))
	if err != nil {
		t.Fatal(err)
	}
	got := oneBatch(t, st, []store.NewJudgment{
		relevanceJudgment(fx, 2, item, u1, 1, 10),
		relevanceJudgment(fx, 3, item, u2, 2, 10),
		relevanceJudgment(fx, 4, item, u1, 3, 10),
	})
	for i, g := range got {
		if g.err != nil || !g.inserted {
			t.Fatalf("judgment %d: %+v", i, g)
		}
	}
	j1, j2, j3 := got[0].j, got[1].j, got[2].j
	if j1.Supersedes == nil || *j1.Supersedes != j0.ID || j3.Supersedes == nil || *j3.Supersedes != j1.ID || j2.Supersedes != nil || j3.ID < j1.ID {
		t.Errorf("supersedes: first correction %s (want %d), second %s (want %d), other rater %s (want none); ids %d, %d",
			idOf(j1.Supersedes), j0.ID, idOf(j3.Supersedes), j1.ID, idOf(j2.Supersedes), j1.ID, j3.ID)
	}
	cur, err := st.CurrentJudgments(ctx, item)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cur {
		if c.UserID == u1 && (c.ID != j3.ID || *c.Relevance != 3) {
			t.Errorf("rater 1's current judgment is %d (relevance %d), want the last one %d", c.ID, *c.Relevance, j3.ID)
		}
	}
}

func idOf(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// TestBatchAcknowledgedAfterCommit holds a batch's transaction up (another
// transaction locks the rater's assignment) and checks that the judgment is
// not acknowledged before it commits, then is, and is visible.
func TestBatchAcknowledgedAfterCommit(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u := fx.Users["annotator1"].ID
	as, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: api.KindRelevance, N: 1, Raters: 2, Lease: time.Minute})
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM assignments WHERE id = $1 FOR UPDATE`, as[0].ID); err != nil {
		t.Fatal(err)
	}
	b := store.NewJudgmentBatcher(st, nil)
	defer b.Close()
	n := relevanceJudgment(fx, 1, as[0].ItemID, u, 2, 10)
	res := make(chan saved, 1)
	go func() {
		j, ins, err := b.SaveJudgment(ctx, n)
		res <- saved{j, ins, err}
	}()
	select {
	case r := <-res:
		t.Fatalf("acknowledged while its transaction could not commit: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if c, _ := st.CountJudgmentsByClient(ctx, n.ClientID); c != 0 {
		t.Fatalf("%d rows visible before the commit", c)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil || !r.inserted {
		t.Fatalf("after the lock went: %+v", r)
	}
	if c, _ := st.CountJudgmentsByClient(ctx, n.ClientID); c != 1 {
		t.Errorf("%d rows after the acknowledgement, want 1", c)
	}
}

// TestBatcherConcurrentRaters runs the batcher as the server does: 12
// raters send two judgments each, every one twice at once (a client
// retrying): every judgment is stored once, and fewer transactions than
// judgments wrote them only if batches formed (not asserted: timing).
func TestBatcherConcurrentRaters(t *testing.T) {
	st, fx, raters, leases := twelveRatersTwoLeases(t)
	ctx := context.Background()
	var ns []store.NewJudgment
	for r, u := range raters {
		as := leases[r]
		ns = append(ns, relevanceJudgment(fx, 2*r, as[0].ItemID, u, 1, 100), relevanceJudgment(fx, 2*r+1, as[1].ItemID, u, 2, 100))
	}
	b := store.NewJudgmentBatcher(st, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	inserted := map[string]int{}
	for _, n := range ns {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, ins, err := b.SaveJudgment(ctx, n)
				if err != nil || j.ClientID != n.ClientID {
					t.Errorf("%s: %+v %v", n.ClientID, j, err)
					return
				}
				if ins {
					mu.Lock()
					inserted[n.ClientID]++
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	b.Close()
	var rows int
	var active int64
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), (SELECT sum(active_ms) FROM activity) FROM judgments`).Scan(&rows, &active); err != nil {
		t.Fatal(err)
	}
	if rows != len(ns) || len(inserted) != len(ns) || active != int64(100*len(ns)) {
		t.Errorf("%d rows, %d inserted, activity %d ms; want %d, %d, %d", rows, len(inserted), active, len(ns), len(ns), 100*len(ns))
	}
	for id, c := range inserted {
		if c != 1 {
			t.Errorf("%s reported inserted %d times", id, c)
		}
	}
	if _, _, err := b.SaveJudgment(ctx, ns[0]); !errors.Is(err, store.ErrBatcherClosed) {
		t.Errorf("after Close: %v, want ErrBatcherClosed", err)
	}
}
