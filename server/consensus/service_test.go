package consensus_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
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
		ev := vocab.EvidencePartial
		_, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &label, Evidence: &ev, Contradiction: contradiction})
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

	res, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, consensus.AdjudicationRequest{Relevance: ptr(3), Note: "clearly in the Andes"})
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
	if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, consensus.AdjudicationRequest{Relevance: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	if r = refresh(); r.Row.Relevance != 1 {
		t.Errorf("second adjudication: %+v", r.Row)
	}
	if got := audits("adjudication.decide"); got != 2 {
		t.Errorf("%d adjudication audit entries, want 2", got)
	}
	for _, bad := range []consensus.AdjudicationRequest{{}, {Relevance: ptr(4)}, {Relevance: ptr(-1)}} {
		if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, item, bad); err == nil {
			t.Errorf("adjudication %+v accepted", bad)
		}
	}
	if _, _, err := svc.Adjudicate(ctx, fx.Users["researcher"].ID, fx.Paraphrase[0], consensus.AdjudicationRequest{Relevance: ptr(1)}); err == nil {
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
	rel, ev := int16(2), vocab.EvidenceNone
	if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-999999999999", ItemID: other,
		UserID: fx.Users["annotator1"].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev}); err != nil {
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

// recorder is a listener that keeps the last refresh of each item.
type recorder struct {
	mu   sync.Mutex
	last map[int64]consensus.Refreshed
}

func (r *recorder) ConsensusChanged(_ context.Context, _, itemID int64, ref consensus.Refreshed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[itemID] = ref
}

func (r *recorder) votes(itemID int64) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.last[itemID].Votes)
}

// TestObserverCloseAppliesQueued: judgments reported to the service (as
// the judging write path does) are refreshed and told to the listeners;
// Close applies every queued one before it returns, and a judgment
// reported after Close is refreshed by its caller.
func TestObserverCloseAppliesQueued(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	rec := &recorder{last: map[int64]consensus.Refreshed{}}
	svc.AddItemListener(rec)
	n := 0
	judge := func(item int64, user string) {
		t.Helper()
		n++
		label, ev := int16(2), vocab.EvidencePartial
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &label, Evidence: &ev}); err != nil {
			t.Fatal(err)
		}
		svc.JudgmentSaved(ctx, fx.Project.ID, item)
	}
	for _, item := range fx.Relevance {
		judge(item, "annotator1")
		judge(item, "annotator2")
	}
	svc.Close()
	for _, item := range fx.Relevance {
		if got := rec.votes(item); got != 2 {
			t.Errorf("item %d: listener saw %d votes after Close, want 2", item, got)
		}
		if r, err := st.ConsensusOf(ctx, item); err != nil || r.Votes != 2 {
			t.Errorf("item %d: stored consensus %+v (%v), want 2 votes", item, r, err)
		}
	}
	judge(fx.Relevance[0], "annotator3")
	if got := rec.votes(fx.Relevance[0]); got != 3 {
		t.Errorf("after Close: listener saw %d votes, want 3", got)
	}
	svc.Flush() // returns at once after Close
	svc.Close() // twice is fine
}

// counter is a listener that counts refreshes per item; the refresh of
// item hold waits until release is closed (a slow refresh keeping the
// worker busy).
type counter struct {
	mu      sync.Mutex
	n       map[int64]int
	hold    int64
	entered chan struct{} // closed when the refresh of hold has begun
	release chan struct{}
}

func (c *counter) ConsensusChanged(_ context.Context, _, itemID int64, _ consensus.Refreshed) {
	if itemID == c.hold {
		close(c.entered)
		<-c.release
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[itemID]++
}

func (c *counter) count(itemID int64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[itemID]
}

// TestBurstCoalescedPerItem: while the worker is busy, a burst of reports
// of one item (a crowd judging it, or retries) queues it once, so the
// queue does not fill with copies and no reporting request has to
// refresh the item itself; the refresh that runs afterwards reads every
// judgment reported before it. (Before, every report took a queue slot:
// past 1024 of them each reporter refreshed the item inline.)
func TestBurstCoalescedPerItem(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 3)
	svc := consensus.NewService(st, nil)
	busy, item := fx.Relevance[0], fx.Relevance[1]
	cnt := &counter{n: map[int64]int{}, hold: busy, entered: make(chan struct{}), release: make(chan struct{})}
	rec := &recorder{last: map[int64]consensus.Refreshed{}}
	svc.AddItemListener(cnt)
	svc.AddItemListener(rec)
	label, ev := int16(2), vocab.EvidencePartial
	for i, user := range []string{"annotator1", "annotator2"} {
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), ItemID: item,
			UserID: fx.Users[user].ID, ProjectID: fx.Project.ID, Kind: vocab.KindRelevance, Relevance: &label, Evidence: &ev}); err != nil {
			t.Fatal(err)
		}
	}
	// The worker takes the busy item and stays in its refresh.
	svc.JudgmentSaved(ctx, fx.Project.ID, busy)
	select {
	case <-cnt.entered:
	case <-time.After(time.Minute):
		t.Fatal("the busy item was not refreshed within a minute")
	}
	const reports = 3000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range reports {
			svc.JudgmentSaved(ctx, fx.Project.ID, item)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("reports blocked for a minute")
	}
	if got := cnt.count(item); got != 0 {
		t.Errorf("%d reports while the worker was busy: %d refreshed by their reporter, want 0 (queued once)", reports, got)
	}
	close(cnt.release)
	svc.Flush()
	if got := cnt.count(item); got != 1 {
		t.Errorf("after the worker was free: %d refreshes of the item, want 1", got)
	}
	if v := rec.votes(item); v != 2 {
		t.Errorf("its refresh saw %d votes, want 2", v)
	}
	svc.Close()
}
