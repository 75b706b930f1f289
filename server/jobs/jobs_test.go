package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"boolpool/server/apperr"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// wait polls a job until it is final.
func wait(t *testing.T, st *store.Store, id int64) store.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j, err := st.JobByID(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Finished() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d still %s", id, j.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunnerStates drives every way a job can end: done with progress and
// result, failed, panicked, cancelled while running and while queued,
// interrupted by Stop, and left over by an earlier process.
func TestRunnerStates(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p, err := st.EnsureProject(ctx, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	// A row an earlier server left running.
	old, err := st.CreateJob(ctx, store.NewJob{ProjectID: p.ID, Kind: "count"})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := st.StartJob(ctx, old.ID); !ok || err != nil {
		t.Fatalf("start: %v %v", ok, err)
	}

	started := make(chan struct{}, 4)
	kinds := map[string]jobs.Kind{
		"count": {Run: func(ctx context.Context, j store.Job, report jobs.Report) (any, error) {
			for i := 1; i <= 5; i++ {
				report("counting", i, 5)
			}
			return map[string]int{"counted": 5}, nil
		}},
		"fail": {Run: func(ctx context.Context, j store.Job, report jobs.Report) (any, error) {
			return nil, errors.New("no such encoder model")
		}},
		"panic": {Run: func(ctx context.Context, j store.Job, report jobs.Report) (any, error) {
			panic("boom")
		}},
		"block": {Run: func(ctx context.Context, j store.Job, report jobs.Report) (any, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		"checked": {Check: func(ctx context.Context, projectID int64, raw json.RawMessage) error {
			return apperr.Invalidf("params.x", "required")
		}},
	}
	r := jobs.New(st, quietLog(), kinds, jobs.Options{Workers: 1, Queue: 4, ProgressEvery: time.Hour})
	if n, err := r.Recover(ctx); n != 1 || err != nil {
		t.Fatalf("recover: %d %v", n, err)
	}
	if j, _ := st.JobByID(ctx, old.ID); j.State != store.JobInterrupted || j.Error == "" {
		t.Fatalf("left-over job: %+v", j)
	}

	var inv *apperr.Invalid
	if _, err := r.Submit(ctx, p.ID, "nope", nil, 0); !errors.As(err, &inv) {
		t.Fatalf("unknown kind: %v", err)
	}
	if _, err := r.Submit(ctx, p.ID, "checked", nil, 0); !errors.As(err, &inv) || inv.Field != "params.x" {
		t.Fatalf("check: %v", err)
	}

	j, err := r.Submit(ctx, p.ID, "count", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := wait(t, st, j.ID)
	// Progress is written at the end even when the throttle never allowed it.
	if done.State != store.JobDone || done.Done != 5 || done.Total != 5 || done.Phase != "counting" || string(done.Result) != `{"counted": 5}` {
		t.Fatalf("count job: %+v result %s", done, done.Result)
	}
	for kind, want := range map[string]string{"fail": "no such encoder model", "panic": "internal error in the panic job: boom"} {
		j, err := r.Submit(ctx, p.ID, kind, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := wait(t, st, j.ID); got.State != store.JobFailed || got.Error != want {
			t.Fatalf("%s job: %+v", kind, got)
		}
	}

	// Cancel while running, and while queued behind a running job.
	running, _ := r.Submit(ctx, p.ID, "block", nil, 0)
	<-started
	queued, _ := r.Submit(ctx, p.ID, "count", nil, 0)
	if err := r.Cancel(ctx, queued.ID); err != nil {
		t.Fatal(err)
	}
	if err := r.Cancel(ctx, running.ID); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, st, running.ID); got.State != store.JobCancelled {
		t.Fatalf("cancelled running job: %+v", got)
	}
	if got := wait(t, st, queued.ID); got.State != store.JobCancelled {
		t.Fatalf("cancelled queued job: %+v", got)
	}
	if err := r.Cancel(ctx, queued.ID); !errors.Is(err, apperr.ErrConflict) {
		t.Fatalf("cancel a final job: %v", err)
	}

	// Stop interrupts the running job and the queued one.
	running, _ = r.Submit(ctx, p.ID, "block", nil, 0)
	<-started
	queued, _ = r.Submit(ctx, p.ID, "count", nil, 0)
	stopCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r.Stop(stopCtx)
	for _, id := range []int64{running.ID, queued.ID} {
		if got, _ := st.JobByID(ctx, id); got.State != store.JobInterrupted {
			t.Fatalf("after stop: %+v", got)
		}
	}
	if _, err := r.Submit(ctx, p.ID, "count", nil, 0); !errors.Is(err, apperr.ErrUnavailable) {
		t.Fatalf("submit after stop: %v", err)
	}
}
