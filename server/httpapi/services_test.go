package httpapi_test

import (
	"boolpool/server/atompool"
	"log/slog"
	"testing"
	"time"

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

// newServices builds the services as `boolpool serve` does
// (cmd/boolpool/services.go), with the given job client (nil: none; the
// caller stops it); they are stopped when the test ends (after the
// servers registered later are closed).
func newServices(t testing.TB, cfg config.Config, st *store.Store, log *slog.Logger, jc *jobs.Client) httpapi.Services {
	t.Helper()
	cons := consensus.NewService(st, log)
	dashboards := live.NewService(st, live.NewHub(16), 250*time.Millisecond, log)
	relay := live.NewRelay(st, cons, dashboards, log)
	cons.Subscribe(relay)
	cons.Subscribe(consensus.ItemListener(pooling.NewCALTrigger(st, jc, log).ItemChanged)) // as services.go
	cons.Subscribe(atompool.NewAtomsTrigger(st, jc, log))
	t.Cleanup(func() {
		cons.Close()
		dashboards.Close()
	})
	return httpapi.Services{
		Store: st,
		Auth: auth.New(st, auth.Options{
			SessionTTL: cfg.SessionTTL, SecureCookies: cfg.SecureCookies,
			LoginPerMinute: cfg.LoginPerMinute, AccountLoginPerMinute: cfg.AccountLoginPerMinute,
			MaxConcurrentHashes: cfg.MaxConcurrentHashes,
		}, log),
		Judging:   judging.New(st, cons, log),
		Consensus: cons,
		Live:      dashboards,
		Jobs:      jc,
		Relay:     relay,
	}
}
