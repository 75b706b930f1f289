package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestBatchLeaseTakesWhatOneByOneTakes: a fetch of four new tasks (one
// candidate scan, migration 0099) leases the same items in the same order
// as four fetches of one more each (the step-by-step lease), and each lease
// comes back with its own item, query and document (one joined statement).
func TestBatchLeaseTakesWhatOneByOneTakes(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	if len(fx.Relevance) < 5 {
		t.Fatalf("fixture has %d relevance items, want at least 5", len(fx.Relevance))
	}
	p := store.LeaseParams{ProjectID: fx.Project.ID, Kind: "relevance", N: 4, Raters: 2, Lease: time.Minute}
	p.UserID = fx.Users["annotator1"].ID
	batch, tds, pr, err := st.LeaseTasks(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var stepped []store.Assignment
	q := p
	q.UserID = fx.Users["annotator2"].ID
	for n := 1; n <= 4; n++ {
		q.N = n
		if stepped, err = st.Lease(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	items := func(as []store.Assignment) []int64 {
		var ids []int64
		for _, a := range as {
			ids = append(ids, a.ItemID)
		}
		return ids
	}
	want := fx.Relevance[:4] // the fixture's relevance items, in priority order
	if !slices.Equal(items(batch), want) || !slices.Equal(items(stepped), want) {
		t.Errorf("batch leased %v, one by one %v; want %v (priority order)", items(batch), items(stepped), want)
	}
	if pr.Leased != 4 || pr.Done != 0 {
		t.Errorf("progress %+v, want 4 leased, 0 done", pr)
	}
	if len(tds) != len(batch) {
		t.Fatalf("%d task data for %d leases", len(tds), len(batch))
	}
	for i, td := range tds {
		if td.Item.ID != batch[i].ItemID || td.Query.ID != td.Item.QueryID || td.Query.Text == "" ||
			td.Document == nil || td.Item.DocumentID == nil || td.Document.ID != *td.Item.DocumentID || td.Document.Body == "" {
			t.Errorf("lease %d (item %d): task data item %d, query %d (item's %d), document %+v", i, batch[i].ItemID, td.Item.ID, td.Query.ID, td.Item.QueryID, td.Document)
		}
	}

	// A kind without documents: the LEFT JOIN leaves Document nil.
	pp := store.LeaseParams{ProjectID: fx.Project.ID, UserID: p.UserID, Kind: "paraphrase", N: 2, Raters: 1, Lease: time.Minute}
	pas, ptds, _, err := st.LeaseTasks(ctx, pp)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(items(pas), fx.Paraphrase[:2]) {
		t.Errorf("paraphrase batch %v, want %v", items(pas), fx.Paraphrase[:2])
	}
	for i, td := range ptds {
		if td.Document != nil || td.Item.ID != pas[i].ItemID || td.Query.ID != td.Item.QueryID {
			t.Errorf("paraphrase lease %d: %+v", i, td)
		}
	}
}

// TestAssignedTaskInOneStatement: the submit's read (item, query,
// document, the rater's assignment, membership, one statement) tells an
// assigned item from one never assigned, a member from a non-member, and
// a missing item from both.
func TestAssignedTaskInOneStatement(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u := fx.Users["annotator1"].ID
	as, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 1, Raters: 2, Lease: time.Minute})
	if err != nil || len(as) != 1 {
		t.Fatalf("lease: %v %v", as, err)
	}
	td, a, err := st.AssignedTask(ctx, as[0].ItemID, u)
	if err != nil {
		t.Fatal(err)
	}
	if a == nil || a.ID != as[0].ID || a.Status != store.AssignLeased || !td.Member || td.Item.ID != as[0].ItemID ||
		td.Query.ID != td.Item.QueryID || td.Document == nil || td.Document.ID != *td.Item.DocumentID {
		t.Errorf("assigned item: %+v, assignment %+v", td, a)
	}
	other := fx.Relevance[3]
	td, a, err = st.AssignedTask(ctx, other, u)
	if err != nil || a != nil || !td.Member || td.Item.ID != other {
		t.Errorf("item never assigned: assignment %+v, member %v, item %d, err %v", a, td.Member, td.Item.ID, err)
	}
	para := fx.Paraphrase[0]
	td, a, err = st.AssignedTask(ctx, para, u)
	if err != nil || a != nil || td.Document != nil || td.Item.ID != para {
		t.Errorf("paraphrase item: document %+v, assignment %+v, err %v", td.Document, a, err)
	}
	outsider := judgingtest.Annotators(t, st, "outsider", 1)[0]
	if td, _, err = st.AssignedTask(ctx, other, outsider); err != nil || td.Member {
		t.Errorf("non-member: member %v, err %v", td.Member, err)
	}
	if _, _, err := st.AssignedTask(ctx, 1<<40, u); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("missing item: %v, want ErrNotFound", err)
	}
}

// TestProgressCounterFollowsAssignments: the rater's done and skipped
// counts (a counter kept by a trigger, migration 0099) equal a count over
// their assignments after judgments, a skip, a correction of a judgment
// into a skip, and a deleted assignment; other raters, kinds and leases do
// not move them.
func TestProgressCounterFollowsAssignments(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	ctx := context.Background()
	u, other := fx.Users["annotator1"].ID, fx.Users["annotator2"].ID
	p := store.LeaseParams{ProjectID: fx.Project.ID, UserID: u, Kind: "relevance", N: 4, Raters: 2, Lease: time.Minute}
	as, err := st.Lease(ctx, p)
	if err != nil || len(as) != 4 {
		t.Fatalf("lease: %v %v", as, err)
	}
	if _, err := st.Lease(ctx, store.LeaseParams{ProjectID: fx.Project.ID, UserID: other, Kind: "relevance", N: 2, Raters: 2, Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	rel := int16(1)
	judge := func(who, item int64, client, skip string) {
		t.Helper()
		n := store.NewJudgment{ClientID: client, ItemID: item, UserID: who, ProjectID: fx.Project.ID, Kind: "relevance", TimeSpentMs: 10, SkipReason: skip}
		if skip == "" {
			n.Relevance = &rel
		}
		if _, _, err := st.SaveJudgment(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, wantDone, wantSkipped, wantLeased int) {
		t.Helper()
		pr, err := st.ProgressOf(ctx, u, fx.Project.ID, "relevance")
		if err != nil {
			t.Fatal(err)
		}
		var done, skipped int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FILTER (WHERE a.status = 'done'), count(*) FILTER (WHERE a.status = 'skipped')
			FROM assignments a JOIN items i ON i.id = a.item_id WHERE a.user_id = $1 AND i.project_id = $2 AND i.kind = 'relevance'`,
			u, fx.Project.ID).Scan(&done, &skipped); err != nil {
			t.Fatal(err)
		}
		if pr.Done != done || pr.Skipped != skipped || pr.Done != wantDone || pr.Skipped != wantSkipped || pr.Leased != wantLeased {
			t.Errorf("%s: progress done %d skipped %d leased %d; assignments say done %d skipped %d; want %d, %d, %d",
				step, pr.Done, pr.Skipped, pr.Leased, done, skipped, wantDone, wantSkipped, wantLeased)
		}
	}
	check("leased only", 0, 0, 4)
	judge(u, as[0].ItemID, "00000000-0000-4000-8000-000000000001", "")
	judge(u, as[1].ItemID, "00000000-0000-4000-8000-000000000002", "")
	judge(u, as[2].ItemID, "00000000-0000-4000-8000-000000000003", "cannot read it")
	judge(other, as[0].ItemID, "00000000-0000-4000-8000-000000000004", "")
	check("two judged, one skipped", 2, 1, 1)
	// A correction that keeps the item done changes nothing; one that
	// skips it moves it from done to skipped.
	judge(u, as[0].ItemID, "00000000-0000-4000-8000-000000000005", "")
	check("corrected", 2, 1, 1)
	judge(u, as[1].ItemID, "00000000-0000-4000-8000-000000000006", "changed my mind")
	check("corrected into a skip", 1, 2, 1)
	if _, err := st.Pool().Exec(ctx, `DELETE FROM assignments WHERE id = $1`, as[2].ID); err != nil {
		t.Fatal(err)
	}
	check("skipped assignment deleted", 1, 1, 1)
	// Another kind of the same project has its own counter.
	if pr, err := st.ProgressOf(ctx, u, fx.Project.ID, "paraphrase"); err != nil || pr.Done != 0 || pr.Skipped != 0 {
		t.Errorf("paraphrase progress %+v, %v; want nothing done", pr, err)
	}
}
