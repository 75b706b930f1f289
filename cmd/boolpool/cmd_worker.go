package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"boolpool/server/config"
)

// runWorker runs background jobs (every kind of server/app.JobKinds)
// and nothing else: the jobs web servers started (`boolpool serve`, with
// --workers 0 when only workers should run them). Several workers, on several machines, may
// share one database; each takes jobs of its --queues.
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("worker", stderr, "usage: boolpool worker [--queues default,encode] [--concurrency 1] [--device cpu|cuda]\n\n"+
		"Runs the background jobs that web servers queue (encoder and retrieval runs, indexes,\n"+
		"pools) until interrupted; on SIGINT/SIGTERM its running jobs go back to the queue and\n"+
		"resume in the next worker. Encode jobs have their own queue: a machine with a GPU can run\n"+
		"'boolpool worker --queues encode --device cuda'.")
	db := dbFlag(fs)
	var jf jobFlags
	jf.register(fs, "concurrency", "jobs run at once per queue", 1)
	var level slog.Level
	fs.TextVar(&level, "log-level", slog.LevelInfo, "debug|info|warn|error")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := jf.validate(); err != nil {
		return err
	}
	if jf.concurrency < 1 {
		return fmt.Errorf("%w: --concurrency must be at least 1", errUsage)
	}
	if *db == "" {
		return fmt.Errorf("%w: no database: set DATABASE_URL or pass --database-url", errUsage)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// Each running job holds a few connections (progress, its queries);
	// River holds one to listen and a few to fetch and complete.
	st, err := openStoreConns(ctx, *db, int32(8+4*jf.concurrency))
	if err != nil {
		return err
	}
	defer st.Close()
	opts := jf.appOptions()
	opts.JobsOnly = true
	a, err := newApp(ctx, config.Config{}, st, log, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "worker running jobs of queues %v, %d at a time each; stop with Ctrl-C\n", a.Jobs.Queues(), jf.concurrency)
	<-ctx.Done()
	closeApp(ctx, a, log)
	return nil
}
