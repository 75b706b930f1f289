// Package jobs runs long work — encoder and retrieval runs started from the
// researchers' setup page — in the background of the server.
//
// The rules:
//
//   - Kinds. What a job does is a Kind, supplied by whoever builds the
//     Runner (the serve command injects the encoder kind, whose code is
//     cgo; the HTTP layer only knows kind names). A kind checks its
//     parameters before anything is stored, so bad input is a 400, not a
//     failed job.
//   - Bounded. A fixed number of workers (default 1: a run already uses
//     every core) takes job ids from a bounded queue; a full queue refuses
//     new jobs (apperr.ErrUnavailable) instead of piling them up.
//   - Persisted. Every job is a row of the jobs table: queued → running →
//     done | failed | cancelled | interrupted, with phase, done/total and
//     rate written at most every ProgressEvery and once at the end. Rows
//     still queued or running when a server starts belonged to a process
//     that stopped: Recover marks them interrupted.
//   - Cancellation. Stop (server shutdown) cancels the context of running
//     jobs, waits for them and records them interrupted; Cancel ends one
//     job at a user's request. Kinds must return when their context ends.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// Report tells the runner a job's progress: the phase it is in and how
// many of total units are done. Safe to call from several goroutines.
type Report func(phase string, done, total int)

// Kind is one type of job.
type Kind struct {
	// Check validates a job's parameters before it is stored (nil: any).
	Check func(ctx context.Context, projectID int64, params json.RawMessage) error
	// Run does the work. Its result is stored as JSON with the job.
	Run func(ctx context.Context, job store.Job, report Report) (any, error)
}

// Store is what the runner needs of the database.
type Store interface {
	CreateJob(ctx context.Context, n store.NewJob) (store.Job, error)
	JobByID(ctx context.Context, id int64) (store.Job, error)
	StartJob(ctx context.Context, id int64) (bool, error)
	SetJobProgress(ctx context.Context, id int64, phase string, done, total int64, rate float64) error
	FinishJob(ctx context.Context, id int64, state, errMsg string, result json.RawMessage) error
	InterruptUnfinishedJobs(ctx context.Context, reason string) (int64, error)
}

// Options tune a Runner.
type Options struct {
	Workers       int           // concurrent jobs (default 1)
	Queue         int           // queued jobs before Submit refuses (default 32)
	ProgressEvery time.Duration // least time between progress writes (default 500 ms)
}

// Runner runs jobs. Create it with New; workers start with the first job.
type Runner struct {
	st    Store
	log   *slog.Logger
	kinds map[string]Kind
	opt   Options
	queue chan int64

	ctx  context.Context // ends at Stop
	stop context.CancelFunc
	wg   sync.WaitGroup
	once sync.Once

	mu        sync.Mutex
	stopped   bool
	running   map[int64]context.CancelFunc
	cancelled map[int64]bool // running jobs a user cancelled
}

// New builds a runner for the given kinds.
func New(st Store, log *slog.Logger, kinds map[string]Kind, opt Options) *Runner {
	if opt.Workers < 1 {
		opt.Workers = 1
	}
	if opt.Queue < 1 {
		opt.Queue = 32
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 500 * time.Millisecond
	}
	ctx, stop := context.WithCancel(context.Background())
	k := make(map[string]Kind, len(kinds))
	for name, kind := range kinds {
		k[name] = kind
	}
	return &Runner{st: st, log: log, kinds: k, opt: opt, queue: make(chan int64, opt.Queue),
		ctx: ctx, stop: stop, running: map[int64]context.CancelFunc{}, cancelled: map[int64]bool{}}
}

// Kinds lists the kind names, sorted.
func (r *Runner) Kinds() []string {
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Recover marks the jobs a previous process left queued or running as
// interrupted. Call it once at start-up, before the first Submit.
func (r *Runner) Recover(ctx context.Context) (int64, error) {
	n, err := r.st.InterruptUnfinishedJobs(ctx, "the server stopped before the job finished; start it again")
	if err != nil {
		return 0, fmt.Errorf("jobs: recover: %w", err)
	}
	if n > 0 {
		r.log.Warn("jobs left unfinished by an earlier server marked interrupted", "jobs", n)
	}
	return n, nil
}

// Submit checks and stores a job, then queues it.
func (r *Runner) Submit(ctx context.Context, projectID int64, kind string, params json.RawMessage, by int64) (store.Job, error) {
	k, ok := r.kinds[kind]
	if !ok {
		if len(r.kinds) == 0 {
			return store.Job{}, apperr.Invalidf("kind", "this server runs no background jobs")
		}
		return store.Job{}, apperr.Invalidf("kind", "unknown job kind %q (want one of %s)", kind, strings.Join(r.Kinds(), ", "))
	}
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	if k.Check != nil {
		if err := k.Check(ctx, projectID, params); err != nil {
			return store.Job{}, err
		}
	}
	r.mu.Lock()
	stopped := r.stopped
	r.mu.Unlock()
	if stopped {
		return store.Job{}, fmt.Errorf("jobs: the server is shutting down: %w", apperr.ErrUnavailable)
	}
	if len(r.queue) == cap(r.queue) {
		return store.Job{}, fmt.Errorf("jobs: %d jobs are already waiting; try again later: %w", cap(r.queue), apperr.ErrUnavailable)
	}
	j, err := r.st.CreateJob(ctx, store.NewJob{ProjectID: projectID, Kind: kind, Params: params, CreatedBy: by})
	if err != nil {
		return store.Job{}, err
	}
	r.once.Do(r.startWorkers)
	select {
	case r.queue <- j.ID:
	default:
		// Filled up between the check and now.
		r.finish(j.ID, store.JobCancelled, "the job queue was full", nil)
		return store.Job{}, fmt.Errorf("jobs: the job queue is full; try again later: %w", apperr.ErrUnavailable)
	}
	r.log.Info("job queued", "job", j.ID, "kind", kind, "project", projectID)
	return j, nil
}

// Cancel ends a queued or running job of the runner.
func (r *Runner) Cancel(ctx context.Context, id int64) error {
	j, err := r.st.JobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.Finished() {
		return fmt.Errorf("jobs: job %d is already %s: %w", id, j.State, apperr.ErrConflict)
	}
	r.mu.Lock()
	cancel, running := r.running[id]
	if running {
		r.cancelled[id] = true
	}
	r.mu.Unlock()
	if running {
		cancel()
		return nil
	}
	// Queued: the worker skips it once it is no longer queued.
	return r.st.FinishJob(ctx, id, store.JobCancelled, "cancelled before it started", nil)
}

// Stop cancels running jobs, waits for them (until ctx ends) and records
// them, and every job still queued, as interrupted.
func (r *Runner) Stop(ctx context.Context) {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	r.stop()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		r.log.Warn("jobs: stopped waiting for running jobs", "err", ctx.Err())
	}
	for {
		select {
		case id := <-r.queue:
			r.finish(id, store.JobInterrupted, "the server stopped before the job started; start it again", nil)
		default:
			return
		}
	}
}

func (r *Runner) startWorkers() {
	for range r.opt.Workers {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for {
				select {
				case <-r.ctx.Done():
					return
				case id := <-r.queue:
					r.runOne(id)
				}
			}
		}()
	}
}

// runOne runs one job to a final state.
func (r *Runner) runOne(id int64) {
	if r.ctx.Err() != nil {
		r.finish(id, store.JobInterrupted, "the server stopped before the job started; start it again", nil)
		return
	}
	ok, err := r.st.StartJob(r.ctx, id)
	if err != nil || !ok {
		if err != nil {
			r.log.Error("jobs: start", "job", id, "err", err)
		}
		return // cancelled while queued, or the database is gone
	}
	job, err := r.st.JobByID(r.ctx, id)
	if err != nil {
		r.finish(id, store.JobFailed, err.Error(), nil)
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	defer cancel()
	r.mu.Lock()
	r.running[id] = cancel
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.running, id)
		delete(r.cancelled, id)
		r.mu.Unlock()
	}()

	start := time.Now()
	p := &progress{r: r, id: id, phaseStart: start}
	result, err := r.call(ctx, job, p.report)
	p.flush()

	r.mu.Lock()
	byUser := r.cancelled[id]
	r.mu.Unlock()
	var raw json.RawMessage
	if err == nil && result != nil {
		if raw, err = json.Marshal(result); err != nil {
			err = fmt.Errorf("jobs: encode result: %w", err)
		}
	}
	switch {
	case err == nil:
		r.finish(id, store.JobDone, "", raw)
		r.log.Info("job done", "job", id, "kind", job.Kind, "took", time.Since(start).Round(time.Millisecond))
	case byUser:
		r.finish(id, store.JobCancelled, "cancelled by a user", nil)
		r.log.Info("job cancelled", "job", id, "kind", job.Kind)
	case r.ctx.Err() != nil:
		r.finish(id, store.JobInterrupted, "the server stopped while the job was running; start it again", nil)
		r.log.Warn("job interrupted by shutdown", "job", id, "kind", job.Kind)
	default:
		r.finish(id, store.JobFailed, err.Error(), nil)
		r.log.Warn("job failed", "job", id, "kind", job.Kind, "err", err)
	}
}

// call runs the kind, turning a panic into an error: one bad job must not
// take the server down.
func (r *Runner) call(ctx context.Context, job store.Job, report Report) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("jobs: panic", "job", job.ID, "kind", job.Kind, "panic", p)
			result, err = nil, fmt.Errorf("internal error in the %s job: %v", job.Kind, p)
		}
	}()
	return r.kinds[job.Kind].Run(ctx, job, report)
}

// finish records a final state, even while the runner stops.
func (r *Runner) finish(id int64, state, msg string, result json.RawMessage) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.ctx), 10*time.Second)
	defer cancel()
	if err := r.st.FinishJob(ctx, id, state, msg, result); err != nil {
		r.log.Error("jobs: record final state", "job", id, "state", state, "err", err)
	}
}

// progress throttles a job's progress writes.
type progress struct {
	r          *Runner
	id         int64
	mu         sync.Mutex
	phase      string
	phaseStart time.Time
	done       int
	total      int
	written    time.Time
	dirty      bool
}

func (p *progress) report(phase string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if phase != p.phase {
		p.phase, p.phaseStart = phase, time.Now()
		p.written = time.Time{} // a new phase shows at once
	}
	p.done, p.total, p.dirty = done, total, true
	if time.Since(p.written) >= p.r.opt.ProgressEvery {
		p.write()
	}
}

func (p *progress) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dirty {
		p.write()
	}
}

// write stores the progress; the caller holds p.mu.
func (p *progress) write() {
	rate := 0.0
	if s := time.Since(p.phaseStart).Seconds(); s > 0 {
		rate = float64(p.done) / s
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.r.ctx), 5*time.Second)
	defer cancel()
	if err := p.r.st.SetJobProgress(ctx, p.id, p.phase, int64(p.done), int64(p.total), rate); err != nil && !errors.Is(err, context.Canceled) {
		p.r.log.Warn("jobs: progress", "job", p.id, "err", err)
	}
	p.written, p.dirty = time.Now(), false
}
