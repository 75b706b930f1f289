package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/server/store"
)

// calDocs are documents beyond the fixture's six, with no items: what a
// live cal pool can find beyond the runs. Birds of the Andes are relevant
// to q1, Paris comedies to q2.
var calDocs = []struct{ id, title, body string }{
	{"b1", "Páramo seedeater", "The páramo seedeater is a bird of the Venezuelan Andes. It lives in high Andean grassland."},
	{"b2", "Andean condor", "The Andean condor is a large bird of the Andes. It nests on cliffs in the Venezuelan Andes."},
	{"b3", "Rufous antpitta", "The rufous antpitta is a bird of the Andes. It is found in Andean forest of Venezuela."},
	{"b4", "Andean siskin", "The Andean siskin is a small bird of the Venezuelan Andes."},
	{"f1", "Le Dîner de Cons", "Le Dîner de Cons is a 1998 comedy film set in Paris."},
	{"f2", "Midnight in Paris", "Midnight in Paris is a 2011 comedy film set in Paris."},
	{"f3", "Paris comedy", "A comedy film about a waiter in Paris."},
	{"x1", "Granite", "Granite is an igneous rock."},
	{"x2", "Basalt", "Basalt is a volcanic rock."},
	{"x3", "Steam engine", "A steam engine is a heat engine."},
	{"x4", "Railway", "A railway carries trains on rails."},
	{"x5", "Copper", "Copper is a metal that conducts electricity."},
}

// calRelevant is the annotators' answer: q1 birds, q2 films.
func calRelevant(query, doc string) bool {
	switch query {
	case "q1":
		return strings.HasPrefix(doc, "b") || doc == "d1" || doc == "d2"
	case "q2":
		return strings.HasPrefix(doc, "f") || doc == "d5" || doc == "d6"
	}
	return false
}

// newCALEnv is the fixture (3 raters per item) with the two runs, the
// extra documents and a job client running the cal-batch kind, as serve
// builds it.
func newCALEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	st, fx := fixtureWithRuns(t, 3)
	_, err := st.Import(ctx, fx.Project.ID, func(im *store.Importer) error {
		for _, d := range calDocs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d.id, Title: d.title, Body: d.body, SentenceStarts: []int32{0}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return serveWithJobs(t, st, fx, 1)
}

// judgeAll has each annotator judge every relevance task it is given until
// its queue is empty; it returns the (query, document) pairs judged.
func judgeAll(t *testing.T, e *env, us []*user, next *int) map[string]bool {
	t.Helper()
	qext := map[int64]string{}
	for ext, id := range e.fx.Queries {
		qext[id] = ext
	}
	judged := map[string]bool{}
	for _, u := range us {
		u.eachRelevanceTask(func(task api.Task) {
			*next++
			qid := qext[task.Query.ID]
			r, ev := 0, "none"
			if calRelevant(qid, task.Document.ExtID) {
				r, ev = 3, "complete"
			}
			req := api.JudgmentRequest{ClientID: uuid(*next), AuthorID: u.id, ItemID: task.ItemID, Kind: api.KindRelevance, Relevance: rel(r), Evidence: ev}
			var p api.Problem
			if st := u.do("POST", "/api/judgments", req, &p); st != 201 {
				t.Fatalf("judge %s/%s: %d %+v", qid, task.Document.ExtID, st, p)
			}
			judged[qid+"/"+task.Document.ExtID] = true
		})
	}
	return judged
}

func calQueries(t *testing.T, u *user) map[string]api.CALQueryStatus {
	t.Helper()
	var pools []api.CALPool
	if st := u.do("GET", "/api/projects/fixture/cal", nil, &pools); st != 200 || len(pools) != 1 {
		t.Fatalf("cal pools: %d %+v", st, pools)
	}
	out := map[string]api.CALQueryStatus{}
	for _, q := range pools[0].Queries {
		out[q.Query] = q
	}
	return out
}

// TestCALPoolGrows is the end-to-end test: a cal pool is published,
// three annotators judge through the API, new batches appear (a River job
// per judged batch), the recall estimate updates, a researcher stops and
// extends a query, and the export holds the judged items.
func TestCALPoolGrows(t *testing.T) {
	e := newCALEnv(t)
	res := e.login("researcher")
	spec := api.PoolSpec{Name: "cal-live", Runs: []string{"bm25", "dense"}, Depth: 2, Strategy: api.StrategyCAL, CALBatch: 2, CALStop: "none", RatersPerItem: 3}
	pub := publishPool(t, res, "fixture", spec)
	c := pub.Preview.Composition
	if pub.Preview.Strategy != "cal" || c.Queries != 2 || c.Items != 4 || c.FromRuns+c.FromCAL != 4 {
		t.Fatalf("published = %+v", pub)
	}
	start := calQueries(t, res)
	if start["q1"].Round != 0 || start["q1"].Items != 2 || start["q1"].State != "active" || start["q1"].Judged != 0 {
		t.Fatalf("q1 at start = %+v", start["q1"])
	}
	us := []*user{e.login("annotator1"), e.login("annotator2"), e.login("annotator3")}
	n := 0
	allJudged := map[string]bool{}
	var now map[string]api.CALQueryStatus
	for pass := 0; pass < 3; pass++ {
		for k := range judgeAll(t, e, us, &n) {
			allJudged[k] = true
		}
		// Every batch is judged by all three: the trigger queues round
		// pass+1 of each query, the worker adds it.
		deadline := time.Now().Add(20 * time.Second)
		for {
			now = calQueries(t, res)
			if now["q1"].Round > pass && now["q2"].Round > pass {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("pass %d: no new batch: %+v", pass, now)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	q1 := now["q1"]
	// Batches of 2, then 3, 4, 5 (B + ceil(B/10)); the last one unjudged.
	if q1.Round != 3 || q1.BatchSize != 5 || q1.Items != 2+3+4+5 || q1.Pending != 5 {
		t.Errorf("q1 after three judged batches = %+v", q1)
	}
	if q1.Judged < 2+3+4 || q1.Found == 0 || q1.Recall <= 0 || q1.Basis == "" || q1.Fired {
		t.Errorf("q1 status = %+v", q1)
	}
	if q1.FromCAL == 0 {
		t.Errorf("q1: nothing found by active learning alone: %+v", q1)
	}
	// Active learning found relevant documents no run retrieved.
	if !allJudged["q1/b1"] && !allJudged["q1/b2"] && !allJudged["q1/b3"] && !allJudged["q1/b4"] {
		t.Errorf("no new bird judged for q1: %v", allJudged)
	}

	// Stop q2: judging its last batch queues nothing more.
	var stopped api.CALQueryStatus
	path := fmt.Sprintf("/api/projects/fixture/pools/%d/cal/%d/", pub.PoolID, now["q2"].QueryID)
	if st := res.do("POST", path+"stop", nil, &stopped); st != 200 || stopped.State != "stopped" || !strings.Contains(stopped.Reason, "researcher") {
		t.Fatalf("stop: %d %+v", st, stopped)
	}
	judgeAll(t, e, us, &n)
	time.Sleep(1500 * time.Millisecond)
	if got := calQueries(t, res)["q2"]; got.Round != stopped.Round || got.State != "stopped" {
		t.Errorf("stopped q2 grew: %+v", got)
	}
	// Extend it: the next batch is queued at once (its last batch is judged).
	var ext api.CALQueryStatus
	var p api.Problem
	if st := res.do("POST", path+"extend", api.CALExtendRequest{}, &p); st != 400 || p.Field != "judgments" {
		t.Errorf("extend by 0: %d %+v", st, p)
	}
	if st := res.do("POST", path+"extend", api.CALExtendRequest{Judgments: 10}, &ext); st != 200 || ext.State != "active" || ext.ExtendTo == 0 {
		t.Fatalf("extend: %d %+v", st, ext)
	}
	deadline := time.Now().Add(20 * time.Second)
	for calQueries(t, res)["q2"].Round == stopped.Round {
		if time.Now().After(deadline) {
			t.Fatal("extended q2 got no new batch")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st := us[0].do("POST", path+"stop", nil, nil); st != 403 {
		t.Errorf("annotator stopping a query: %d, want 403", st)
	}

	// The export holds the judged items of every round.
	admin := e.login("admin")
	st, body, _ := admin.get("/api/projects/fixture/exports/qrels-consensus")
	if st != 200 {
		t.Fatalf("export: %d %s", st, body)
	}
	for k := range allJudged {
		q, d, _ := strings.Cut(k, "/")
		if !strings.Contains(string(body), q+" 0 "+d+" ") && !strings.Contains(string(body), q+"\t0\t"+d+"\t") {
			t.Errorf("export lacks judged %s: %s", k, body)
		}
	}
}

// testWriter logs warnings and errors of the server into the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
