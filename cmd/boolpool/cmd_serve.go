package main

import (
	"context"
	"fmt"
	"io"

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
	srv := httpapi.New(cfg, st, log, httpapi.WithJobs(serveJobs(st, log, "")))
	log.Info("serving", "addr", "http://"+cfg.Addr)
	return srv.Run(ctx)
}
