// Package apptest builds the composition root (server/app) for a test, as
// `boolpool serve` and `boolpool worker` do, and closes it when the test
// ends: the one copy of that set-up for every package's tests.
package apptest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"boolpool/server/app"
	"boolpool/server/config"
	"boolpool/server/store"
)

// New returns app.New(cfg, st, log, opts), failing the test on an error;
// the App is closed (10 s at most) when the test ends, after the cleanups
// registered later, such as a server over its services.
func New(t testing.TB, cfg config.Config, st *store.Store, log *slog.Logger, opts app.Options) *app.App {
	t.Helper()
	a, err := app.New(context.Background(), cfg, st, log, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return a
}
