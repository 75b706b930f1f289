package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/consensus"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestCALBatchGrowsOnJudgments: a published cal pool, the judgment flow
// (judging → consensus → the CALTrigger listener) and a real River client
// running the cal-batch kind. Judging a query's batch adds the next,
// larger one (origin and round stored, relevance items created); the cap
// (cal.max) then ends the query; a repeated job adds nothing.
func TestCALBatchGrowsOnJudgments(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	log := quietLog()
	fx := judgingtest.NewWithRuns(t, st, 1)
	_, err := st.Import(ctx, fx.Project.ID, func(im *store.Importer) error {
		for i, text := range []string{"a bird of the Venezuelan Andes", "an Andean bird of Venezuela", "a comedy film set in Paris",
			"Paris comedy films", "granite rock", "a railway", "copper metal", "a steam engine"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("n%d", i), Title: text, Body: text, SentenceStarts: []int32{0}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	grower := pooling.NewCALGrower(st, log)
	jc := newClient(t, st, map[string]jobs.Kind{pooling.CALJobKind: jobs.CALBatch(grower)}, 1)
	cons := consensus.NewService(st, log)
	// The trigger's burst form (one read of the due queries for many
	// items, as server/app wires it) takes every refresh here.
	trigger := pooling.NewCALTrigger(st, jc, log)
	cons.AddItemListener(consensus.ItemListener(func(ctx context.Context, _, itemID int64) {
		trigger.ItemsChanged(ctx, []int64{itemID, itemID + 1<<40})
	}))
	t.Cleanup(cons.Close)
	js := judging.New(st, cons, log)

	rep, err := pooling.Create(ctx, st, fx.Project.ID, pooling.Spec{Name: "cal", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: pooling.CAL,
		CAL: pooling.CALParams{Batch: 2, Stop: pooling.CALStopNone, Max: 5}}, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PublishPool(ctx, rep.PoolID, fx.Users["researcher"].ID, 0); err != nil {
		t.Fatal(err)
	}
	q1 := fx.Queries["q1"]
	state := func() store.CALQuery {
		t.Helper()
		q, err := st.CALQueryState(ctx, rep.PoolID, q1)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	if s := state(); s.Round != 0 || s.BatchSize != 2 || s.Pending != 2 || s.State != store.CALActive {
		t.Fatalf("at start: %+v", s)
	}
	rater := judging.Rater{ID: fx.Users["annotator1"].ID, Role: vocab.RoleAnnotator}
	n := 0
	judgeAll := func() {
		t.Helper()
		for {
			q, err := js.Queue(ctx, rater, fx.Project.Name, judging.QueueRequest{Kind: vocab.KindRelevance, N: 10})
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Tasks) == 0 {
				return
			}
			for _, task := range q.Tasks {
				n++
				r, ev := 0, "none"
				if strings.Contains(strings.ToLower(task.Document.Title), "bird") || strings.Contains(strings.ToLower(task.Document.Title), "andean") {
					r, ev = 3, "complete"
				}
				req := judging.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n), AuthorID: rater.ID, ItemID: task.ItemID,
					Kind: vocab.KindRelevance, Relevance: &r, Evidence: ev}
				if _, err := js.Submit(ctx, rater, req); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	waitState := func(what string, ok func(store.CALQuery) bool) store.CALQuery {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := state()
			if ok(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %+v", what, s)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	judgeAll()
	s := waitState("round 1", func(s store.CALQuery) bool { return s.Round == 1 })
	// (The rater may already be judging the new batch: it enters the queue
	// as soon as it is added.)
	if s.BatchSize != 3 || s.Pending > 3 || s.State != store.CALActive {
		t.Errorf("after the first batch: %+v", s)
	}
	items, err := st.PoolItems(ctx, rep.PoolID)
	if err != nil {
		t.Fatal(err)
	}
	rounds := map[int]int{}
	for _, it := range items {
		if it.QueryExtID == "q1" {
			rounds[it.Round]++
			if it.Origin != pooling.OriginRuns && it.Origin != pooling.OriginCAL || (it.Origin == pooling.OriginRuns) != (len(it.Sources) > 0) {
				t.Errorf("item %+v: origin does not match its sources", it)
			}
		}
	}
	if rounds[0] != 2 || rounds[1] != 3 {
		t.Errorf("q1 items per round = %v, want 2 then 3", rounds)
	}
	// A job for a round that exists adds nothing.
	again, err := grower.Grow(ctx, fx.Project.ID, pooling.CALJobParams{PoolID: rep.PoolID, QueryID: q1, Round: 1})
	if err != nil || again.Added != 0 || again.Skipped == "" {
		t.Errorf("repeated job: %+v %v", again, err)
	}

	// Round 1 judged: 5 judgments reach cal.max 5, so the query stops.
	judgeAll()
	s = waitState("stopped by the cap", func(s store.CALQuery) bool { return s.State == store.CALStopped })
	if s.Round != 1 || !strings.Contains(s.Reason, "cap") {
		t.Errorf("stopped: %+v", s)
	}
	// Every job ends (q2 grows and stops the same way).
	var js2 []store.Job
	deadline := time.Now().Add(20 * time.Second)
	for {
		judgeAll()
		if js2, err = st.ListJobs(ctx, fx.Project.ID, 100); err != nil {
			t.Fatal(err)
		}
		busy := false
		for _, j := range js2 {
			busy = busy || !j.Finished()
		}
		q2, err := st.CALQueryState(ctx, rep.PoolID, fx.Queries["q2"])
		if err != nil {
			t.Fatal(err)
		}
		if !busy && q2.State == store.CALStopped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs still running or q2 still active: %+v", q2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var calJobs int
	for _, j := range js2 {
		if j.Kind == pooling.CALJobKind {
			calJobs++
			if j.State != vocab.JobDone {
				t.Errorf("job %+v", j)
			}
		}
	}
	// q1 and q2: round 1 each, then the job that stopped each (or grew q2).
	if calJobs < 4 {
		t.Errorf("%d cal-batch jobs, want at least 4", calJobs)
	}
}
