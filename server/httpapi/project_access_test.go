package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/auth"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store"
)

// TestProjectRoutesRefuseForeignResearcher: a researcher of another
// project is refused on every researcher route under
// /api/projects/:project (the route-group check, projectAccess), and the
// project's own researcher is let through on each.
func TestProjectRoutesRefuseForeignResearcher(t *testing.T) {
	e := newEnv(t, 3, nil)
	ctx := context.Background()
	hash, err := auth.HashPassword(judgingtest.Password, auth.HashParams{MemoryKiB: 1024, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.st.CreateUser(ctx, store.NewUser{Username: "researcher-other", Role: api.RoleResearcher, PasswordHash: hash})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.AddProjectMember(ctx, e.fx.Other.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	cfg := config.Config{SessionTTL: time.Hour}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httpapi.New(cfg, newServices(t, cfg, e.st, log, 0), log)
	foreign, own := e.login("researcher-other"), e.login("researcher")
	checked := 0
	for _, r := range srv.Routes() {
		if !strings.HasPrefix(r.Path, "/api/projects/:project/") || routeAccess[r.Method+" "+r.Path] != researcher {
			continue
		}
		path := strings.NewReplacer(":project", "fixture", ":pool", "1", ":query", "1").Replace(r.Path)
		if st := foreign.status(r.Method, path); st != http.StatusForbidden {
			t.Errorf("%s %s as a researcher of another project: %d, want 403", r.Method, r.Path, st)
		}
		if st := own.status(r.Method, path); st == http.StatusForbidden || st == http.StatusUnauthorized {
			t.Errorf("%s %s as the project's researcher: %d", r.Method, r.Path, st)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d project routes checked; the route table changed?", checked)
	}
}
