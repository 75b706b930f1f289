package main

import (
	"context"
	"log/slog"
	"time"

	"boolpool/server/auth"
	"boolpool/server/config"
	"boolpool/server/consensus"
	"boolpool/server/httpapi"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/live"
	"boolpool/server/store"
)

// buildServices is the composition root of `boolpool serve`: it builds the
// domain services the HTTP layer calls and wires the judgment flow
// (judging → consensus → live). stop ends what they run in the
// background, in order, once the HTTP server has stopped: the jobs
// (interrupted), the consensus worker (after applying every queued
// judgment), the dashboards' timers and reloads.
func buildServices(cfg config.Config, st *store.Store, jc jobsConfig, log *slog.Logger) (svc httpapi.Services, stop func(context.Context)) {
	cons := consensus.NewService(st, log)
	dashboards := live.NewService(st, live.NewHub(16), 250*time.Millisecond, log)
	cons.Subscribe(dashboards) // live only follows the consensus
	runner := jobs.New(st, log, jc.Kinds, jobs.Options{Workers: jc.Workers})
	svc = httpapi.Services{
		Store: st,
		Auth: auth.New(st, auth.Options{
			SessionTTL: cfg.SessionTTL, SecureCookies: cfg.SecureCookies,
			LoginPerMinute: cfg.LoginPerMinute, AccountLoginPerMinute: cfg.AccountLoginPerMinute,
			MaxConcurrentHashes: cfg.MaxConcurrentHashes,
		}, log),
		Judging:   judging.New(st, cons, log), // every stored judgment reaches the consensus
		Consensus: cons,
		Live:      dashboards,
		Jobs:      runner,
		Encoders:  jc.Encoders,
	}
	stop = func(ctx context.Context) {
		runner.Stop(ctx)
		cons.Close()
		dashboards.Close()
	}
	return svc, stop
}
