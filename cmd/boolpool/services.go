package main

import (
	"context"
	"log/slog"
	"time"

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
)

// buildServices is the composition root of `boolpool serve`: it builds the
// domain services the HTTP layer calls and wires the judgment flow
// (judging → consensus → live). stop ends what they run in the
// background, in order, once the HTTP server has stopped: the jobs
// (handed back to the queue), the consensus worker (after applying every queued
// judgment), the dashboards' timers and reloads.
func buildServices(cfg config.Config, st *store.Store, jc *jobs.Client, encoderNames []string, log *slog.Logger) (svc httpapi.Services, stop func(context.Context)) {
	cons := consensus.NewService(st, log)
	dashboards := live.NewService(st, live.NewHub(16), 250*time.Millisecond, log)
	// live only follows the consensus: this server's refreshed items, and
	// (through the relay) those of the other servers on the database.
	relay := live.NewRelay(st, cons, dashboards, log)
	cons.Subscribe(relay)
	// A judged batch of a live cal pool queues the query's next batch.
	cons.Subscribe(consensus.ItemListener(pooling.NewCALTrigger(st, jc, log).ItemChanged))
	// A labelled batch of a live atoms pool queues its next batch.
	cons.Subscribe(atompool.NewAtomsTrigger(st, jc, log))
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
		Jobs:      jc,
		Encoders:  encoderNames,
		Relay:     relay,
	}
	stop = func(ctx context.Context) {
		if err := jc.Stop(ctx); err != nil {
			log.Warn("stopping the job worker", "err", err)
		}
		cons.Close()
		dashboards.Close()
	}
	return svc, stop
}
