package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/boolexpr"
	"boolpool/server/config"
	"boolpool/server/decompose"
	"boolpool/server/httpapi"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// newPoolEnv is the fixture (2 raters per item) with its two stored runs,
// served with a job client running the pool kind (the publish endpoint's
// jobs), as serve builds it.
func newPoolEnv(t *testing.T) *env { return newJobsEnv(t, 1, true) }

// newPoolEnvWorkers is newPoolEnv whose job client runs workers jobs at
// once (0: none; the jobs stay queued).
func newPoolEnvWorkers(t *testing.T, workers int) *env { return newJobsEnv(t, workers, true) }

// newJobsEnv is the fixture (2 raters per item), with its two stored runs
// when runs is set, served with the job client of serve (every kind)
// running workers jobs at once (0: none; the jobs stay queued).
func newJobsEnv(t *testing.T, workers int, runs bool) *env {
	t.Helper()
	if runs {
		st, fx := fixtureWithRuns(t, 2)
		return serveWithJobs(t, st, fx, workers)
	}
	st := storetest.New(t)
	return serveWithJobs(t, st, judgingtest.New(t, st, 2), workers)
}

// fixtureWithRuns is the fixture (raters per item) with its two stored runs.
func fixtureWithRuns(t *testing.T, raters int) (*store.Store, *judgingtest.Fixture) {
	t.Helper()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, raters)
	if err := judgingtest.AddRuns(context.Background(), st, fx); err != nil {
		t.Fatal(err)
	}
	return st, fx
}

// serveWithJobs serves the fixture with the services and job client of
// serve (server/app: every job kind), the client running workers jobs at
// once; both stop when the test ends. Warnings and errors are logged to
// the test's output.
func serveWithJobs(t *testing.T, st *store.Store, fx *judgingtest.Fixture, workers int) *env {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 64 << 10, MaxUploadBytes: 1 << 20, LoginPerMinute: 100, StaticDir: t.TempDir()}
	srv := httptest.NewServer(httpapi.New(cfg, newServices(t, cfg, st, log, workers), log).Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, st: st, fx: fx, srv: srv}
}

// publishPool publishes a pool through the pool builder's endpoint: a 202
// with the queued job, then the job followed (GET /api/jobs/:id) until it
// is done; it returns the job's result.
func publishPool(t *testing.T, u *user, project string, spec api.PoolSpec) api.PoolPublished {
	t.Helper()
	var j api.JobView
	var p api.Problem
	if st := u.do("POST", "/api/projects/"+project+"/pools", spec, &j); st != http.StatusAccepted {
		_ = u.do("POST", "/api/projects/"+project+"/pools", spec, &p)
		t.Fatalf("publish: %d %+v", st, p)
	}
	if j.ID == 0 || j.Kind != api.JobKindPool || (j.State != api.JobQueued && j.State != api.JobRunning && j.State != api.JobDone) {
		t.Fatalf("publish answered %+v", j)
	}
	j = followJob(t, u, j.ID)
	var pub api.PoolPublished
	if err := json.Unmarshal(j.Result, &pub); j.State != api.JobDone || err != nil {
		t.Fatalf("pool job %+v result %s: %v", j, j.Result, err)
	}
	return pub
}

// followJob polls a job as the pool builder page does until it is final.
func followJob(t *testing.T, u *user, id int64) api.JobView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var j api.JobView
		if st := u.do("GET", fmt.Sprintf("/api/jobs/%d", id), nil, &j); st != 200 {
			t.Fatalf("job %d: %d", id, st)
		}
		if j.Finished() {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d still %s (%s %d/%d)", id, j.State, j.Phase, j.Done, j.Total)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestPoolRunsList(t *testing.T) {
	e := newPoolEnv(t)
	var runs []api.RunSummary
	if st := e.login("researcher").do("GET", "/api/projects/fixture/runs", nil, &runs); st != 200 {
		t.Fatalf("runs: %d", st)
	}
	if len(runs) != 2 || runs[0].Name != "bm25" || runs[0].Queries != 2 || runs[0].Results != 5 || runs[1].Name != "dense" {
		t.Errorf("runs = %+v", runs)
	}
}

func TestPoolPreviewAndPublish(t *testing.T) {
	e := newPoolEnv(t)
	u := e.login("researcher")
	ctx := context.Background()
	before, err := e.st.CountItems(ctx, e.fx.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	spec := api.PoolSpec{Name: "p1", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: api.StrategyDepth, JudgedK: []int{2}}
	var pv api.PoolPreview
	if st := u.do("POST", "/api/projects/fixture/pools/preview", spec, &pv); st != 200 {
		t.Fatalf("preview: %d", st)
	}
	c := pv.Composition
	// q1: d1 (both), d5, d6; q2: d5, d1, d6, d3.
	if pv.Items != 7 || c.Queries != 2 || len(c.Runs) != 2 || c.Runs[0].Contributed != 4 || c.Runs[0].Unique != 3 ||
		c.Runs[1].Contributed != 4 || c.Runs[1].Unique != 3 || c.Overlap[0][1] != 1 {
		t.Errorf("preview = %+v", pv)
	}
	if pv.JudgedAtK["bm25"][2] != 1 {
		t.Errorf("judged@2 of bm25 = %v, want 1", pv.JudgedAtK["bm25"][2])
	}
	pools, err := e.st.ListPools(ctx, e.fx.Project.ID)
	if err != nil || len(pools) != 0 {
		t.Fatalf("preview saved a pool: %+v %v", pools, err)
	}

	spec.RatersPerItem = 3
	pub := publishPool(t, u, "fixture", spec)
	// Four pairs are new; the other three already had items.
	if pub.PoolID == 0 || pub.ItemsCreated != 4 || pub.RatersPerItem != 3 || pub.Preview.Items != 7 {
		t.Errorf("published = %+v", pub)
	}
	p, err := e.st.ProjectByID(ctx, e.fx.Project.ID)
	if err != nil || p.RatersPerItem != 3 {
		t.Errorf("raters per item = %d (%v), want 3", p.RatersPerItem, err)
	}
	after, err := e.st.CountItems(ctx, e.fx.Project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) == fmt.Sprint(after) {
		t.Errorf("item counts unchanged: %+v", after)
	}
	pools, err = e.st.ListPools(ctx, e.fx.Project.ID)
	if err != nil || len(pools) != 1 || pools[0].Status != "published" {
		t.Errorf("pools = %+v %v", pools, err)
	}
	// The same name again: the published pool is never replaced.
	var prob api.Problem
	if st := u.do("POST", "/api/projects/fixture/pools", spec, &prob); st != 409 || prob.Field != "name" {
		t.Errorf("republish: %d %+v, want 409 on name", st, prob)
	}
	// The job is listed with the project's jobs (the setup page).
	var js []api.JobView
	if st := u.do("GET", "/api/projects/fixture/jobs", nil, &js); st != 200 || len(js) != 1 || js[0].Kind != api.JobKindPool || js[0].State != api.JobDone {
		t.Errorf("jobs: %d %+v", st, js)
	}
}

// TestPoolPublishQueued: the same spec published twice while its job waits
// is one job (the second answer is that job), a pool without a name gets
// one so its job's retries publish the same pool, and a queued publish is
// cancelled like any job: nothing is published.
func TestPoolPublishQueued(t *testing.T) {
	e := newPoolEnvWorkers(t, 0)
	u := e.login("researcher")
	spec := api.PoolSpec{Name: "p1", Runs: []string{"bm25"}, Depth: 2, Strategy: api.StrategyDepth}
	var first, again api.JobView
	if st := u.do("POST", "/api/projects/fixture/pools", spec, &first); st != 202 || first.State != api.JobQueued {
		t.Fatalf("publish: %d %+v", st, first)
	}
	if st := u.do("POST", "/api/projects/fixture/pools", spec, &again); st != 202 || again.ID != first.ID {
		t.Fatalf("publish again: %d %+v, want job %d", st, again, first.ID)
	}
	var unnamed api.JobView
	if st := u.do("POST", "/api/projects/fixture/pools", api.PoolSpec{Runs: []string{"dense"}, Depth: 1, Strategy: api.StrategyDepth}, &unnamed); st != 202 {
		t.Fatalf("publish unnamed: %d", st)
	}
	var params api.PoolSpec
	if err := json.Unmarshal(unnamed.Params, &params); err != nil || !strings.HasPrefix(params.Name, "pool ") {
		t.Fatalf("unnamed pool's job params %s: %v", unnamed.Params, err)
	}
	var cancelled api.JobView
	if st := u.do("POST", fmt.Sprintf("/api/jobs/%d/cancel", first.ID), nil, &cancelled); st != 200 || cancelled.State != api.JobCancelled {
		t.Fatalf("cancel: %d %+v", st, cancelled)
	}
	if pools, err := e.st.ListPools(context.Background(), e.fx.Project.ID); err != nil || len(pools) != 0 {
		t.Fatalf("pools after a cancelled publish: %+v %v", pools, err)
	}
}

func TestPoolPreviewWithProbes(t *testing.T) {
	e := newPoolEnv(t)
	spec := api.PoolSpec{Runs: []string{"bm25"}, Depth: 1, Strategy: api.StrategyBandit, Probes: true, ProbeDepth: 3}
	var pv api.PoolPreview
	if st := e.login("researcher").do("POST", "/api/projects/fixture/pools/preview", spec, &pv); st != 200 {
		t.Fatalf("preview: %d", st)
	}
	// bm25 contributes its top document per query; the probes add documents
	// carrying a probe label (built from the lexical index on demand).
	c := pv.Composition
	if c.Runs[0].Contributed != 2 || c.ProbeItems == 0 || c.Items != c.Runs[0].Contributed+c.ProbeOnly {
		t.Errorf("composition = %+v", c)
	}
	t.Logf("probe items %d, probe-only %d of %d", c.ProbeItems, c.ProbeOnly, c.Items)
}

func TestPoolBadSpec(t *testing.T) {
	e := newPoolEnv(t)
	u := e.login("researcher")
	ok := api.PoolSpec{Runs: []string{"bm25"}, Depth: 5, Strategy: api.StrategyMTF}
	cases := []struct {
		name  string
		edit  func(*api.PoolSpec)
		field string
	}{
		{"no runs", func(s *api.PoolSpec) { s.Runs = nil }, "runs"},
		{"unknown run", func(s *api.PoolSpec) { s.Runs = []string{"bm25", "nope"} }, "runs[1]"},
		{"twice", func(s *api.PoolSpec) { s.Runs = []string{"bm25", "bm25"} }, "runs[1]"},
		{"depth", func(s *api.PoolSpec) { s.Depth = 0 }, "depth"},
		{"strategy", func(s *api.PoolSpec) { s.Strategy = "docid" }, "strategy"},
		{"raters", func(s *api.PoolSpec) { s.RatersPerItem = 21 }, "raters_per_item"},
		{"judged k", func(s *api.PoolSpec) { s.JudgedK = []int{10, -1} }, "judged_k[1]"},
	}
	for _, tc := range cases {
		for _, path := range []string{"/api/projects/fixture/pools/preview", "/api/projects/fixture/pools"} {
			s := ok
			tc.edit(&s)
			var p api.Problem
			if st := u.do("POST", path, s, &p); st != 400 || p.Field != tc.field {
				t.Errorf("%s %s: %d %+v, want 400 on %s", tc.name, path, st, p, tc.field)
			}
		}
	}
	var p api.Problem
	if st := u.do("POST", "/api/projects/fixture/pools/preview", `{"runs":["bm25"],"depth":"deep"}`, &p); st != 400 || p.Field != "depth" {
		t.Errorf("depth as string: %d %+v", st, p)
	}
	if st := e.login("annotator1").do("POST", "/api/projects/fixture/pools/preview", ok, nil); st != 403 {
		t.Errorf("annotator preview: %d, want 403", st)
	}
}

func TestExpressionListAndDecompose(t *testing.T) {
	e := newEnv(t, 2, nil)
	u := e.login("researcher")
	var qs []api.QueryExpression
	if st := u.do("GET", "/api/projects/fixture/queries", nil, &qs); st != 200 {
		t.Fatalf("queries: %d", st)
	}
	if len(qs) != 2 || qs[0].ExtID != "q1" || qs[0].Expression != "A AND NOT B" || len(qs[0].Atoms) != 2 ||
		qs[0].Atoms[0] != "Birds of the Venezuelan Andes" || qs[1].Expression != "A AND B" {
		t.Errorf("queries = %+v", qs)
	}
	var sug api.ExpressionSuggestion
	if st := u.do("GET", fmt.Sprintf("/api/queries/%d/decompose", qs[0].ID), nil, &sug); st != 200 {
		t.Fatalf("decompose: %d", st)
	}
	if len(sug.Atoms) == 0 || sug.Expression == "" {
		t.Errorf("suggestion = %+v", sug)
	}
	if want := decompose.Decompose(qs[0].Text); sug.Confidence != want.Confidence || sug.Source != want.Source || sug.Source == "" {
		t.Errorf("suggestion confidence %v source %q, want %v %q", sug.Confidence, sug.Source, want.Confidence, want.Source)
	}
	if _, err := boolexpr.ParseJSON(sug.Tree, len(sug.Atoms)); err != nil {
		t.Errorf("suggestion tree: %v", err)
	}
	if st := u.do("GET", "/api/queries/999999/decompose", nil, nil); st != 404 {
		t.Errorf("unknown query: %d, want 404", st)
	}
}

func TestExpressionSet(t *testing.T) {
	e := newEnv(t, 2, nil)
	u := e.login("researcher")
	ctx := context.Background()
	id := e.fx.Queries["q1"]
	path := fmt.Sprintf("/api/queries/%d/expression", id)

	// Letter notation with atom texts.
	req := api.ExpressionRequest{Expression: "(A AND B) AND NOT C", Atoms: []string{"Birds", "Venezuelan Andes", "birds of Colombia"}}
	var got api.QueryExpression
	if st := u.do("PUT", path, req, &got); st != 200 {
		t.Fatalf("set: %d", st)
	}
	if got.Expression != "(A AND B) AND NOT C" || len(got.Atoms) != 3 {
		t.Errorf("answer = %+v", got)
	}
	q, err := e.st.QueryByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	x, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms))
	if err != nil || x.String() != "(A AND B) AND NOT C" || len(q.Atoms) != 3 || q.Atoms[2].Text != "birds of Colombia" {
		t.Fatalf("stored = %s %+v (%v)", q.Expression, q.Atoms, err)
	}
	if want, _ := boolexpr.TemplateOf(x); q.Template != want {
		t.Errorf("template = %q, want %q", q.Template, want)
	}
	// An unchanged atom keeps its span; a new one is located in the text.
	if a := q.Atoms[2]; q.Text[a.Start:a.End] != "birds of Colombia" {
		t.Errorf("span of kept atom = %+v", a)
	}
	if a := q.Atoms[1]; q.Text[a.Start:a.End] != "Venezuelan Andes" {
		t.Errorf("span of new atom = %+v", a)
	}

	// Quoted notation.
	req = api.ExpressionRequest{Expression: `"Birds of the Venezuelan Andes" OR NOT "birds of Colombia"`}
	if st := u.do("PUT", path, req, &got); st != 200 || got.Expression != "A OR NOT B" {
		t.Errorf("quoted: %d %+v", st, got)
	}
	// JSON tree.
	tree, _ := json.Marshal(boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))))
	req = api.ExpressionRequest{Tree: tree, Atoms: []string{"Birds of the Venezuelan Andes", "birds of Colombia"}}
	if st := u.do("PUT", path, req, &got); st != 200 || got.Expression != "A AND NOT B" {
		t.Errorf("tree: %d %+v", st, got)
	}

	// The audit log records each correction.
	var n int
	if err := e.st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = 'query.expression'`).Scan(&n); err != nil || n != 3 {
		t.Errorf("audit rows = %d (%v), want 3", n, err)
	}
}

func TestExpressionBadInput(t *testing.T) {
	e := newEnv(t, 2, nil)
	u := e.login("researcher")
	id := e.fx.Queries["q1"]
	path := fmt.Sprintf("/api/queries/%d/expression", id)
	two := []string{"x", "y"}
	cases := []struct {
		name  string
		body  any
		field string
	}{
		{"empty", api.ExpressionRequest{}, "expression"},
		{"syntax", api.ExpressionRequest{Expression: "A AND (B", Atoms: two}, "expression"},
		{"dangling operator", api.ExpressionRequest{Expression: "A AND", Atoms: two}, "expression"},
		{"no atoms", api.ExpressionRequest{Expression: "A AND B"}, "atoms"},
		{"too few atoms", api.ExpressionRequest{Expression: "A AND NOT C", Atoms: two}, "expression"},
		{"unused atom", api.ExpressionRequest{Expression: "A", Atoms: two}, "atoms[1]"},
		{"blank atom", api.ExpressionRequest{Expression: "A AND B", Atoms: []string{"x", "  "}}, "atoms[1]"},
		{"duplicate atom", api.ExpressionRequest{Expression: "A AND B", Atoms: []string{"x", "X"}}, "atoms[1]"},
		{"quoted plus atoms", api.ExpressionRequest{Expression: `"x" AND "y"`, Atoms: two}, "atoms"},
		{"both", api.ExpressionRequest{Expression: "A AND B", Tree: json.RawMessage(`{"op":"ATOM","atom":0}`), Atoms: two}, "tree"},
		{"bad tree", api.ExpressionRequest{Tree: json.RawMessage(`{"op":"AND","args":[{"op":"ATOM","atom":0}]}`), Atoms: two}, "tree"},
		{"tree out of range", api.ExpressionRequest{Tree: json.RawMessage(`{"op":"ATOM","atom":5}`), Atoms: two}, "tree"},
		{"unknown field", `{"expr":"A"}`, "expr"},
	}
	for _, tc := range cases {
		var p api.Problem
		if st := u.do("PUT", path, tc.body, &p); st != 400 || p.Field != tc.field {
			t.Errorf("%s: %d %+v, want 400 on %s", tc.name, st, p, tc.field)
		}
	}
	q, err := e.st.QueryByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := boolexpr.ParseJSON(q.Expression, len(q.Atoms)); x == nil || x.String() != "A AND NOT B" {
		t.Errorf("bad input changed the expression: %s", q.Expression)
	}
	if st := u.do("PUT", "/api/queries/abc/expression", api.ExpressionRequest{Expression: "A", Atoms: []string{"x"}}, nil); st != 400 {
		t.Errorf("bad id: %d, want 400", st)
	}
	if st := e.login("annotator1").do("PUT", path, api.ExpressionRequest{Expression: "A", Atoms: []string{"x"}}, nil); st != 403 {
		t.Errorf("annotator: %d, want 403", st)
	}
}
