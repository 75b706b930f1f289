package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"boolpool/server/apperr"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newClient builds a job client over st (River's real client on the test's
// database); with concurrency > 0 it is started. It stops when the test
// ends.
func newClient(t *testing.T, st *store.Store, kinds map[string]jobs.Kind, concurrency int) *jobs.Client {
	t.Helper()
	c, err := jobs.New(st, quietLog(), kinds, jobs.Config{Concurrency: concurrency, ProgressEvery: time.Hour, RescueAfter: time.Second, Test: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Error(err)
		}
	})
	return c
}

// wait polls a job until it is final.
func wait(t *testing.T, st *store.Store, id int64) store.Job {
	t.Helper()
	return storetest.WaitJob(t, st, id, 30*time.Second, store.Job.Finished)
}

// queueEntry is River's row of a job: its state and attempt.
func queueEntry(t *testing.T, st *store.Store, jobID int64) (state string, attempt int) {
	t.Helper()
	ctx := context.Background()
	qid, err := st.QueueJobID(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `SELECT state::text, attempt FROM river_job WHERE id = $1`, qid).Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	return state, attempt
}

func waitQueueState(t *testing.T, st *store.Store, jobID int64, want string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		state, attempt := queueEntry(t, st, jobID)
		if state == want {
			return attempt
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: River state %s, want %s", jobID, state, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func project(t *testing.T, st *store.Store, name string) int64 {
	t.Helper()
	p, err := st.EnsureProject(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// TestJobStates drives the ways a job ends on River: done with progress
// and result, a retried attempt, a permanent failure, a panic, and bad
// requests refused before anything is stored.
func TestJobStates(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := project(t, st, "jobs")
	var flakyRuns atomic.Int32
	kinds := map[string]jobs.Kind{
		"count": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			for i := 1; i <= 5; i++ {
				a.Report("counting", i, 5)
			}
			return map[string]int{"counted": 5}, nil
		}},
		"flaky": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			flakyRuns.Add(1)
			if a.Number == 1 {
				a.Report("trying", 1, 2)
				return nil, errors.New("connection reset by peer")
			}
			if !a.Resumed || !strings.Contains(a.Job.Error, "attempt 1 of 5 failed: connection reset by peer; retrying") {
				return nil, jobs.Permanent(errors.New("the retry does not see its first attempt"))
			}
			return map[string]int{"attempt": a.Number}, nil
		}},
		"fail": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			return nil, jobs.Permanent(errors.New("no such encoder model"))
		}},
		"panic": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			panic("boom")
		}},
		"checked": {Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			return apperr.Invalidf("params.x", "required")
		}},
	}
	c := newClient(t, st, kinds, 2)
	if got := strings.Join(c.Kinds(), ","); got != "checked,count,fail,flaky,panic" {
		t.Fatalf("kinds %s", got)
	}

	var inv *apperr.Invalid
	if _, err := c.Submit(ctx, pid, "nope", nil, 0); !errors.As(err, &inv) || inv.Field != "kind" {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := c.Submit(ctx, pid, "checked", nil, 0); !errors.As(err, &inv) || inv.Field != "params.x" {
		t.Fatalf("check: %v", err)
	}
	if _, err := c.Submit(ctx, pid, "count", json.RawMessage(`[1]`), 0); !errors.As(err, &inv) || inv.Field != "params" {
		t.Fatalf("params not an object: %v", err)
	}
	if js, _ := st.ListJobs(ctx, pid, 10); len(js) != 0 {
		t.Fatalf("refused jobs were stored: %+v", js)
	}

	j, err := c.Submit(ctx, pid, "count", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := wait(t, st, j.ID)
	// Progress is written at the end even when the throttle never allowed it.
	if done.State != vocab.JobDone || done.Done != 5 || done.Total != 5 || done.Phase != "counting" || string(done.Result) != `{"counted": 5}` || done.StartedAt == nil {
		t.Fatalf("count job: %+v result %s", done, done.Result)
	}
	if attempt := waitQueueState(t, st, j.ID, "completed"); attempt != 1 {
		t.Fatalf("count job in River: attempt %d", attempt)
	}

	// An attempt that fails is retried by River; the retry sees the
	// first attempt's error and progress.
	j, err = c.Submit(ctx, pid, "flaky", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := wait(t, st, j.ID); got.State != vocab.JobDone || got.Error != "" || string(got.Result) != `{"attempt": 2}` {
		t.Fatalf("flaky job: %+v result %s", got, got.Result)
	}
	if n := flakyRuns.Load(); n != 2 {
		t.Fatalf("flaky job ran %d times, want 2", n)
	}
	if attempt := waitQueueState(t, st, j.ID, "completed"); attempt != 2 {
		t.Fatalf("flaky job in River: attempt %d", attempt)
	}

	// Permanent errors and panics fail at once, without retries.
	for kind, want := range map[string]string{"fail": "no such encoder model", "panic": "internal error in the panic job: boom"} {
		j, err := c.Submit(ctx, pid, kind, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := wait(t, st, j.ID); got.State != vocab.JobFailed || got.Error != want {
			t.Fatalf("%s job: %+v", kind, got)
		}
		if attempt := waitQueueState(t, st, j.ID, "cancelled"); attempt != 1 {
			t.Fatalf("%s job in River: attempt %d, want no retry", kind, attempt)
		}
	}
}

// TestJobUnique: the same project, kind and parameters submitted twice
// while the first is queued is one job; other parameters or another
// project are another; once the first has ended, the same job can run
// again.
func TestJobUnique(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid, other := project(t, st, "one"), project(t, st, "two")
	kinds := map[string]jobs.Kind{"count": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) { return nil, nil }}}
	// No worker: the jobs stay queued.
	c := newClient(t, st, kinds, 0)

	first, err := c.Submit(ctx, pid, "count", json.RawMessage(`{"a": 1, "b": [2, 3]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Submit(ctx, pid, "count", json.RawMessage(`{"b":[2,3],"a":1}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || again.State != vocab.JobQueued {
		t.Fatalf("same job submitted twice: %d then %d (%s)", first.ID, again.ID, again.State)
	}
	diff, err := c.Submit(ctx, pid, "count", json.RawMessage(`{"a": 2, "b": [2, 3]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := c.Submit(ctx, other, "count", json.RawMessage(`{"a": 1, "b": [2, 3]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff.ID == first.ID || elsewhere.ID == first.ID || diff.ID == elsewhere.ID {
		t.Fatalf("different jobs merged: %d %d %d", first.ID, diff.ID, elsewhere.ID)
	}
	var rows, entries int
	if err := st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM river_job)`).Scan(&rows, &entries); err != nil {
		t.Fatal(err)
	}
	if rows != 3 || entries != 3 {
		t.Fatalf("%d jobs rows and %d River jobs, want 3 and 3", rows, entries)
	}

	// Ended (here: cancelled), the same job may be started again.
	if err := c.Cancel(ctx, first.ID); err != nil {
		t.Fatal(err)
	}
	next, err := c.Submit(ctx, pid, "count", json.RawMessage(`{"a": 1, "b": [2, 3]}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if next.ID == first.ID || next.State != vocab.JobQueued {
		t.Fatalf("resubmitted after cancel: %+v", next)
	}
}

// TestJobCancel: a running job's context ends with River's remote
// cancellation and the job is recorded cancelled, in the jobs row and in
// River; a queued one never starts; a final one cannot be cancelled.
func TestJobCancel(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := project(t, st, "jobs")
	started := make(chan struct{}, 1)
	cause := make(chan error, 1)
	kinds := map[string]jobs.Kind{
		"block": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			a.Report("waiting", 1, 10)
			started <- struct{}{}
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return nil, ctx.Err()
		}},
	}
	// The canceller is another client that works nothing, as a web server
	// whose jobs run in a worker process.
	newClient(t, st, kinds, 1)
	web := newClient(t, st, kinds, 0)

	running, err := web.Submit(ctx, pid, "block", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the job did not start")
	}
	storetest.WaitJob(t, st, running.ID, 10*time.Second, func(j store.Job) bool { return j.Phase == "waiting" })
	if err := web.Cancel(ctx, running.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-cause:
		if !errors.Is(err, river.ErrJobCancelledRemotely) {
			t.Fatalf("the job's context ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the running job's context did not end")
	}
	if got := wait(t, st, running.ID); got.State != vocab.JobCancelled || got.Error != "cancelled by a user" || got.FinishedAt == nil {
		t.Fatalf("cancelled running job: %+v", got)
	}
	waitQueueState(t, st, running.ID, "cancelled")

	// Queued: cancelled in River before any worker takes it. (Its kind is
	// not worked by any client here.)
	idle := newClient(t, st, map[string]jobs.Kind{"idle": {Queue: "nobody", Run: kinds["block"].Run}}, 0)
	queued, err := idle.Submit(ctx, pid, "idle", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := idle.Cancel(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.JobByID(ctx, queued.ID); got.State != vocab.JobCancelled || got.Error != "cancelled before it started" {
		t.Fatalf("cancelled queued job: %+v", got)
	}
	waitQueueState(t, st, queued.ID, "cancelled")
	if err := web.Cancel(ctx, queued.ID); !errors.Is(err, apperr.ErrConflict) {
		t.Fatalf("cancel a final job: %v", err)
	}
}

// TestJobResumesAfterWorkerStops: a worker stopped mid-job (shutdown)
// hands the job back to the queue; another worker takes it up, the kind
// sees the first attempt's progress, and the job completes once.
func TestJobResumesAfterWorkerStops(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := project(t, st, "jobs")
	started := make(chan struct{}, 2)
	var runs, completions atomic.Int32
	kinds := map[string]jobs.Kind{
		"steps": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
			runs.Add(1)
			if !a.Resumed {
				a.Report("steps", 3, 10) // 3 steps committed, then the worker stops
				started <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}
			completions.Add(1)
			a.Report("steps", 10, 10)
			return map[string]int64{"resumed_at": a.Job.Done}, nil
		}},
	}
	first, err := jobs.New(st, quietLog(), kinds, jobs.Config{Concurrency: 1, ProgressEvery: time.Millisecond, Test: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(ctx); err != nil {
		t.Fatal(err)
	}
	web := newClient(t, st, kinds, 0)
	j, err := web.Submit(ctx, pid, "steps", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := first.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	got, _ := st.JobByID(ctx, j.ID)
	if got.State != vocab.JobQueued || got.Done != 3 || !strings.Contains(got.Error, "its worker stopped") {
		t.Fatalf("after the worker stopped: %+v", got)
	}
	if state, attempt := queueEntry(t, st, j.ID); state != "available" || attempt != 0 {
		t.Fatalf("River entry after the worker stopped: %s attempt %d", state, attempt)
	}

	newClient(t, st, kinds, 1)
	got = wait(t, st, j.ID)
	if got.State != vocab.JobDone || string(got.Result) != `{"resumed_at": 3}` || got.Done != 10 || got.Error != "" {
		t.Fatalf("resumed job: %+v result %s", got, got.Result)
	}
	if runs.Load() != 2 || completions.Load() != 1 {
		t.Fatalf("%d runs, %d completions; want 2 and 1", runs.Load(), completions.Load())
	}
	waitQueueState(t, st, j.ID, "completed")
}

// TestIndexJob: the index kind builds a project's lexical index as a job,
// with its counts as the result; bad parameters are refused.
func TestIndexJob(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := project(t, st, "idx")
	if _, err := st.Import(ctx, pid, func(im *store.Importer) error {
		for i, text := range []string{"A large vulture of the Andes.", "Coffee brewed under pressure.", "Condors soar over the Andes."} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: string(rune('a' + i)), Body: text}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, st, map[string]jobs.Kind{"index": jobs.Index(st, quietLog())}, 1)
	var inv *apperr.Invalid
	if _, err := c.Submit(ctx, pid, "index", json.RawMessage(`{"b": 3}`), 0); !errors.As(err, &inv) || inv.Field != "params.b" {
		t.Fatalf("bad b: %v", err)
	}
	j, err := c.Submit(ctx, pid, "index", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := wait(t, st, j.ID)
	var res jobs.IndexResult
	if err := json.Unmarshal(got.Result, &res); err != nil || got.State != vocab.JobDone || res.Documents != 3 || res.Terms == 0 {
		t.Fatalf("index job %+v result %s: %v", got, got.Result, err)
	}
	// An encoder without vectors fails at once, saying what to run.
	j, err = c.Submit(ctx, pid, "index", json.RawMessage(`{"encoder": "minilm-static"}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := wait(t, st, j.ID); got.State != vocab.JobFailed || !strings.Contains(got.Error, "run an encode job first") {
		t.Fatalf("index of an encoder without vectors: %+v", got)
	}
}

// Issue 29 item 4: a project's waiting jobs that people start are bounded
// (429 past the bound; the server's own trigger jobs are not refused),
// and a project's first job overtakes another project's long queue
// instead of waiting behind all of it (one FIFO queue made a 2-query
// publish wait behind 60 jobs).
func TestJobBoundPerProjectAndFairOrder(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	big, small := project(t, st, "big"), project(t, st, "small")
	u, err := st.CreateUser(ctx, store.NewUser{Username: "researcher", Role: "researcher", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int64
	kinds := map[string]jobs.Kind{"work": {Run: func(ctx context.Context, a jobs.Attempt) (any, error) {
		mu.Lock()
		order = append(order, a.Job.ID)
		mu.Unlock()
		return nil, nil
	}}}
	submitter, err := jobs.New(st, quietLog(), kinds, jobs.Config{MaxQueuedPerProject: 10, Test: true})
	if err != nil {
		t.Fatal(err)
	}
	var bigIDs []int64
	for i := 0; i < 10; i++ {
		j, err := submitter.Submit(ctx, big, "work", json.RawMessage(fmt.Sprintf(`{"i": %d}`, i)), u.ID)
		if err != nil {
			t.Fatalf("job %d of 10: %v", i+1, err)
		}
		bigIDs = append(bigIDs, j.ID)
	}
	if _, err := submitter.Submit(ctx, big, "work", json.RawMessage(`{"i": 10}`), u.ID); !errors.Is(err, apperr.ErrRateLimited) {
		t.Errorf("11th waiting job of one project: %v, want ErrRateLimited", err)
	}
	// A duplicate is still answered with the waiting job.
	if j, err := submitter.Submit(ctx, big, "work", json.RawMessage(`{"i": 0}`), u.ID); err != nil || j.ID != bigIDs[0] {
		t.Errorf("duplicate past the bound: %d %v, want job %d", j.ID, err, bigIDs[0])
	}
	// The server's own jobs (triggers, by 0) are not refused.
	j, err := submitter.Submit(ctx, big, "work", json.RawMessage(`{"i": 11}`), 0)
	if err != nil {
		t.Fatalf("trigger job past the bound: %v", err)
	}
	bigIDs = append(bigIDs, j.ID)
	var n int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM jobs WHERE project_id = $1`, big).Scan(&n); err != nil || n != 11 {
		t.Fatalf("%d jobs rows of the big project (err %v), want 11: the refused one must leave none", n, err)
	}
	mine, err := submitter.Submit(ctx, small, "work", nil, u.ID)
	if err != nil {
		t.Fatalf("another project's job: %v", err)
	}
	// One worker runs everything.
	newClient(t, st, kinds, 1)
	wait(t, st, mine.ID)
	for _, id := range bigIDs {
		wait(t, st, id)
	}
	mu.Lock()
	defer mu.Unlock()
	pos := -1
	for i, id := range order {
		if id == mine.ID {
			pos = i
		}
	}
	t.Logf("the small project's job ran %d of %d", pos+1, len(order))
	if pos < 0 || pos > 4 {
		t.Errorf("the small project's job ran %d of %d (order %v), want among the first 5 (behind at most 4 of the big project's)", pos+1, len(order), order)
	}
}
