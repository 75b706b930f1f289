package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"boolpool/server/config"
	"boolpool/server/decompose"
	"boolpool/server/httpapi"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr, "")
	var cfg config.Config
	cfg.Register(fs)
	var jf jobFlags
	jf.register(fs, "workers", "background jobs this server runs at once per job queue (its in-process worker); "+
		"0 = none: the server only starts and cancels jobs, and 'boolpool worker' processes run them", 1)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := jf.validate(); err != nil {
		return err
	}
	log := cfg.Logger()
	logDecomposer(log)
	if cfg.DebugAddr != "" {
		serveDebug(ctx, cfg.DebugAddr, log)
	}
	st, err := openStoreConns(ctx, cfg.DatabaseURL, int32(cfg.DBMaxConns))
	if err != nil {
		return err
	}
	defer st.Close()
	opts := jf.appOptions()
	if opts.TestHoldAfterJudgment, err = testHold(); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, st, log, opts)
	if err != nil {
		return err
	}
	srv := httpapi.New(cfg, a.Services, log)
	log.Info("serving", "addr", "http://"+cfg.Addr, "job_workers", jf.concurrency)
	err = srv.Run(ctx)
	// The HTTP server has stopped (in-flight requests finished): stop the
	// services' background work (running jobs go back to the queue).
	closeApp(ctx, a, log)
	return err
}

// logDecomposer loads the embedded learned decomposer at start and says
// which decomposer the server uses (the rules when the model is missing).
func logDecomposer(log *slog.Logger) {
	m, err := decompose.DefaultModel()
	if err != nil {
		log.Warn("decomposer: learned model not loaded; using the rules", "err", err)
		return
	}
	e := m.Training.Eval
	log.Info("decomposer: learned model", "held_out_template_accuracy", e.All.TemplateAccuracy,
		"held_out_token_f1", e.All.TokenF1, "rules_below", m.RulesBelow)
}
