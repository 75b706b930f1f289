// Package jobs runs long work — encoder, retrieval and other runs started
// from the researchers' setup page — on River (github.com/riverqueue/river),
// a job queue kept in PostgreSQL, so that any number of web servers can
// start jobs and any number of worker processes (`boolpool worker`, or the
// worker inside `boolpool serve`) can run them.
//
// The rules:
//
//   - Kinds. What a job does is a Kind, supplied by whoever builds the
//     Client (the serve and worker commands inject the encoder kind, whose
//     code is cgo; the HTTP layer only knows kind names). A kind checks its
//     parameters before anything is stored, so bad input is a 400, not a
//     failed job. Each kind has a River queue: encode jobs have their own
//     (QueueEncode), so that they can be sent to machines with GPUs.
//   - Two records. The jobs table is what people see (the setup page's
//     list): queued → running → done | failed | cancelled | interrupted,
//     with phase, done/total and rate written at most every ProgressEvery
//     and once at the end, and the last error. River's river_job row is
//     the queue entry: it carries the jobs row's id, and River decides who
//     runs it, when, and how often. Submit writes both in one
//     transaction.
//   - Unique. A job of the same project, kind and parameters that is still
//     queued or running is not started twice: Submit returns it instead.
//   - Retries. An attempt that fails is retried (up to MaxAttempts, River's
//     backoff), its error shown on the queued row meanwhile; an error that
//     cannot pass by retrying (bad parameters, missing models, a panic:
//     Permanent) fails the job at once. A worker that stops (shutdown)
//     hands its jobs back to the queue at once, without using up an
//     attempt; a worker that dies stops its jobs' heartbeats, and River's
//     rescuer retries them after RescueAfter. Kinds resume where they can
//     (encoding skips the batches already committed).
//   - Cancellation. Cancel ends a job at a user's request from any server:
//     a queued job never starts, a running one's context ends (River tells
//     its worker through LISTEN/NOTIFY). Kinds must return when their
//     context ends.
package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Queues of the job kinds.
const (
	QueueDefault = river.QueueDefault // retrieval, indexing, pools: CPU and database work
	QueueEncode  = "encode"           // encoders: the work a GPU speeds up
)

// Report tells the client a job's progress: the phase it is in and how
// many of total units are done. Safe to call from several goroutines.
type Report func(phase string, done, total int)

// Attempt is one run of a job, as a kind's Run sees it.
type Attempt struct {
	Job store.Job
	// Number counts the attempts that ended in an error or a dead worker
	// (River's attempt): 1 on the first run.
	Number int
	// Resumed: an earlier attempt started this job (it failed, its worker
	// stopped or died); what it committed is in the database, and Job
	// holds the progress it reported.
	Resumed bool
	Report  Report
}

// Kind is one type of job.
type Kind struct {
	// Queue is the River queue of the kind's jobs (default QueueDefault).
	Queue string
	// Check validates a job's parameters before it is stored (nil: any).
	Check func(ctx context.Context, projectID int64, params json.RawMessage) error
	// Run does the work. Its result is stored as JSON with the job.
	Run func(ctx context.Context, a Attempt) (any, error)
}

// ParamsKind is a Kind on queue whose
// parameters parse decodes and checks, both when a job is submitted
// (Check) and when it runs: run gets them.
func ParamsKind[P any](queue string, parse func(json.RawMessage) (P, error), run func(ctx context.Context, a Attempt, p P) (any, error)) Kind {
	return Kind{
		Queue: queue,
		Check: func(_ context.Context, _ int64, raw json.RawMessage) error {
			_, err := parse(raw)
			return err
		},
		Run: func(ctx context.Context, a Attempt) (any, error) {
			p, err := parse(a.Job.Params)
			if err != nil {
				return nil, err
			}
			return run(ctx, a, p)
		},
	}
}

func (k Kind) queue() string {
	if k.Queue == "" {
		return QueueDefault
	}
	return k.Queue
}

// Config tunes a Client.
type Config struct {
	// Queues are the queues this process works (default: every queue of
	// the kinds).
	Queues []string
	// Concurrency is how many jobs of each queue run at once in this
	// process. 0: none; the client then only starts and cancels jobs
	// (a web server whose jobs run in `boolpool worker` processes).
	Concurrency int
	// MaxAttempts is how often a job this client starts is tried before
	// it fails (default 5); River stores it with the job.
	MaxAttempts int
	// RescueAfter is how long a running job may go without a heartbeat of
	// its worker before River's rescuer gives it to another worker
	// (default 2 minutes; heartbeats come every RescueAfter/4).
	RescueAfter time.Duration
	// ProgressEvery is the least time between progress writes (default
	// 500 ms).
	ProgressEvery time.Duration
	// Test starts River without its production start-up jitter (River's
	// TestOnly); for tests only.
	Test bool
	// MaxQueuedPerProject bounds the waiting jobs of one project that a
	// person may start (Submit with by ≠ 0): past it Submit is
	// ErrRateLimited (0: DefaultMaxQueuedPerProject). Jobs the server
	// queues itself (the cal and atoms triggers) are not refused.
	MaxQueuedPerProject int
}

// DefaultMaxQueuedPerProject is the default of Config.MaxQueuedPerProject.
const DefaultMaxQueuedPerProject = 20

// priorityStep is how many waiting jobs of a project share one River
// priority: a project's first priorityStep waiting jobs get priority 1,
// the next ones 2, then 3, then 4 (River runs lower numbers first). One
// project's long queue therefore does not hold up another project's
// first jobs: they overtake all but priorityStep of them.
const priorityStep = 4

// fairPriority is the River priority of a project's job with waiting
// jobs of the project already queued.
func fairPriority(waiting int) int {
	return 1 + min(3, waiting/priorityStep)
}

// Client starts, cancels and (with Concurrency > 0) runs jobs. Build it
// with New, then Start it; Stop it before the store's pool closes.
type Client struct {
	st    *store.Store
	log   *slog.Logger
	kinds map[string]Kind
	cfg   Config
	river *river.Client[pgx.Tx]
	// queueNames are the queues this process works (none with
	// Concurrency 0).
	queueNames []string

	mu      sync.Mutex
	started bool
}

// args is a River job's arguments: the jobs row it runs, and the project
// and parameters that make it unique (River adds the kind).
type args struct {
	JobID     int64           `json:"job_id"`
	KindName  string          `json:"kind"`
	ProjectID int64           `json:"project_id" river:"unique"`
	Params    json.RawMessage `json:"params" river:"unique"`
}

func (a args) Kind() string { return a.KindName }

// uniqueStates are the River states in which a job blocks another of the
// same project, kind and parameters: while it waits or runs. A finished
// job does not (run it again after importing more documents).
func uniqueStates() []rivertype.JobState {
	return []rivertype.JobState{
		rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled,
	}
}

// New builds a client over the store's pool for the given kinds.
func New(st *store.Store, log *slog.Logger, kinds map[string]Kind, cfg Config) (*Client, error) {
	if cfg.MaxAttempts < 1 {
		cfg.MaxAttempts = 5
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = 2 * time.Minute
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = 500 * time.Millisecond
	}
	if cfg.MaxQueuedPerProject <= 0 {
		cfg.MaxQueuedPerProject = DefaultMaxQueuedPerProject
	}
	c := &Client{st: st, log: log, kinds: make(map[string]Kind, len(kinds)), cfg: cfg}
	workers := river.NewWorkers()
	all := map[string]bool{}
	for name, k := range kinds {
		c.kinds[name] = k
		all[k.queue()] = true
		// One worker type serves every kind: the kinds are data (a map
		// the commands fill), not Go types, so each is registered with an
		// args value carrying its name. River's only way to do that is
		// river.AddWorkerArgs, which its documentation calls internal; the
		// kind name also travels in the args, so a decoded args value
		// names its kind.
		river.AddWorkerArgs(workers, args{KindName: name}, river.Worker[args](&worker{c: c}))
	}
	rc := &river.Config{
		Logger:      log,
		Workers:     workers,
		MaxAttempts: cfg.MaxAttempts,
		// Jobs run for hours: no deadline. A dead worker is found by its
		// jobs' heartbeats instead (worker.Timeout).
		JobTimeout:           -1,
		RescueStuckJobsAfter: cfg.RescueAfter,
		TestOnly:             cfg.Test,
	}
	if cfg.Concurrency > 0 {
		queues := cfg.Queues
		if len(queues) == 0 {
			for q := range all {
				queues = append(queues, q)
			}
		}
		rc.Queues = map[string]river.QueueConfig{}
		for _, q := range queues {
			if !all[q] {
				return nil, fmt.Errorf("jobs: no job kind uses queue %q (queues: %s)", q, strings.Join(slices.Sorted(maps.Keys(all)), ", "))
			}
			rc.Queues[q] = river.QueueConfig{MaxWorkers: cfg.Concurrency}
			c.queueNames = append(c.queueNames, q)
		}
		sort.Strings(c.queueNames)
	}
	rcl, err := river.NewClient(riverpgxv5.New(st.Pool()), rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	c.river = rcl
	return c, nil
}

// Kinds lists the kind names, sorted. A nil client runs no jobs.
func (c *Client) Kinds() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.kinds))
	for k := range c.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Queues lists the queues this client works (none when it only starts
// and cancels jobs).
func (c *Client) Queues() []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.queueNames...)
}

// Works reports whether this client runs jobs (Concurrency > 0).
func (c *Client) Works() bool { return c != nil && c.cfg.Concurrency > 0 }

// Start starts working jobs (when Concurrency > 0; otherwise it does
// nothing). Jobs left queued, handed back by a stopped worker or rescued
// from a dead one are taken up from the database.
func (c *Client) Start(ctx context.Context) error {
	if !c.Works() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return nil
	}
	// The client outlives the request context it may be started from; Stop
	// ends it.
	if err := c.river.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("jobs: start: %w", err)
	}
	c.started = true
	c.log.Info("job worker started", "queues", c.queueNames, "concurrency", c.cfg.Concurrency)
	return nil
}

// Stop ends the running jobs' contexts, waits for them (until ctx ends) and
// hands them back to the queue: they resume when a worker takes them up
// (this one after a restart, or another). Safe to call more than once.
func (c *Client) Stop(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return nil
	}
	c.started = false
	if err := c.river.StopAndCancel(ctx); err != nil {
		return fmt.Errorf("jobs: stop: %w", err)
	}
	return nil
}

// Submit checks and stores a job, and queues it. A job of the same project,
// kind and parameters that is still queued or running is returned instead
// of a new one. A person's job (by ≠ 0) is refused with ErrRateLimited
// when Config.MaxQueuedPerProject jobs of the project already wait; every
// job's River priority falls with the number of its project's waiting
// jobs (fairPriority), so projects take turns.
func (c *Client) Submit(ctx context.Context, projectID int64, kind string, params json.RawMessage, by int64) (store.Job, error) {
	if c == nil || len(c.kinds) == 0 {
		return store.Job{}, apperr.Invalidf("kind", "this server runs no background jobs")
	}
	k, ok := c.kinds[kind]
	if !ok {
		return store.Job{}, apperr.Invalidf("kind", "unknown job kind %q (want one of %s)", kind, strings.Join(c.Kinds(), ", "))
	}
	params, err := canonical(params)
	if err != nil {
		return store.Job{}, err
	}
	if k.Check != nil {
		if err := k.Check(ctx, projectID, params); err != nil {
			return store.Job{}, err
		}
	}
	var dup *rivertype.JobRow
	j, err := c.st.CreateJob(ctx, store.NewJob{ProjectID: projectID, Kind: kind, Params: params, CreatedBy: by},
		func(ctx context.Context, tx pgx.Tx, j store.Job) error {
			waiting, err := store.WaitingJobs(ctx, tx, projectID, j.ID)
			if err != nil {
				return err
			}
			res, err := c.river.InsertTx(ctx, tx, args{JobID: j.ID, KindName: kind, ProjectID: projectID, Params: params}, &river.InsertOpts{
				Queue:      k.queue(),
				Priority:   fairPriority(waiting),
				UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: uniqueStates()},
			})
			if err != nil {
				return fmt.Errorf("jobs: queue job: %w", err)
			}
			if res.UniqueSkippedAsDuplicate {
				dup = res.Job
				return errDuplicate
			}
			if by != 0 && waiting >= c.cfg.MaxQueuedPerProject {
				return fmt.Errorf("jobs: this project has %d jobs waiting (at most %d); wait for them to start or cancel some: %w",
					waiting, c.cfg.MaxQueuedPerProject, apperr.ErrRateLimited)
			}
			return nil
		})
	if errors.Is(err, errDuplicate) {
		var a args
		if err := json.Unmarshal(dup.EncodedArgs, &a); err != nil {
			return store.Job{}, fmt.Errorf("jobs: queued job %d: %w", dup.ID, err)
		}
		c.log.Info("job already queued or running", "job", a.JobID, "kind", kind, "project", projectID)
		return c.st.JobByID(ctx, a.JobID)
	}
	if err != nil {
		return store.Job{}, err
	}
	c.log.Info("job queued", "job", j.ID, "kind", kind, "project", projectID)
	return j, nil
}

var errDuplicate = errors.New("jobs: an equal job is queued or running")

// canonical re-encodes parameters with sorted keys and no spaces, so that
// equal parameters are equal bytes (for uniqueness).
func canonical(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage(`{}`), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apperr.Invalidf("params", "not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, apperr.Invalidf("params", "must be a JSON object")
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("jobs: params: %w", err)
	}
	return out, nil
}

// Cancel ends a queued or running job.
func (c *Client) Cancel(ctx context.Context, id int64) error {
	if c == nil {
		return fmt.Errorf("jobs: this server runs no background jobs: %w", apperr.ErrUnavailable)
	}
	j, err := c.st.JobByID(ctx, id)
	if err != nil {
		return err
	}
	if j.Finished() {
		return fmt.Errorf("jobs: job %d is already %s: %w", id, j.State, apperr.ErrConflict)
	}
	msg := "cancelled before it started"
	qid, err := c.st.QueueJobID(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// No queue entry (removed after River's retention): nothing runs it.
	case err != nil:
		return err
	default:
		row, err := c.river.JobCancel(ctx, qid)
		if err != nil && !errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("jobs: cancel job %d: %w", id, err)
		}
		if row != nil && row.State == rivertype.JobStateRunning {
			// Its worker's context ends now (or River's rescuer cancels it
			// if that worker is dead); the row is final from here on.
			msg = "cancelled by a user"
		}
	}
	if _, err := c.st.FinishJob(ctx, id, vocab.JobCancelled, msg, nil); err != nil {
		return err
	}
	c.log.Info("job cancelled", "job", id, "kind", j.Kind)
	return nil
}

// Permanent marks an error that retrying cannot cure (missing models, bad
// input): the job fails at once instead of being retried.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func isPermanent(err error) bool {
	var p *permanentError
	var inv *apperr.Invalid
	return errors.As(err, &p) || errors.As(err, &inv) || errors.Is(err, store.ErrNotFound)
}

// worker runs River's jobs of every kind.
type worker struct {
	river.WorkerDefaults[args]
	c *Client
}

// Timeout is River's per-worker timeout. River uses it twice: as the
// deadline of an attempt when a worker starts it, and in the rescuer, which
// retries a running job only when its attempted_at is older than the
// timeout. A job should have no deadline (an encode runs for hours), yet be
// rescued when its worker dies. The heartbeat keeps a live worker's
// attempted_at fresh, so:
//
//   - when a worker starts the attempt, attempted_at was set by the fetch
//     an instant ago: no deadline (-1);
//   - in the rescuer, the job's attempted_at is at least RescueAfter old
//     (no heartbeat for that long: its worker is gone): RescueAfter, which
//     lets River retry it.
//
// (The cut at RescueAfter/2 tolerates clock differences between worker
// and database of up to that much.)
func (w *worker) Timeout(rj *river.Job[args]) time.Duration {
	if rj.AttemptedAt != nil && time.Since(*rj.AttemptedAt) >= w.c.cfg.RescueAfter/2 {
		return w.c.cfg.RescueAfter
	}
	return -1
}

// Work runs one attempt of a job and records how it ended in the jobs row.
func (w *worker) Work(ctx context.Context, rj *river.Job[args]) error {
	c := w.c
	id := rj.Args.JobID
	k, ok := c.kinds[rj.Kind]
	if !ok {
		return river.JobCancel(fmt.Errorf("jobs: unknown kind %q", rj.Kind))
	}
	before, err := c.st.JobByID(ctx, id)
	if err != nil {
		return err
	}
	job, ok, err := c.st.StartJob(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return river.JobCancel(fmt.Errorf("jobs: job %d is already final", id))
	}
	c.log.Info("job started", "job", id, "kind", job.Kind, "attempt", rj.Attempt)
	stopBeat := c.heartbeat(rj.ID)
	start := time.Now()
	p := &progress{c: c, id: id, phaseStart: start, phase: job.Phase}
	result, err := c.call(ctx, k, Attempt{Job: job, Number: rj.Attempt, Resumed: before.StartedAt != nil, Report: p.report})
	stopBeat()
	p.flush()
	var raw json.RawMessage
	if err == nil && result != nil {
		if raw, err = json.Marshal(result); err != nil {
			err = Permanent(fmt.Errorf("jobs: encode result: %w", err))
		}
	}
	// Record the end even though the job's context has ended.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	log := c.log.With("job", id, "kind", job.Kind, "attempt", rj.Attempt)
	switch {
	case err == nil:
		if _, err := c.st.FinishJob(rec, id, vocab.JobDone, "", raw); err != nil {
			return err
		}
		log.Info("job done", "took", time.Since(start).Round(time.Millisecond))
		return nil
	case errors.Is(context.Cause(ctx), river.ErrJobCancelledRemotely):
		c.finish(rec, id, vocab.JobCancelled, "cancelled by a user")
		log.Info("job cancelled")
		return err
	case ctx.Err() != nil:
		// The worker is stopping: River hands the job back to the queue
		// without using up an attempt.
		c.requeue(rec, id, "interrupted: its worker stopped; it resumes when a worker takes it up")
		log.Warn("job interrupted by shutdown")
		return err
	case isPermanent(err):
		c.finish(rec, id, vocab.JobFailed, err.Error())
		log.Warn("job failed", "err", err)
		return river.JobCancel(err)
	case rj.Attempt >= rj.MaxAttempts:
		c.finish(rec, id, vocab.JobFailed, fmt.Sprintf("%v (after %d attempts)", err, rj.Attempt))
		log.Warn("job failed", "err", err)
		return err
	default:
		c.requeue(rec, id, fmt.Sprintf("attempt %d of %d failed: %v; retrying", rj.Attempt, rj.MaxAttempts, err))
		log.Warn("job attempt failed; River retries it", "err", err)
		return err
	}
}

func (c *Client) finish(ctx context.Context, id int64, state, msg string) {
	if _, err := c.st.FinishJob(ctx, id, state, msg, nil); err != nil {
		c.log.Error("jobs: record final state", "job", id, "state", state, "err", err)
	}
}

func (c *Client) requeue(ctx context.Context, id int64, msg string) {
	if err := c.st.RequeueJob(ctx, id, msg); err != nil {
		c.log.Error("jobs: requeue", "job", id, "err", err)
	}
}

// call runs the kind, turning a panic into a permanent error: one bad job
// must not take the worker down, nor be retried.
func (c *Client) call(ctx context.Context, k Kind, a Attempt) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("jobs: panic", "job", a.Job.ID, "kind", a.Job.Kind, "panic", p)
			result, err = nil, Permanent(fmt.Errorf("internal error in the %s job: %v", a.Job.Kind, p))
		}
	}()
	return k.Run(ctx, a)
}

// heartbeat touches the running queue entry every RescueAfter/4 until the
// returned stop is called (and returns after its goroutine has ended).
func (c *Client) heartbeat(queueID int64) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.cfg.RescueAfter / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				tctx, tcancel := context.WithTimeout(ctx, 10*time.Second)
				if err := c.st.TouchQueueJob(tctx, queueID); err != nil && ctx.Err() == nil {
					c.log.Warn("jobs: heartbeat", "queue_job", queueID, "err", err)
				}
				tcancel()
			}
		}
	}()
	return func() { cancel(); <-done }
}

// progress throttles a job's progress writes.
type progress struct {
	c          *Client
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
	} else if total == p.total && done < p.done {
		// Reports from a kind's parallel workers can arrive out of
		// order: within a phase the count only grows.
		return
	}
	p.done, p.total, p.dirty = done, total, true
	if time.Since(p.written) >= p.c.cfg.ProgressEvery {
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.c.st.SetJobProgress(ctx, p.id, p.phase, int64(p.done), int64(p.total), rate); err != nil {
		p.c.log.Warn("jobs: progress", "job", p.id, "err", err)
	}
	p.written, p.dirty = time.Now(), false
}
