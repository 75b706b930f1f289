package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr, "")
	var cfg config.Config
	cfg.Register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	log := cfg.Logger()
	if cfg.DebugAddr != "" {
		serveDebug(ctx, cfg.DebugAddr, log)
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, int32(cfg.DBMaxConns))
	if err != nil {
		return err
	}
	defer st.Close()
	// Refuse to start on a schema that is behind: running old code paths
	// against a half-migrated database is how judgments get lost.
	if err := st.CheckSchema(ctx); err != nil {
		return err
	}
	svc, stop := buildServices(cfg, st, serveJobs(st, log, ""), log)
	// Jobs still queued or running in the database belonged to a server
	// that stopped: show them as interrupted, not as running forever.
	if _, err := svc.Jobs.Recover(ctx); err != nil {
		stop(ctx)
		return err
	}
	srv := httpapi.New(cfg, svc, log)
	log.Info("serving", "addr", "http://"+cfg.Addr)
	err = srv.Run(ctx)
	// The HTTP server has stopped (in-flight requests finished): stop the
	// services' background work.
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	stop(stopCtx)
	return err
}
