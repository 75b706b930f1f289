package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"boolpool/internal/judgingtest"
	"boolpool/server/apperr"
	"boolpool/server/atompool"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// poolFixture is the judging fixture with its two stored runs (bm25,
// dense): a depth-2 pool over both has 7 entries, 4 of them new items.
func poolFixture(t *testing.T) (*store.Store, *judgingtest.Fixture) {
	t.Helper()
	st := storetest.New(t)
	fx := judgingtest.NewWithRuns(t, st, 1)
	return st, fx
}

func poolParams(t *testing.T, spec jobs.PoolRequest) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// publishPool runs spec as a pool job submitted by userID and returns what
// it published and the finished job, which must be done.
func publishPool(t *testing.T, c *jobs.Client, st *store.Store, pid int64, spec jobs.PoolRequest, userID int64) (jobs.PoolPublished, store.Job) {
	t.Helper()
	j, err := c.Submit(context.Background(), pid, vocab.JobKindPool, poolParams(t, spec), userID)
	if err != nil {
		t.Fatal(err)
	}
	got := wait(t, st, j.ID)
	var pub jobs.PoolPublished
	if err := json.Unmarshal(got.Result, &pub); err != nil || got.State != vocab.JobDone {
		t.Fatalf("pool job %+v result %s: %v", got, got.Result, err)
	}
	return pub, got
}

// counts are what publishing shows in the database: the project's
// relevance items, its pools and their statuses, and pool.publish audit
// rows.
type counts struct {
	Items, Pools, Published, Audits int
}

func poolCounts(t *testing.T, st *store.Store, projectID int64) counts {
	t.Helper()
	var c counts
	err := st.Pool().QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM items WHERE project_id = $1 AND kind = 'relevance'),
			(SELECT count(*) FROM pools WHERE project_id = $1),
			(SELECT count(*) FROM pools WHERE project_id = $1 AND status = 'published'),
			(SELECT count(*) FROM audit_log WHERE action = 'pool.publish')`, projectID).
		Scan(&c.Items, &c.Pools, &c.Published, &c.Audits)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPoolJobPublishes: the pool kind builds, saves and publishes a pool
// (raters per item set, relevance items created, the job's id recorded with
// the pool); its result is the builder's jobs.PoolPublished and its
// progress ends with the publish. A bad spec is refused when submitted,
// naming its field, and so is the name of a published pool.
func TestPoolJobPublishes(t *testing.T) {
	ctx := context.Background()
	st, fx := poolFixture(t)
	pid := fx.Project.ID
	c := newClient(t, st, map[string]jobs.Kind{vocab.JobKindPool: jobs.Pool(st, atompool.NewPools(st, quietLog()), quietLog())}, 1)
	before := poolCounts(t, st, pid)

	spec := jobs.PoolRequest{Name: "p1", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: vocab.StrategyDepth, RatersPerItem: 3}
	pub, got := publishPool(t, c, st, pid, spec, fx.Users["researcher"].ID)
	if pub.PoolID == 0 || pub.ItemsCreated != 4 || pub.RatersPerItem != 3 || pub.Preview.Items != 7 || pub.Preview.Name != "p1" ||
		len(pub.Preview.Composition.Runs) != 2 {
		t.Fatalf("published = %+v", pub)
	}
	if got.Phase != "publishing the pool" || got.Done != 7 || got.Total != 7 {
		t.Errorf("last progress: %s %d/%d, want the publish of 7 entries", got.Phase, got.Done, got.Total)
	}
	after := poolCounts(t, st, pid)
	if after.Items != before.Items+4 || after.Pools != 1 || after.Published != 1 || after.Audits != before.Audits+1 {
		t.Fatalf("counts %+v → %+v", before, after)
	}
	pool, err := st.PoolByName(ctx, pid, "p1")
	if err != nil {
		t.Fatal(err)
	}
	var params struct {
		JobID int64 `json:"job_id"`
		Depth int   `json:"depth"`
	}
	if err := json.Unmarshal(pool.Params, &params); err != nil || params.JobID != got.ID || params.Depth != 2 || pool.ID != pub.PoolID {
		t.Fatalf("pool %+v params %s: %v", pool, pool.Params, err)
	}
	if p, err := st.ProjectByID(ctx, pid); err != nil || p.RatersPerItem != 3 {
		t.Fatalf("raters per item %d (%v), want 3", p.RatersPerItem, err)
	}

	// Refused before anything is stored: the field is named.
	cases := []struct {
		name  string
		edit  func(*jobs.PoolRequest)
		field string
		conf  bool
	}{
		{"unknown run", func(s *jobs.PoolRequest) { s.Name, s.Runs = "x", []string{"bm25", "nope"} }, "runs[1]", false},
		{"depth", func(s *jobs.PoolRequest) { s.Name, s.Depth = "x", 0 }, "depth", false},
		{"raters", func(s *jobs.PoolRequest) { s.Name, s.RatersPerItem = "x", 21 }, "raters_per_item", false},
		{"no name", func(s *jobs.PoolRequest) { s.Name = " " }, "name", false},
		{"published name", func(s *jobs.PoolRequest) { s.Depth = 1 }, "name", true},
	}
	for _, tc := range cases {
		s := spec
		tc.edit(&s)
		_, err := c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, s), 0)
		var inv *apperr.Invalid
		var ref *apperr.Refused
		switch {
		case tc.conf && (!errors.As(err, &ref) || ref.Field != tc.field || !errors.Is(err, apperr.ErrConflict)):
			t.Errorf("%s: %v, want a conflict on %s", tc.name, err, tc.field)
		case !tc.conf && (!errors.As(err, &inv) || inv.Field != tc.field):
			t.Errorf("%s: %v, want invalid %s", tc.name, err, tc.field)
		}
	}
	if _, err := c.Submit(ctx, pid, vocab.JobKindPool, json.RawMessage(`{"name":"y","runs":["bm25"],"depth":2,"strategy":"depth","colour":1}`), 0); err == nil {
		t.Error("an unknown parameter was accepted")
	}
	if js, _ := st.ListJobs(ctx, pid, 10); len(js) != 1 {
		t.Fatalf("refused jobs were stored: %d jobs", len(js))
	}
}

// TestPoolJobRetryPublishesOnce: an attempt that published the pool and
// then died before the job was recorded done (here: the attempt returns an
// error after the real kind has committed) is retried by River; the retry
// finds the pool the job published and reports it, without publishing it
// again or creating any item twice.
func TestPoolJobRetryPublishesOnce(t *testing.T) {
	ctx := context.Background()
	st, fx := poolFixture(t)
	pid := fx.Project.ID
	real := jobs.Pool(st, atompool.NewPools(st, quietLog()), quietLog())
	attempts := make(chan int, 4)
	lossy := jobs.Kind{Check: real.Check, Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
		res, err := real.Run(ctx, a)
		attempts <- a.Number
		if a.Number == 1 && err == nil {
			return nil, errors.New("connection lost after the publish committed")
		}
		return res, err
	}}
	c := newClient(t, st, map[string]jobs.Kind{vocab.JobKindPool: lossy}, 1)
	before := poolCounts(t, st, pid)
	j, err := c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, jobs.PoolRequest{Name: "p1", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: vocab.StrategyMTF}), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := wait(t, st, j.ID)
	if got.State != vocab.JobDone {
		t.Fatalf("job %+v", got)
	}
	close(attempts)
	var seen []int
	for n := range attempts {
		seen = append(seen, n)
	}
	if len(seen) != 2 || seen[1] != 2 {
		t.Fatalf("attempts %v, want 1 then 2", seen)
	}
	var pub jobs.PoolPublished
	if err := json.Unmarshal(got.Result, &pub); err != nil {
		t.Fatal(err)
	}
	// The retry reports what the first attempt created.
	if pub.PoolID == 0 || pub.ItemsCreated != 4 || pub.Preview.Items != 7 {
		t.Fatalf("result of the retry = %+v", pub)
	}
	after := poolCounts(t, st, pid)
	if after.Items != before.Items+4 || after.Pools != 1 || after.Published != 1 || after.Audits != before.Audits+1 {
		t.Fatalf("counts %+v → %+v: published more than once", before, after)
	}
}

// TestPoolJobUnique: the same spec submitted while its job is queued is
// that job; another spec is another job.
func TestPoolJobUnique(t *testing.T) {
	ctx := context.Background()
	st, fx := poolFixture(t)
	pid := fx.Project.ID
	// No worker: the jobs stay queued.
	c := newClient(t, st, map[string]jobs.Kind{vocab.JobKindPool: jobs.Pool(st, atompool.NewPools(st, quietLog()), quietLog())}, 0)
	spec := jobs.PoolRequest{Name: "p1", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: vocab.StrategyDepth}
	first, err := c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, spec), 0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, spec), 0)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.State != vocab.JobQueued {
		t.Fatalf("the same pool submitted twice: jobs %d and %d (%s)", first.ID, again.ID, again.State)
	}
	spec.Depth = 3
	other, err := c.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, spec), 0)
	if err != nil {
		t.Fatal(err)
	}
	if other.ID == first.ID {
		t.Fatal("a different spec was merged with the first")
	}
	if js, _ := st.ListJobs(ctx, pid, 10); len(js) != 2 {
		t.Fatalf("%d jobs, want 2", len(js))
	}
}

// TestPoolJobCancel: a pool job cancelled while it runs (here: waiting
// for the project row, which another transaction holds, to publish) ends
// cancelled and writes nothing; one cancelled while queued never runs.
func TestPoolJobCancel(t *testing.T) {
	ctx := context.Background()
	st, fx := poolFixture(t)
	pid := fx.Project.ID
	before := poolCounts(t, st, pid)
	kinds := map[string]jobs.Kind{vocab.JobKindPool: jobs.Pool(st, atompool.NewPools(st, quietLog()), quietLog())}
	web := newClient(t, st, kinds, 0)

	// Queued: cancelled before any worker runs.
	queued, err := web.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, jobs.PoolRequest{Name: "early", Runs: []string{"bm25"}, Depth: 2, Strategy: vocab.StrategyDepth}), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Cancel(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}

	// Running: the publish waits for the project row held here.
	tx, err := st.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM projects WHERE id = $1 FOR NO KEY UPDATE`, pid); err != nil {
		t.Fatal(err)
	}
	newClient(t, st, kinds, 1)
	running, err := web.Submit(ctx, pid, vocab.JobKindPool, poolParams(t, jobs.PoolRequest{Name: "late", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: vocab.StrategyDepth}), 0)
	if err != nil {
		t.Fatal(err)
	}
	j := storetest.WaitJob(t, st, running.ID, 20*time.Second, func(j store.Job) bool { return j.Phase == "publishing the pool" })
	if j.State != vocab.JobRunning || j.Total != 7 {
		t.Fatalf("publishing: %+v", j)
	}
	if err := web.Cancel(ctx, running.ID); err != nil {
		t.Fatal(err)
	}
	got := wait(t, st, running.ID)
	if got.State != vocab.JobCancelled || got.Error != "cancelled by a user" {
		t.Fatalf("cancelled running job: %+v", got)
	}
	waitQueueState(t, st, running.ID, "cancelled")
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.JobByID(ctx, queued.ID); got.State != vocab.JobCancelled || got.StartedAt != nil {
		t.Fatalf("cancelled queued job: %+v", got)
	}
	if after := poolCounts(t, st, pid); after != before {
		t.Fatalf("cancelled pool jobs wrote: %+v → %+v", before, after)
	}
}
