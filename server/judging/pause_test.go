package judging_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestGoldPause: an annotator whose gold accuracy falls below the
// project's threshold (after enough gold items) gets no new items when
// the project pauses such raters, keeps the items already leased, and
// their judgments of those are still stored. Others are not affected,
// and without pause (or below the least number of gold items) nobody is
// paused.
func TestGoldPause(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	ctx := context.Background()
	// Gold items on (query, document) pairs the fixture has no item for.
	var gold []int64
	for _, pair := range [][2]string{{"q1", "d5"}, {"q1", "d6"}, {"q2", "d1"}, {"q2", "d2"}} {
		doc := fx.Documents[pair[1]]
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, QueryID: fx.Queries[pair[0]],
			DocumentID: &doc, IsGold: true, GoldAnswer: []byte(`{"relevance": 3}`)})
		if err != nil {
			t.Fatal(err)
		}
		gold = append(gold, it.ID)
	}
	researcher := fx.Users["researcher"].ID
	set := func(q store.QualitySettings) {
		t.Helper()
		if err := st.SetQualitySettings(ctx, fx.Project.ID, researcher, q); err != nil {
			t.Fatal(err)
		}
	}
	set(store.QualitySettings{GoldRate: 0.5, GoldMinAccuracy: 0.8, GoldMinJudged: 2, GoldPause: true})
	svc := judging.New(st, nil, nil)
	a1 := judging.Rater{ID: fx.Users["annotator1"].ID, Role: vocab.RoleAnnotator}
	a2 := judging.Rater{ID: fx.Users["annotator2"].ID, Role: vocab.RoleAnnotator}
	n := 0
	judge := func(r judging.Rater, item int64, rel int) error {
		n++
		_, err := svc.Submit(ctx, r, judging.JudgmentRequest{ClientID: fmt.Sprintf("7d2c1b4a-0e9f-4a8b-9c7d-%012d", n), ItemID: item,
			Kind: vocab.KindRelevance, Relevance: &rel, Evidence: vocab.EvidenceNone, AuthorID: r.ID})
		return err
	}
	q, err := svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 4})
	if err != nil {
		t.Fatal(err)
	}
	var goldLeased, regular []int64
	isGold := map[int64]bool{}
	for _, g := range gold {
		isGold[g] = true
	}
	for _, tk := range q.Tasks {
		if isGold[tk.ItemID] {
			goldLeased = append(goldLeased, tk.ItemID)
		} else {
			regular = append(regular, tk.ItemID)
		}
	}
	if q.Paused || len(goldLeased) != 2 || len(regular) != 2 {
		t.Fatalf("first queue: paused %v, %d gold and %d regular tasks; want not paused, 2 and 2", q.Paused, len(goldLeased), len(regular))
	}
	// One gold item right: 1 of 1 judged is under the least number (2).
	if err := judge(a1, goldLeased[0], 3); err != nil {
		t.Fatal(err)
	}
	if q, err = svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 4}); err != nil || q.Paused {
		t.Fatalf("after 1 gold item: paused %v, %v", q.Paused, err)
	}
	// The second wrong (binarised: 1 is not relevant, gold 3 is): 1 of 2
	// = 50 % < 80 %.
	if err := judge(a1, goldLeased[1], 1); err != nil {
		t.Fatal(err)
	}
	if g, err := st.GoldRecordOf(ctx, fx.Project.ID, a1.ID); err != nil || g != (store.GoldRecord{Judged: 2, Correct: 1}) {
		t.Fatalf("gold record = %+v, %v; want 2 judged, 1 correct", g, err)
	}
	q, err = svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 6})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Paused || q.PauseReason == "" {
		t.Fatalf("below the threshold: paused %v (%q)", q.Paused, q.PauseReason)
	}
	// Issue 25: "1 times out of 2" read badly.
	if !strings.Contains(q.PauseReason, "on 1 of the 2 check items you judged") {
		t.Errorf("pause reason %q, want the count as 1 of the 2 check items", q.PauseReason)
	}
	// Only what was leased before (the two regular items and whatever
	// the previous, unpaused queue calls added), nothing new.
	before := map[int64]bool{}
	for _, id := range regular {
		before[id] = true
	}
	var held []int64
	if err := st.Pool().QueryRow(ctx, `SELECT array_agg(item_id ORDER BY item_id) FROM assignments WHERE user_id = $1 AND status = 'leased'`, a1.ID).Scan(&held); err != nil {
		t.Fatal(err)
	}
	if len(q.Tasks) != len(held) {
		t.Errorf("paused queue returned %d tasks, the rater holds %d leases", len(q.Tasks), len(held))
	}
	var leases int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM assignments WHERE user_id = $1`, a1.ID).Scan(&leases); err != nil {
		t.Fatal(err)
	}
	again, err := svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 10})
	if err != nil || !again.Paused {
		t.Fatalf("second paused queue: %+v, %v", again.Paused, err)
	}
	var leases2 int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM assignments WHERE user_id = $1`, a1.ID).Scan(&leases2); err != nil {
		t.Fatal(err)
	}
	if leases2 != leases {
		t.Errorf("a paused rater got new leases: %d assignments, before %d", leases2, leases)
	}
	// Work already assigned is still accepted.
	for _, tk := range q.Tasks {
		if err := judge(a1, tk.ItemID, 2); err != nil {
			t.Errorf("judging leased item %d while paused: %v", tk.ItemID, err)
		}
	}
	if q, err = svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 4}); err != nil || !q.Paused || len(q.Tasks) != 0 || q.CompletionCode != "" {
		t.Errorf("paused, all judged: %+v, %v; want paused, no tasks, no completion code", q, err)
	}
	// Another annotator is not paused.
	if q, err = svc.Queue(ctx, a2, fx.Project.Name, judging.QueueRequest{N: 2}); err != nil || q.Paused || len(q.Tasks) == 0 {
		t.Errorf("annotator2: paused %v, %d tasks, %v", q.Paused, len(q.Tasks), err)
	}
	// Pause off: flagged only, annotator1 gets work again.
	set(store.QualitySettings{GoldRate: 0.5, GoldMinAccuracy: 0.8, GoldMinJudged: 2, GoldPause: false})
	if q, err = svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 2}); err != nil || q.Paused || len(q.Tasks) == 0 {
		t.Errorf("pause off: paused %v, %d tasks, %v", q.Paused, len(q.Tasks), err)
	}
	// A higher least number of gold items than judged: not paused.
	g, err := st.GoldRecordOf(ctx, fx.Project.ID, a1.ID)
	if err != nil || !store.BelowGold(store.QualitySettings{GoldMinAccuracy: 0.8, GoldMinJudged: 2}, g) {
		t.Fatalf("gold record %+v (%v) should be below 80 %%", g, err)
	}
	set(store.QualitySettings{GoldRate: 0.5, GoldMinAccuracy: 0.8, GoldMinJudged: g.Judged + 1, GoldPause: true})
	if q, err = svc.Queue(ctx, a1, fx.Project.Name, judging.QueueRequest{N: 2}); err != nil || q.Paused {
		t.Errorf("%d gold items needed, %d judged: paused %v, %v", g.Judged+1, g.Judged, q.Paused, err)
	}
}
