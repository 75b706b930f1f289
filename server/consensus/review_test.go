package consensus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"boolpool/internal/judgingtest"
	"boolpool/server/apperr"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// recordingListener remembers the items it was told about.
type recordingListener struct {
	mu    sync.Mutex
	items []int64
}

func (l *recordingListener) ConsensusChanged(_ context.Context, _, itemID int64, _ consensus.Refreshed) {
	l.mu.Lock()
	l.items = append(l.items, itemID)
	l.mu.Unlock()
}

// TestReviewCorrectionIsAnAdjudication: an acceptance leaves the consensus
// alone; a correction becomes the item's consensus (status adjudicated,
// out of the adjudication queue), the listeners hear of it, the annotator's
// judgment is kept, and a later judgment does not undo it, as with any
// adjudication.
func TestReviewCorrectionIsAnAdjudication(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	l := &recordingListener{}
	svc.AddItemListener(l)
	item := fx.Relevance[0]
	ids := map[string]int64{}
	n := 0
	judge := func(user string, label int16) {
		t.Helper()
		n++
		ev := vocab.EvidencePartial
		j, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &label, Evidence: &ev})
		if err != nil {
			t.Fatal(err)
		}
		ids[user] = j.ID
		if _, err := svc.Refresh(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	judge("annotator1", 3)
	judge("annotator2", 2)
	judge("annotator3", 0)
	researcher := fx.Users["researcher"].ID

	res, err := svc.Review(ctx, researcher, ids["annotator2"], consensus.ReviewRequest{Verdict: vocab.ReviewAccept, Note: "fine"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Consensus.Status != consensus.StatusMajority || res.Consensus.Relevance != 2 || !res.Consensus.NeedsAdjudication || len(l.items) != 0 {
		t.Fatalf("after an acceptance: %+v, listeners told %v", res.Consensus, l.items)
	}

	zero := 0
	res, err = svc.Review(ctx, researcher, ids["annotator1"], consensus.ReviewRequest{Verdict: vocab.ReviewCorrect, Relevance: &zero, Note: "No Andes here."})
	if err != nil {
		t.Fatal(err)
	}
	if res.Consensus.Status != consensus.StatusAdjudicated || res.Consensus.Relevance != 0 || res.Consensus.NeedsAdjudication ||
		res.Consensus.Votes != 3 || res.Review.AdjudicationID == nil || fmt.Sprint(l.items) != fmt.Sprint([]int64{item}) {
		t.Fatalf("after a correction: %+v (review %+v), listeners told %v", res.Consensus, res.Review, l.items)
	}
	q, err := svc.Queue(ctx, fx.Project.ID, 50, 0)
	if err != nil || q.Total != 0 {
		t.Errorf("adjudication queue after the correction: %d (err %v)", q.Total, err)
	}
	adj, err := svc.Item(ctx, item)
	if err != nil {
		t.Fatal(err)
	}
	if len(adj.Adjudications) != 1 || adj.Adjudications[0].Note != fmt.Sprintf("Correction of judgment %d: No Andes here.", ids["annotator1"]) {
		t.Errorf("adjudications: %+v", adj.Adjudications)
	}
	for _, j := range adj.Judgments {
		if j.ID == ids["annotator1"] && j.Relevance != 3 {
			t.Errorf("annotator1's judgment changed to %d", j.Relevance)
		}
	}

	// annotator1 judges again: the correction still stands.
	judge("annotator1", 3)
	row, err := st.ConsensusOf(ctx, item)
	if err != nil || row.Status != consensus.StatusAdjudicated || row.Relevance != 0 {
		t.Errorf("after annotator1 judged again: %+v (err %v)", row, err)
	}
	d, err := svc.Detail(ctx, item)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Superseded) != 1 || d.Superseded[0].ID != res.Review.JudgmentID || len(d.Reviews) != 2 || d.Reviews[1].Current {
		t.Errorf("detail: superseded %+v, reviews %+v", d.Superseded, d.Reviews)
	}

	// Bad requests name their field and store nothing.
	for _, tc := range []struct {
		req   consensus.ReviewRequest
		field string
	}{
		{consensus.ReviewRequest{Verdict: "reject"}, "verdict"},
		{consensus.ReviewRequest{Verdict: vocab.ReviewCorrect, Note: "x"}, "relevance"},
		{consensus.ReviewRequest{Verdict: vocab.ReviewCorrect, Relevance: &zero}, "note"},
		{consensus.ReviewRequest{Verdict: vocab.ReviewAccept, Relevance: &zero}, "relevance"},
	} {
		_, err := svc.Review(ctx, researcher, ids["annotator3"], tc.req)
		var inv *apperr.Invalid
		if !errors.As(err, &inv) || inv.Field != tc.field {
			t.Errorf("%+v: %v, want an error on %s", tc.req, err, tc.field)
		}
	}
}
