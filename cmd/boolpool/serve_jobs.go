package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"boolpool/encoders"
	"boolpool/server/app"
	"boolpool/server/config"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/sweep"
)

// jobFlags are the job queue's flags of serve and worker.
type jobFlags struct {
	queues      string
	concurrency int
	device      string
	rescueAfter time.Duration
	maxAttempts int
	sweepEvery  time.Duration
}

// register adds the flags; concurrencyFlag names the concurrency flag
// ("workers" for serve, "concurrency" for worker).
func (f *jobFlags) register(fs *flag.FlagSet, concurrencyFlag, concurrencyDoc string, concurrency int) {
	fs.IntVar(&f.concurrency, concurrencyFlag, concurrency, concurrencyDoc)
	fs.StringVar(&f.queues, "queues", os.Getenv("BOOLPOOL_QUEUES"), "comma-separated job queues to work: "+jobs.QueueDefault+
		" (retrieval runs, indexes, pools), "+jobs.QueueEncode+" (encoders); empty = both (env BOOLPOOL_QUEUES)")
	fs.StringVar(&f.device, "device", encoders.DeviceCPU, "execution `device` of the dense encoders of encode jobs: cpu or cuda")
	fs.DurationVar(&f.rescueAfter, "rescue-after", 2*time.Minute, "a running job whose worker has sent no heartbeat for this long (the worker died) is given to another worker")
	fs.IntVar(&f.maxAttempts, "max-attempts", 5, "attempts of a job this process starts before it fails (a worker's shutdown does not use one up)")
	fs.DurationVar(&f.sweepEvery, "sweep-every", sweep.DefaultEvery, "how often this process queues the due batches of live cal and atoms pools "+
		"that a process killed after a judgment left unqueued (it also does so, and repairs every project's consensus, at start)")
}

func (f *jobFlags) validate() error {
	if f.concurrency < 0 {
		return fmt.Errorf("%w: the number of concurrent jobs must be 0 or more", errUsage)
	}
	if f.device != encoders.DeviceCPU && f.device != encoders.DeviceCUDA {
		return fmt.Errorf("%w: --device must be cpu or cuda", errUsage)
	}
	if f.rescueAfter < time.Second {
		return fmt.Errorf("%w: --rescue-after must be at least 1s", errUsage)
	}
	if f.maxAttempts < 1 {
		return fmt.Errorf("%w: --max-attempts must be at least 1", errUsage)
	}
	if f.sweepEvery < time.Second {
		return fmt.Errorf("%w: --sweep-every must be at least 1s", errUsage)
	}
	return nil
}

// jobsConfig is the job client's configuration of the flags; it works
// jobs only when the concurrency is above 0.
func (f *jobFlags) jobsConfig() jobs.Config {
	var queues []string
	for _, q := range strings.Split(f.queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			queues = append(queues, q)
		}
	}
	return jobs.Config{Queues: queues, Concurrency: f.concurrency, RescueAfter: f.rescueAfter, MaxAttempts: f.maxAttempts}
}

// appOptions are the composition's options of the flags.
func (f *jobFlags) appOptions() app.Options {
	return app.Options{Jobs: f.jobsConfig(), Device: f.device, SweepEvery: f.sweepEvery}
}

// testHoldEnv names the environment variable of crash tests
// (app.Options.TestHoldAfterJudgment): a duration every judgment request
// of `boolpool serve` waits between its commit and its consensus refresh.
// Unset in production.
const testHoldEnv = "BOOLPOOL_TEST_HOLD_AFTER_JUDGMENT"

// testHold reads testHoldEnv (0 when unset).
func testHold() (time.Duration, error) {
	v := os.Getenv(testHoldEnv)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%w: %s=%q is not a duration", errUsage, testHoldEnv, v)
	}
	return d, nil
}

// newApp builds the composition root (server/app) of serve and worker;
// an option the job client refuses is a usage error.
func newApp(ctx context.Context, cfg config.Config, st *store.Store, log *slog.Logger, opts app.Options) (*app.App, error) {
	a, err := app.New(ctx, cfg, st, log, opts)
	var ce *app.ConfigError
	if errors.As(err, &ce) {
		return nil, fmt.Errorf("%w: %v", errUsage, ce.Err)
	}
	return a, err
}

// closeApp stops the composition at the end of a command (running jobs go
// back to the queue), waiting at most 15 s.
func closeApp(ctx context.Context, a *app.App, log *slog.Logger) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if err := a.Close(stopCtx); err != nil {
		log.Warn("stopping the services", "err", err)
	}
}
