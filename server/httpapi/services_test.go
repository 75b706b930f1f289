package httpapi_test

import (
	"log/slog"
	"testing"

	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/jobs"
	"boolpool/server/store"
)

// newServices builds the services as `boolpool serve` does (server/app),
// with a job client of every kind that runs workers jobs at once (0: it
// only queues them, as serve --workers 0); they are stopped when the test
// ends (after the servers registered later are closed).
func newServices(t testing.TB, cfg config.Config, st *store.Store, log *slog.Logger, workers int) httpapi.Services {
	t.Helper()
	return newApp(t, cfg, st, log, workers).Services
}

// newApp is newServices with the whole composition, for tests that wait
// for background work (App.Settle).
func newApp(t testing.TB, cfg config.Config, st *store.Store, log *slog.Logger, workers int) *app.App {
	t.Helper()
	return apptest.New(t, cfg, st, log, app.Options{Jobs: jobs.Config{Concurrency: workers, Test: true}, CacheDir: t.TempDir()})
}
