package live_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/live"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// project is a small judged project built with the store's own functions.
type project struct {
	st    *store.Store
	id    int64
	items []int64
	users []int64
}

func newProject(t *testing.T) project {
	t.Helper()
	ctx := context.Background()
	st, p := storetest.NewProject(t, "livetest")
	qids := map[string]int64{}
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for q := range 6 {
			for d := range 8 {
				ext := fmt.Sprintf("q%d-d%d", q, d)
				if err := im.Document(ctx, store.DocumentIn{ExtID: ext, Title: ext, Body: "One sentence. Two sentences.", SentenceStarts: []int32{0, 14}}); err != nil {
					return err
				}
			}
			id, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("q%d", q), Text: "query", Template: []string{"_", "_ and _"}[q%2], Seq: q})
			if err != nil {
				return err
			}
			qids[fmt.Sprintf("q%d", q)] = id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pr := project{st: st, id: p.ID}
	for _, run := range []string{"a", "b", "c"} {
		var res []store.RunResultIn
		for q := range 6 {
			for rank, d := range rand.New(rand.NewPCG(uint64(q), uint64(run[0]))).Perm(8)[:6] {
				res = append(res, store.RunResultIn{QueryID: qids[fmt.Sprintf("q%d", q)], DocExtID: fmt.Sprintf("q%d-d%d", q, d), Rank: rank + 1, Score: float64(10 - rank)})
			}
		}
		if _, err := st.SaveRun(ctx, p.ID, run, "test", nil, res); err != nil {
			t.Fatal(err)
		}
	}
	for q := range 6 {
		for d := range 8 {
			doc, err := st.DocumentByExtID(ctx, p.ID, fmt.Sprintf("q%d-d%d", q, d))
			if err != nil {
				t.Fatal(err)
			}
			n := store.NewItem{ProjectID: p.ID, Kind: vocab.KindRelevance, QueryID: qids[fmt.Sprintf("q%d", q)], DocumentID: &doc.ID}
			if d == 7 {
				n.IsGold, n.GoldAnswer = true, json.RawMessage(`{"relevance": 3}`)
			}
			it, err := st.CreateItem(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			pr.items = append(pr.items, it.ID)
		}
	}
	for u := range 5 {
		usr, err := st.CreateUser(ctx, store.NewUser{Username: fmt.Sprintf("rater%d", u), Role: vocab.RoleAnnotator})
		if err != nil {
			t.Fatal(err)
		}
		pr.users = append(pr.users, usr.ID)
	}
	return pr
}

// TestServiceMatchesRecompute judges through the store in random order
// (new labels, corrections, skips, adjudications), tells the service about
// each change like the judging write path does, and checks the live
// figures and the consensus table against a fresh load recomputed from
// scratch.
func TestServiceMatchesRecompute(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := live.NewService(p.st, live.NewHub(4), time.Millisecond, log)
	defer svc.Close()
	cons := consensus.NewService(p.st, log)
	cons.AddItemListener(svc)
	defer cons.Close()
	rng := rand.New(rand.NewPCG(9, 9))
	// Some judgments before anyone watches: the first load must see them.
	judge := func(i int) {
		item := p.items[rng.IntN(len(p.items))]
		user := p.users[rng.IntN(len(p.users))]
		if rng.IntN(20) == 0 {
			if _, _, err := cons.Adjudicate(ctx, user, item, consensus.AdjudicationRequest{Relevance: ptr(rng.IntN(4)), Note: "test"}); err != nil {
				t.Fatal(err)
			}
			return
		}
		n := store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), ItemID: item, UserID: user, ProjectID: p.id, Kind: vocab.KindRelevance}
		if rng.IntN(10) == 0 {
			n.SkipReason = "unsure"
		} else {
			rel := int16([]int{0, 1, 2, 3, 3}[rng.IntN(5)])
			ev := vocab.EvidencePartial
			n.Relevance, n.Evidence, n.Contradiction = &rel, &ev, rng.IntN(10) == 0
		}
		if _, _, err := p.st.SaveJudgment(ctx, n); err != nil {
			t.Fatal(err)
		}
		cons.JudgmentSaved(ctx, p.id, item)
	}
	for i := range 40 {
		judge(i)
	}
	if _, err := svc.Snapshot(ctx, p.id, "livetest"); err != nil {
		t.Fatal(err)
	}
	for i := 40; i < 400; i++ {
		judge(i)
		if i%90 == 0 || i == 399 {
			cons.Flush()
			got, err := svc.Snapshot(ctx, p.id, "livetest")
			if err != nil {
				t.Fatal(err)
			}
			d, err := live.LoadData(ctx, p.st, p.id)
			if err != nil {
				t.Fatal(err)
			}
			want := live.Recompute("livetest", d)
			same(t, fmt.Sprint("after ", i), got, want)
			checkConsensusTable(t, p, d)
		}
	}
}

// TestServiceReloadsStaleState: a run saved after the state was loaded
// shows up on the next request.
func TestServiceReloadsStaleState(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	svc := live.NewService(p.st, live.NewHub(4), time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer svc.Close()
	svc.SetStaleCheck(0)
	snap, err := svc.Snapshot(ctx, p.id, "livetest")
	if err != nil || len(snap.Leaderboard) != 3 {
		t.Fatalf("first snapshot: %d runs (%v)", len(snap.Leaderboard), err)
	}
	q, err := p.st.ProjectQueries(ctx, p.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.st.SaveRun(ctx, p.id, "late", "test", nil, []store.RunResultIn{{QueryID: q[0].ID, DocExtID: "q0-d1", Rank: 1, Score: 1}}); err != nil {
		t.Fatal(err)
	}
	if snap, err = svc.Snapshot(ctx, p.id, "livetest"); err != nil || len(snap.Leaderboard) != 4 {
		t.Fatalf("after a new run: %d runs (%v)", len(snap.Leaderboard), err)
	}
}

func ptr(n int) *int { return &n }

// same compares the figures that matter; the pure tests compare every field.
func same(t *testing.T, label string, got, want live.Snapshot) {
	t.Helper()
	if got.Consensus != want.Consensus {
		t.Errorf("%s: consensus %+v, want %+v", label, got.Consensus, want.Consensus)
	}
	near := func(name string, a, b *float64) {
		if (a == nil) != (b == nil) || (a != nil && math.Abs(*a-*b) > 1e-9) {
			t.Errorf("%s: %s = %v, want %v", label, name, deref(a), deref(b))
		}
	}
	near("alpha ordinal", got.Agreement.AlphaOrdinal, want.Agreement.AlphaOrdinal)
	near("alpha nominal", got.Agreement.AlphaNominal, want.Agreement.AlphaNominal)
	near("fleiss", got.Agreement.FleissKappa, want.Agreement.FleissKappa)
	near("gwet", got.Agreement.GwetAC1, want.Agreement.GwetAC1)
	near("unanimous", got.Agreement.Unanimous, want.Agreement.Unanimous)
	if len(got.Leaderboard) != len(want.Leaderboard) {
		t.Fatalf("%s: %d leaderboard rows, want %d", label, len(got.Leaderboard), len(want.Leaderboard))
	}
	byRun := map[string]live.RunScores{}
	for _, r := range want.Leaderboard {
		byRun[r.Run] = r
	}
	for _, r := range got.Leaderboard {
		w := byRun[r.Run]
		for i, sc := range r.Scores {
			near(r.Run+" "+sc.Measure, sc.Mean, w.Scores[i].Mean)
			near(r.Run+" "+sc.Measure+" low", sc.Low, w.Scores[i].Low)
			near(r.Run+" "+sc.Measure+" high", sc.High, w.Scores[i].High)
		}
	}
	if got.Progress.Judged != want.Progress.Judged || got.Contradictions.Total != want.Contradictions.Total {
		t.Errorf("%s: progress %d / contradictions %d, want %d / %d", label, got.Progress.Judged, got.Contradictions.Total, want.Progress.Judged, want.Contradictions.Total)
	}
	if len(got.Annotators) != len(want.Annotators) {
		t.Errorf("%s: %d annotators, want %d", label, len(got.Annotators), len(want.Annotators))
	}
	for i := range min(len(got.Annotators), len(want.Annotators)) {
		near("gold exact "+got.Annotators[i].Username, got.Annotators[i].GoldExact, want.Annotators[i].GoldExact)
		near("kappa "+got.Annotators[i].Username, got.Annotators[i].Kappa, want.Annotators[i].Kappa)
	}
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

// checkConsensusTable compares the stored consensus with the rules
// applied to the loaded votes.
func checkConsensusTable(t *testing.T, p project, d live.Data) {
	t.Helper()
	ctx := context.Background()
	want := map[int64]store.ConsensusRow{}
	for _, r := range live.ConsensusRows(d) {
		want[r.ItemID] = r
	}
	for _, id := range p.items {
		got, err := p.st.ConsensusOf(ctx, id)
		w, ok := want[id]
		if !ok {
			if err == nil {
				t.Errorf("item %d: stored consensus %+v, want none", id, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("item %d: %v", id, err)
			continue
		}
		if got.Relevance != w.Relevance || got.Status != w.Status || got.Votes != w.Votes || got.NeedsAdjudication != w.NeedsAdjudication {
			t.Errorf("item %d: stored %+v, want %+v", id, got, w)
		}
		if w.Status == consensus.StatusAdjudicated && got.AdjudicationID == nil {
			t.Errorf("item %d: adjudicated without adjudication id", id)
		}
	}
}

func TestHubDropsSlowSubscribers(t *testing.T) {
	h := live.NewHub(2)
	fast, slow := h.Subscribe(1), h.Subscribe(1)
	other := h.Subscribe(2)
	for i := range 5 {
		delivered, _ := h.Publish(1, live.Snapshot{Version: uint64(i)})
		if i < 2 && delivered != 2 {
			t.Fatalf("publish %d delivered to %d", i, delivered)
		}
		<-fast.C // the fast one keeps up
	}
	if _, open := <-slow.C; !open {
		t.Fatal("slow subscriber lost its buffered messages")
	}
	n := 0
	for range slow.C {
		n++
	}
	if n != 1 { // 2 buffered, 1 read above, then closed
		t.Errorf("slow subscriber: %d more messages before close, want 1", n)
	}
	if h.Subscribers(1) != 1 || h.Subscribers(2) != 1 {
		t.Errorf("subscribers: %d and %d, want 1 and 1", h.Subscribers(1), h.Subscribers(2))
	}
	if d, _ := h.Publish(2, live.Snapshot{Project: "x"}); d != 1 || (<-other.C).Project != "x" {
		t.Error("other project did not get its message")
	}
	h.Unsubscribe(slow) // already dropped: a no-op
	h.Unsubscribe(fast)
	if _, open := <-fast.C; open {
		t.Error("unsubscribed channel not closed")
	}
}

// TestCloseStopsScheduledPublish: a dashboard update schedules a publish
// after the throttle; Close cancels it and returns without waiting for it
// (an hour here), and nothing is published afterwards.
func TestCloseStopsScheduledPublish(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := live.NewService(p.st, live.NewHub(4), time.Hour, log)
	cons := consensus.NewService(p.st, log)
	cons.AddItemListener(svc)
	defer cons.Close()
	sub, _, err := svc.Subscribe(ctx, p.id, "livetest")
	if err != nil {
		t.Fatal(err)
	}
	rel, ev := int16(3), vocab.EvidencePartial
	if _, _, err := p.st.SaveJudgment(ctx, store.NewJudgment{ClientID: "00000000-0000-4000-8000-000000000001", ItemID: p.items[0],
		UserID: p.users[0], ProjectID: p.id, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev}); err != nil {
		t.Fatal(err)
	}
	if err := cons.ItemChanged(ctx, p.id, p.items[0]); err != nil { // applied, publish scheduled
		t.Fatal(err)
	}
	svc.Close()
	svc.Hub().CloseAll()
	for msg := range sub.C {
		t.Errorf("published after Close: version %d", msg.Version)
	}
}
