// Package app is the composition root: New builds every service the web
// server runs (auth, judging, consensus, live with its relay, the live
// pools' triggers), the River job client with every job kind, and the
// registrations that wire the judgment flow (judging → consensus → live,
// the cal and atoms triggers); Close stops them in order. `boolpool serve`,
// `boolpool worker`, the HTTP tests and the browser tests all build their
// server here, so they run the wiring production runs.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"boolpool/encoders"
	"boolpool/server/atompool"
	"boolpool/server/auth"
	"boolpool/server/config"
	"boolpool/server/consensus"
	"boolpool/server/httpapi"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/live"
	"boolpool/server/pooling"
	"boolpool/server/store"
	"boolpool/server/sweep"
)

// liveThrottle is the least time between two pushes of one dashboard.
const liveThrottle = 250 * time.Millisecond

// Options are what differs between serve, worker and the tests; the
// wiring itself does not.
type Options struct {
	// Jobs configures the job client: its queues, how many jobs it runs at
	// once (0: none, it only starts and cancels jobs, as `serve --workers
	// 0`), rescue and attempts, and River's test mode.
	Jobs jobs.Config
	// CacheDir is the encoders' cache ("" = the default); Device runs the
	// dense encoders of encode jobs ("" = encoders.DeviceCPU).
	CacheDir string
	Device   string
	// OpenRuntime opens the ONNX Runtime of encode and dense retrieve jobs
	// (nil: OpenRuntime). The runtime is opened only when such a job runs,
	// so a server or test without the ONNX files works until one does
	// (the job then fails saying what to install).
	OpenRuntime func(encoders.Config) (*encoders.Runtime, error)
	// JobsOnly builds the job client alone (`boolpool worker`): no HTTP
	// services.
	JobsOnly bool
	// NoRelay leaves out the relay to the other servers on the database
	// (the live dashboards then follow the consensus directly).
	NoRelay bool
	// SweepEvery is how often the due batches of cal and atoms pools
	// are re-derived from the database (server/sweep; 0: sweep.DefaultEvery).
	// The full sweep, with every project's consensus repair, runs once at
	// start whatever the value.
	SweepEvery time.Duration
	// TestHoldAfterJudgment, for crash tests only, makes every judgment
	// request wait this long between committing the judgment and telling
	// the consensus (0 in production: `boolpool serve` sets it only from
	// the environment variable BOOLPOOL_TEST_HOLD_AFTER_JUDGMENT).
	TestHoldAfterJudgment time.Duration
}

// App is the running composition: the services httpapi serves and the
// job client. Build it with New, stop it with Close.
type App struct {
	// Services are the services handed to httpapi.New (zero with
	// Options.JobsOnly but for Store and Jobs).
	Services httpapi.Services
	// Jobs is the started job client.
	Jobs *jobs.Client
	// Sweeper is the started crash-repair sweep (its Sweep runs one now:
	// tests and tools).
	Sweeper *sweep.Sweeper

	log        *slog.Logger
	judgments  *store.JudgmentBatcher // nil with JobsOnly
	consensus  *consensus.Service     // nil with JobsOnly
	dashboards *live.Service          // nil with JobsOnly
}

// ConfigError is an Options value the job client refuses (say, a queue no
// job kind uses): the caller's input, not a failure.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// New builds and starts the composition over st: the job client with
// every job kind (started: with Options.Jobs.Concurrency above 0 it works
// jobs), then, unless Options.JobsOnly, the services with the judgment flow
// registered: judging tells consensus of every relevance and constraint
// judgment; consensus tells the live dashboards (through the relay), the cal
// trigger (a judged batch of a cal pool queues its next batch) and,
// of every changed atom label, the atoms trigger (a labelled batch of a
// atoms pool queues its next batch). Server or worker, it starts the
// sweep (server/sweep): the start-up repair of every project's consensus, then
// the due batches that a process killed before its trigger ran did not
// queue, again every Options.SweepEvery.
func New(ctx context.Context, cfg config.Config, st *store.Store, log *slog.Logger, opts Options) (*App, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Jobs.MaxQueuedPerProject == 0 {
		opts.Jobs.MaxQueuedPerProject = cfg.QueuedJobsPerProject()
	}
	jc, err := jobs.New(st, log, JobKinds(st, log, opts), opts.Jobs)
	if err != nil {
		return nil, &ConfigError{err}
	}
	if err := jc.Start(ctx); err != nil {
		return nil, err
	}
	a := &App{Jobs: jc, log: log, Services: httpapi.Services{Store: st, Jobs: jc}}
	calTrigger := pooling.NewCALTrigger(st, jc, log)
	a.Services.CAL = pooling.NewCALControl(st, calTrigger)
	atomsTrigger := atompool.NewAtomsTrigger(st, jc, log)
	a.Sweeper = sweep.New(st, calTrigger, atomsTrigger, log, opts.SweepEvery)
	a.Sweeper.Start()
	if opts.JobsOnly {
		return a, nil
	}
	cons := consensus.NewService(st, log)
	dashboards := live.NewService(st, live.NewHub(16), liveThrottle, log)
	a.consensus, a.dashboards = cons, dashboards
	if opts.NoRelay {
		cons.AddItemListener(dashboards)
	} else {
		// live only follows the consensus: this server's refreshed items,
		// and (through the relay) those of the other servers on the database.
		relay := live.NewRelay(st, cons, dashboards, log)
		cons.AddItemListener(relay)
		a.Services.Relay = relay
	}
	cons.AddItemListener(calListener{calTrigger})
	cons.AddConstraintListener(atomsTrigger)
	var obs judgmentObserver = cons
	if opts.TestHoldAfterJudgment > 0 {
		log.Warn("crash-test hold: every judgment waits after its commit before its consensus refresh", "hold", opts.TestHoldAfterJudgment)
		obs = holdObserver{cons: cons, hold: opts.TestHoldAfterJudgment}
	}
	// Judgments are group-committed: those that arrive while a batch is
	// being written are written together in the next one.
	a.judgments = store.NewJudgmentBatcher(st, log)
	judge := judging.New(batchedJudgments{st, a.judgments}, obs, log) // every stored relevance judgment reaches the consensus
	judge.ObserveConstraints(obs)                                     // and every constraint judgment the atom labels
	a.Services.Auth = auth.New(st, auth.Options{
		SessionTTL: cfg.SessionTTL, SecureCookies: cfg.SecureCookies,
		LoginPerMinute: cfg.LoginPerMinute, AccountLoginPerMinute: cfg.AccountLoginPerMinute,
		MaxConcurrentHashes: cfg.MaxConcurrentHashes,
	}, log)
	a.Services.Judging = judge
	a.Services.Consensus = cons
	a.Services.Live = dashboards
	a.Services.Encoders = EncoderNames()
	return a, nil
}

// Settle waits until every judgment acknowledged before the call has
// reached the consensus (a refresh runs after the judgment's commit, in
// the background): for tests and tools that read consensus-derived data
// (browse, exports, agreement) right after judging. A no-op with JobsOnly.
func (a *App) Settle() {
	if a.consensus != nil {
		a.consensus.Flush()
	}
}

// Close stops the background work, in order, once the HTTP server has
// stopped: the judgment writer (after writing what was queued), the sweeps,
// the job client (its running jobs go back to the queue, until ctx ends),
// then the consensus worker (after applying every queued
// judgment), then the dashboards' timers and reloads. It returns the job
// client's error, after stopping the rest.
func (a *App) Close(ctx context.Context) error {
	var err error
	if a.judgments != nil {
		a.judgments.Close()
	}
	a.Sweeper.Close()
	if e := a.Jobs.Stop(ctx); e != nil {
		err = fmt.Errorf("stopping the job worker: %w", e)
	}
	if a.consensus != nil {
		a.consensus.Close()
	}
	if a.dashboards != nil {
		a.dashboards.Close()
	}
	return err
}

// batchedJudgments is the store judging uses: every judgment goes through
// the batcher (group commit), everything else straight to the store.
type batchedJudgments struct {
	*store.Store
	batcher *store.JudgmentBatcher
}

func (b batchedJudgments) SaveJudgment(ctx context.Context, n store.NewJudgment) (store.Judgment, bool, error) {
	return b.batcher.SaveJudgment(ctx, n)
}
