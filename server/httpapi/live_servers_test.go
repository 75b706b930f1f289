package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store/storetest"
)

// TestLiveAcrossServers: two servers on one database, each relaying
// judgments over LISTEN/NOTIFY. Annotators judge on both; a dashboard on
// each server sees every judgment.
func TestLiveAcrossServers(t *testing.T) {
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 1)
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 64 << 10, LoginPerMinute: 100, StaticDir: t.TempDir()}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var envs [2]*env
	for i := range envs {
		h := httpapi.New(cfg, newServices(t, cfg, st, log, 0), log)
		srv := httptest.NewServer(h.Handler())
		ctx, stop := context.WithCancel(context.Background())
		ready, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			h.RelayJudgments(ctx, func() { close(ready) })
		}()
		t.Cleanup(func() { srv.Close(); stop(); <-done })
		<-ready
		envs[i] = &env{t: t, st: st, fx: fx, srv: srv}
	}
	dash := [2]*sseClient{envs[0].login("researcher").subscribe("/api/projects/fixture/live"), envs[1].login("researcher").subscribe("/api/projects/fixture/live")}
	for _, d := range dash {
		if first := d.until(t, "the first snapshot", func(api.LiveSnapshot) bool { return true }); first.Progress.Judged != 0 {
			t.Fatalf("first snapshot: %+v", first.Progress)
		}
	}
	// annotator1 judges on the first server, annotator2 on the second,
	// three items each.
	n := 0
	for i, name := range []string{"annotator1", "annotator2"} {
		u := envs[i].login(name)
		for _, task := range u.queue(api.KindRelevance, 3).Tasks {
			req := api.JudgmentRequest{ClientID: uuid(2000 + n), AuthorID: u.id, ItemID: task.ItemID, Kind: api.KindRelevance,
				Relevance: rel(n % 4), Evidence: api.EvidenceComplete, TimeSpentMs: 1000}
			var res api.JudgmentResponse
			if st := u.do("POST", "/api/judgments", req, &res); st != 201 {
				t.Fatalf("%s judges item %d: status %d", name, task.ItemID, st)
			}
			n++
		}
	}
	if n != 6 {
		t.Fatalf("%d judgments, want 6", n)
	}
	for i, d := range dash {
		snap := d.until(t, "all 6 judgments", func(s api.LiveSnapshot) bool { return s.Progress.Judged == 6 })
		if snap.Consensus.Items != 6 {
			t.Errorf("server %d: consensus over %d items, want 6", i, snap.Consensus.Items)
		}
	}
}
