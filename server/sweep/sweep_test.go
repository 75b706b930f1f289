package sweep_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/atompool"
	"boolpool/server/config"
	"boolpool/server/consensus"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// newApp builds and starts a server or worker over st, as the processes
// do (server/app starts its sweeper), and closes it at the test's end.
func newApp(t *testing.T, st *store.Store, opts app.Options) *app.App {
	return apptest.New(t, config.Config{SessionTTL: time.Hour}, st, slog.New(slog.DiscardHandler), opts)
}

// crashedJudge judges the way a process killed right after each commit
// leaves things: the judgments are stored, nothing follows them (no
// consensus refresh, no atom label, no trigger).
type crashedJudge struct {
	t     *testing.T
	js    *judging.Service
	rater judging.Rater
	n     int
}

func newCrashedJudge(t *testing.T, st *store.Store, u store.User) *crashedJudge {
	return &crashedJudge{t: t, js: judging.New(st, nil, slog.New(slog.DiscardHandler)), rater: judging.Rater{ID: u.ID, Role: vocab.RoleAnnotator}}
}

// all judges every task of kind the rater is given (rel: the relevance or
// constraint answer of the n-th judgment).
func (c *crashedJudge) all(ctx context.Context, project, kind string, answer func(n int, req *judging.JudgmentRequest)) int {
	c.t.Helper()
	judged := 0
	for {
		q, err := c.js.Queue(ctx, c.rater, project, judging.QueueRequest{Kind: kind, N: judging.MaxQueue})
		if err != nil {
			c.t.Fatal(err)
		}
		if len(q.Tasks) == 0 {
			return judged
		}
		for _, task := range q.Tasks {
			c.n++
			req := judging.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", c.n), AuthorID: c.rater.ID,
				ItemID: task.ItemID, Kind: kind}
			answer(c.n, &req)
			if _, err := c.js.Submit(ctx, c.rater, req); err != nil {
				c.t.Fatal(err)
			}
			judged++
		}
	}
}

// TestStartRepairsStaleConsensus (issue 29): judgments committed by a
// process killed before their consensus refresh leave consensus rows
// missing or outdated; a server or worker starting on the database repairs
// them at once (they used to wait for the next export).
func TestStartRepairsStaleConsensus(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	p := fx.Project.ID
	// The first judgments are refreshed (a live server), then re-judged by
	// a process killed before refreshing: those rows are outdated; the
	// judgments of the other items have no row at all.
	j := newCrashedJudge(t, st, fx.Users["annotator1"])
	if n := j.all(ctx, fx.Project.Name, vocab.KindRelevance, func(n int, req *judging.JudgmentRequest) {
		rel := 0
		req.Relevance, req.Evidence = &rel, vocab.EvidenceNone
	}); n < 3 {
		t.Fatalf("%d judgments, want at least 3", n)
	}
	cons := consensus.NewService(st, nil)
	refreshed := fx.Relevance[:2]
	for _, item := range refreshed {
		if _, err := cons.Refresh(ctx, item); err != nil {
			t.Fatal(err)
		}
	}
	cons.Close()
	for i, item := range refreshed {
		rel := 3
		req := judging.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-9000-%012d", i), AuthorID: j.rater.ID,
			ItemID: item, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: vocab.EvidenceComplete}
		if _, err := j.js.Submit(ctx, j.rater, req); err != nil {
			t.Fatal(err)
		}
	}
	missing := fx.Relevance[2:]
	if _, err := st.ConsensusOf(ctx, missing[0]); err == nil {
		t.Fatal("the setup refreshed an item it should not have")
	}
	if stale, err := st.ConsensusStale(ctx, p); err != nil || !stale {
		t.Fatalf("before the start: stale = %v (%v), want true", stale, err)
	}

	// A worker starts (no job runs in it): the repair needs no researcher.
	newApp(t, st, app.Options{JobsOnly: true})
	deadline := time.Now().Add(20 * time.Second)
	for {
		stale, err := st.ConsensusStale(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if !stale {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the consensus is still stale 20 s after the start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, item := range refreshed {
		r, err := st.ConsensusOf(ctx, item)
		if err != nil || r.Relevance != 3 {
			t.Errorf("item %d: consensus %+v (%v), want the re-judgment's relevance 3", item, r, err)
		}
	}
	for _, item := range missing {
		if _, err := st.ConsensusOf(ctx, item); err != nil {
			t.Errorf("item %d: %v, want its consensus row", item, err)
		}
	}
}

// TestSweepQueuesLostAtomsBatch (issue 29): the constraint judgments that
// complete a atoms pool's batch are committed by a process killed
// before their labels and the atoms trigger: the start-up sweep writes
// the labels and queues the next batch's job; a periodic sweep does the
// same for a batch lost while the server runs; two servers sweeping
// queue one job; and a batch whose job ran is not queued again.
func TestSweepQueuesLostAtomsBatch(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.NewWithRuns(t, st, 1)
	p := fx.Project.ID
	log := slog.New(slog.DiscardHandler)
	rep, created, err := atompool.Publish(ctx, st, p, pooling.Spec{Name: "atoms", Runs: []string{"bm25", "dense"}, Depth: 3,
		Strategy: pooling.Atoms, Atoms: pooling.AtomsParams{Batch: 3, Max: 100}}, fx.Users["researcher"].ID, 0, log)
	if err != nil || created != 3 {
		t.Fatalf("create the atoms pool: %d items, %v", created, err)
	}
	j := newCrashedJudge(t, st, fx.Users["annotator1"])
	yes := func(n int, req *judging.JudgmentRequest) {
		req.Constraint = &judging.ConstraintAnswer{Satisfied: vocab.SatisfiedYes, Sentences: []int{}}
	}
	if n := j.all(ctx, fx.Project.Name, vocab.KindConstraint, yes); n != 3 {
		t.Fatalf("%d constraint judgments, want 3", n)
	}
	batchJobs := func(items int) []store.Job {
		t.Helper()
		all, err := st.ListJobs(ctx, p, 100)
		if err != nil {
			t.Fatal(err)
		}
		var out []store.Job
		for _, jb := range all {
			if jb.Kind != pooling.AtomsJobKind {
				continue
			}
			p, err := atompool.ParseJobParams(jb.Params)
			if err != nil {
				t.Fatal(err)
			}
			if p == (atompool.AtomsJobParams{PoolID: rep.PoolID, Items: items}) {
				out = append(out, jb)
			}
		}
		return out
	}
	if items, pending, err := st.AtomPoolState(ctx, rep.PoolID); err != nil || items != 3 || pending != 3 {
		t.Fatalf("after the crash: %d items, %d without a label (%v); want 3 and 3", items, pending, err)
	}

	// Two web servers without workers start on the database.
	const every = 300 * time.Millisecond
	a := newApp(t, st, app.Options{SweepEvery: every})
	newApp(t, st, app.Options{SweepEvery: every})
	deadline := time.Now().Add(20 * time.Second)
	for len(batchJobs(3)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no atoms-batch job 20 s after the start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, pending, err := st.AtomPoolState(ctx, rep.PoolID); err != nil || pending != 0 {
		t.Errorf("after the start: %d items without a label (%v), want 0", pending, err)
	}
	// A sweep again (the other server's, or the next period) adds nothing.
	res, err := a.Sweeper.Sweep(ctx, false)
	if err != nil || res.AtomsQueued != 0 || res.CALQueued != 0 || res.Labels != 0 {
		t.Errorf("a second sweep: %+v %v, want it to do nothing", res, err)
	}
	if js := batchJobs(3); len(js) != 1 || js[0].State != vocab.JobQueued {
		t.Fatalf("atoms-batch jobs of the batch: %+v, want one queued", js)
	}

	// The job runs (a worker) and adds the next batch; the same crash
	// while the servers run is caught by the periodic sweep.
	newApp(t, st, app.Options{JobsOnly: true, Jobs: jobs.Config{Concurrency: 1, Test: true}, SweepEvery: every})
	deadline = time.Now().Add(30 * time.Second)
	for {
		items, _, err := st.AtomPoolState(ctx, rep.PoolID)
		if err != nil {
			t.Fatal(err)
		}
		if items > 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the atoms-batch job did not add the next batch: %+v", batchJobs(3))
		}
		time.Sleep(50 * time.Millisecond)
	}
	items, _, err := st.AtomPoolState(ctx, rep.PoolID)
	if err != nil {
		t.Fatal(err)
	}
	if n := j.all(ctx, fx.Project.Name, vocab.KindConstraint, yes); n != items-3 {
		t.Fatalf("%d constraint judgments of the second batch, want %d", n, items-3)
	}
	deadline = time.Now().Add(10 * time.Second)
	for len(batchJobs(items)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no atoms-batch job for the second batch 10 s after it was judged (sweeps every %v)", every)
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * every) // every server has swept since
	if js := batchJobs(items); len(js) != 1 {
		t.Errorf("atoms-batch jobs of the second batch: %+v, want one", js)
	}
}

// TestSweepQueuesLostCALBatch (issue 29): while two servers run, the
// judgments completing a cal pool's first batches are committed by a
// process killed before their consensus refresh and trigger. The periodic
// sweep leaves the batches a few seconds to their trigger, then repairs
// the project's consensus and queues each query's next batch, once.
func TestSweepQueuesLostCALBatch(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	fx := judgingtest.NewWithRuns(t, st, 1)
	p := fx.Project.ID
	rep, err := pooling.Create(ctx, st, p, pooling.Spec{Name: "cal", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: pooling.CAL,
		CAL: pooling.CALParams{Batch: 2, Stop: pooling.CALStopNone, Max: 50}}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PublishPool(ctx, rep.PoolID, fx.Users["researcher"].ID, 0); err != nil {
		t.Fatal(err)
	}
	const every = 300 * time.Millisecond
	a := newApp(t, st, app.Options{SweepEvery: every})
	newApp(t, st, app.Options{SweepEvery: every})
	if res, err := a.Sweeper.Sweep(ctx, true); err != nil || res.CALQueued != 0 {
		t.Fatalf("before any judgment: %+v %v, want nothing queued", res, err)
	}

	// A job of q1's round 1 that ran too early (its batch not judged yet)
	// and skipped does not count as the batch's job.
	var early int64
	if err := st.Pool().QueryRow(ctx, `INSERT INTO jobs (project_id, kind, params, state, result)
		VALUES ($1, $2, jsonb_build_object('pool_id', $3::bigint, 'query_id', $4::bigint, 'round', 1), 'done',
			'{"round": 1, "added": 0, "created": 0, "skipped": "2 items of round 0 are not fully judged"}')
		RETURNING id`, p, pooling.CALJobKind, rep.PoolID, fx.Queries["q1"]).Scan(&early); err != nil {
		t.Fatal(err)
	}
	j := newCrashedJudge(t, st, fx.Users["annotator1"])
	j.all(ctx, fx.Project.Name, vocab.KindRelevance, func(n int, req *judging.JudgmentRequest) {
		rel := n % 2 * 3
		req.Relevance, req.Evidence = &rel, vocab.EvidenceComplete
	})
	judged := time.Now()
	qs, err := st.CALQueries(ctx, rep.PoolID)
	if err != nil || len(qs) < 2 {
		t.Fatalf("cal queries: %+v %v", qs, err)
	}
	for _, q := range qs {
		if q.Round != 0 || q.Pending != 0 {
			t.Fatalf("after the crash: %+v, want round 0 fully judged", q)
		}
	}
	calJobs := func() map[pooling.CALJobParams]int {
		t.Helper()
		all, err := st.ListJobs(ctx, p, 100)
		if err != nil {
			t.Fatal(err)
		}
		out := map[pooling.CALJobParams]int{}
		for _, jb := range all {
			if jb.Kind == pooling.CALJobKind && jb.ID != early {
				var cp pooling.CALJobParams
				if err := json.Unmarshal(jb.Params, &cp); err != nil {
					t.Fatal(err)
				}
				out[cp]++
			}
		}
		return out
	}
	deadline := judged.Add(30 * time.Second)
	for len(calJobs()) < len(qs) {
		if time.Now().After(deadline) {
			t.Fatalf("cal-batch jobs %v 30 s after the crash, want one per query", calJobs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if waited := time.Since(judged); waited < 4*time.Second {
		t.Errorf("queued %v after the judgments: the sweep did not leave them to their trigger first", waited)
	}
	time.Sleep(3 * every) // both servers have swept again
	jobsNow := calJobs()
	for _, q := range qs {
		if n := jobsNow[pooling.CALJobParams{PoolID: rep.PoolID, QueryID: q.QueryID, Round: 1}]; n != 1 {
			t.Errorf("query %s: %d jobs for round 1, want 1 (%v)", q.QueryExtID, n, jobsNow)
		}
	}
	if stale, err := st.ConsensusStale(ctx, p); err != nil || stale {
		t.Errorf("after the sweep the consensus is stale = %v (%v), want it repaired before the batch", stale, err)
	}
}
