package consensus_test

import (
	"context"
	"fmt"
	"testing"

	"boolpool/server/consensus"
	"boolpool/server/judging/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/web/api"
)

func TestRefreshAdjudicateQueue(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	item := fx.Relevance[0]
	n := 0
	judge := func(user string, label int16, contradiction bool) {
		t.Helper()
		n++
		ev := api.EvidencePartial
		_, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: api.KindRelevance, Relevance: &label, Evidence: &ev, Contradiction: contradiction})
		if err != nil {
			t.Fatal(err)
		}
	}
	refresh := func() consensus.Refreshed {
		t.Helper()
		r, err := svc.Refresh(ctx, item)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	audits := func(action string) int {
		t.Helper()
		var k int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = $1 AND entity_id = $2`, action, fmt.Sprint(item)).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}

	if r := refresh(); r.OK || r.Changed {
		t.Fatalf("no judgments: %+v", r)
	}
	judge("annotator1", 3, false)
	judge("annotator2", 2, false)
	if r := refresh(); !r.OK || !r.Changed || r.Row.Status != consensus.StatusUnanimous || r.Row.Relevance != 2 || r.Row.NeedsAdjudication {
		t.Fatalf("two relevant votes: %+v", r.Row)
	}
	if r := refresh(); r.Changed {
		t.Error("a refresh without news changed the row")
	}
	judge("annotator3", 0, false)
	r := refresh()
	if r.Row.Status != consensus.StatusMajority || r.Row.Relevance != 2 || !r.Row.NeedsAdjudication || r.Row.Votes != 3 {
		t.Fatalf("2 of 3 relevant: %+v", r.Row)
	}
	// annotator2 corrects to not relevant: the newest judgment counts.
	judge("annotator2", 1, false)
	if r = refresh(); r.Row.Relevance != 1 || r.Row.RelevantVotes != 1 {
		t.Fatalf("after a correction: %+v", r.Row)
	}
	if got := audits("consensus.update"); got != 3 {
		t.Errorf("%d consensus.update audit entries, want 3 (one per change)", got)
	}
	q, err := svc.Queue(ctx, fx.Project.ID, 10, 0)
	if err != nil || q.Total != 1 || q.Items[0].ItemID != item || len(q.Items[0].Judgments) != 3 || q.Items[0].Document == nil {
		t.Fatalf("queue %+v (%v)", q, err)
	}

	res, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, api.AdjudicationRequest{Relevance: ptr(3), Note: "clearly in the Andes"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Consensus.Status != consensus.StatusAdjudicated || res.Consensus.Relevance != 3 || res.Consensus.NeedsAdjudication {
		t.Errorf("adjudicated: %+v", res.Consensus)
	}
	if q, _ := svc.Queue(ctx, fx.Project.ID, 10, 0); q.Total != 0 {
		t.Errorf("queue after adjudication: %d items", q.Total)
	}
	// A later judgment does not undo the decision; a later decision does.
	judge("annotator3", 0, true)
	if r = refresh(); r.Row.Status != consensus.StatusAdjudicated || r.Row.Relevance != 3 || r.Row.Contradictions != 1 {
		t.Errorf("judgment after adjudication: %+v", r.Row)
	}
	if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, api.AdjudicationRequest{Relevance: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	if r = refresh(); r.Row.Relevance != 1 {
		t.Errorf("second adjudication: %+v", r.Row)
	}
	if got := audits("adjudication.decide"); got != 2 {
		t.Errorf("%d adjudication audit entries, want 2", got)
	}
	for _, bad := range []api.AdjudicationRequest{{}, {Relevance: ptr(4)}, {Relevance: ptr(-1)}} {
		if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, bad); err == nil {
			t.Errorf("adjudication %+v accepted", bad)
		}
	}
	if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, fx.Paraphrase[0], api.AdjudicationRequest{Relevance: ptr(1)}); err == nil {
		t.Error("a paraphrase item was adjudicated")
	}

	if stale, err := st.ConsensusStale(ctx, fx.Project.ID); err != nil || stale {
		t.Errorf("stale after per-item refreshes: %v (%v)", stale, err)
	}
	// Sync finds nothing to change after per-item refreshes ...
	if changed, err := svc.Sync(ctx, fx.Project.ID); err != nil || changed != 0 {
		t.Errorf("sync after refreshes: %d changed (%v)", changed, err)
	}
	// ... and repairs a row that went stale.
	if _, err := st.Pool().Exec(ctx, `UPDATE consensus SET relevance = 0 WHERE item_id = $1`, item); err != nil {
		t.Fatal(err)
	}
	if changed, err := svc.Sync(ctx, fx.Project.ID); err != nil || changed != 1 {
		t.Errorf("sync of a stale row: %d changed (%v)", changed, err)
	}
	if row, _ := st.ConsensusOf(ctx, item); row.Relevance != 1 || row.AdjudicationID == nil {
		t.Errorf("after sync: %+v", row)
	}
	// A correction that does not change the consensus, with its refresh
	// lost, is caught once and then no longer counts as stale.
	judge("annotator3", 0, true)
	if changed, err := svc.SyncIfStale(ctx, fx.Project.ID); err != nil || changed != 0 {
		t.Errorf("SyncIfStale after a no-op correction: %d changed (%v)", changed, err)
	}
	if stale, _ := st.ConsensusStale(ctx, fx.Project.ID); stale {
		t.Error("still stale after a sync")
	}
	// A judgment whose refresh was lost makes the project stale, and
	// SyncIfStale catches it.
	other := fx.Relevance[1]
	rel, ev := int16(2), api.EvidenceNone
	if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-999999999999", ItemID: other,
		UserID: fx.Users["annotator1"].ID, ProjectID: fx.Project.ID, Kind: api.KindRelevance, Relevance: &rel, Evidence: &ev}); err != nil {
		t.Fatal(err)
	}
	if stale, err := st.ConsensusStale(ctx, fx.Project.ID); err != nil || !stale {
		t.Errorf("not stale after an unrefreshed judgment: %v (%v)", stale, err)
	}
	if changed, err := svc.SyncIfStale(ctx, fx.Project.ID); err != nil || changed != 1 {
		t.Errorf("SyncIfStale: %d changed (%v)", changed, err)
	}
	if changed, err := svc.SyncIfStale(ctx, fx.Project.ID); err != nil || changed != 0 {
		t.Errorf("second SyncIfStale: %d changed (%v)", changed, err)
	}
}

func ptr(n int) *int { return &n }
