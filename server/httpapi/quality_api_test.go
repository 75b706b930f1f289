package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/store"
)

// TestQualitySettingsAndGoldFlag: researchers read and change the gold
// check through the API (bad values are 400s naming the field); an
// annotator who gets gold items wrong is flagged on the live dashboard
// and, with pause on, gets no new items.
func TestQualitySettingsAndGoldFlag(t *testing.T) {
	e := newEnv(t, 1, nil)
	ctx := context.Background()
	gold := map[int64]bool{}
	for _, pair := range [][2]string{{"q1", "d5"}, {"q1", "d6"}, {"q2", "d1"}, {"q2", "d2"}} {
		doc := e.fx.Documents[pair[1]]
		it, err := e.st.CreateItem(ctx, store.NewItem{ProjectID: e.fx.Project.ID, Kind: api.KindRelevance, QueryID: e.fx.Queries[pair[0]],
			DocumentID: &doc, IsGold: true, GoldAnswer: []byte(`{"relevance": 3}`)})
		if err != nil {
			t.Fatal(err)
		}
		gold[it.ID] = true
	}
	researcher, a1 := e.login("researcher"), e.login("annotator1")
	var qs api.QualitySettings
	if st := researcher.do("GET", "/api/projects/fixture/quality", nil, &qs); st != 200 ||
		qs != (api.QualitySettings{GoldRate: 0, GoldMinAccuracy: 0, GoldMinJudged: 5, GoldPause: false, ConsensusMethod: api.ConsensusMajority}) {
		t.Fatalf("defaults: status %d, %+v", st, qs)
	}
	for _, bad := range []struct{ body, field string }{
		{`{"gold_min_accuracy": 1.5}`, "gold_min_accuracy"},
		{`{"gold_min_accuracy": -0.1}`, "gold_min_accuracy"},
		{`{"gold_min_judged": 0}`, "gold_min_judged"},
		{`{"gold_rate": 2}`, "gold_rate"},
		{`{"gold_pause": "yes"}`, ""},
		{`{"gold_min": 1}`, ""},
		{`{"consensus_method": "median"}`, "consensus_method"},
	} {
		var apiErr map[string]any
		if st := researcher.do("PUT", "/api/projects/fixture/quality", bad.body, &apiErr); st != 400 {
			t.Errorf("PUT %s: status %d, want 400", bad.body, st)
		}
		if b, _ := json.Marshal(apiErr); bad.field != "" && !strings.Contains(string(b), bad.field) {
			t.Errorf("PUT %s: error %s does not name %s", bad.body, b, bad.field)
		}
	}
	if st := a1.do("PUT", "/api/projects/fixture/quality", `{"gold_pause": true}`, nil); st != 403 {
		t.Errorf("annotator PUT: status %d, want 403", st)
	}
	live := researcher.subscribe("/api/projects/fixture/live")
	live.until(t, "the first snapshot", func(api.LiveSnapshot) bool { return true })
	want := api.QualitySettings{GoldRate: 0.5, GoldMinAccuracy: 0.9, GoldMinJudged: 2, GoldPause: true, ConsensusMethod: api.ConsensusDawidSkene}
	if st := researcher.do("PUT", "/api/projects/fixture/quality", want, &qs); st != 200 || qs != want {
		t.Fatalf("PUT: status %d, %+v, want %+v", st, qs, want)
	}
	// Partial update keeps the rest.
	if st := researcher.do("PUT", "/api/projects/fixture/quality", `{"gold_min_judged": 2}`, &qs); st != 200 || qs != want {
		t.Fatalf("partial PUT: status %d, %+v", st, qs)
	}
	live.until(t, "the new settings", func(s api.LiveSnapshot) bool { return s.Quality.Settings == want })

	// annotator1 judges every gold item wrong (0 against gold 3).
	n := 0
	q := a1.queue(api.KindRelevance, 4)
	wrong := 0
	for _, task := range q.Tasks {
		grade := 3
		if gold[task.ItemID] {
			grade = 0
			wrong++
		}
		n++
		if st := a1.do("POST", "/api/judgments", api.JudgmentRequest{ClientID: uuid(5000 + n), ItemID: task.ItemID, Kind: api.KindRelevance,
			Relevance: rel(grade), Evidence: api.EvidenceNone, AuthorID: a1.id}, nil); st != 201 {
			t.Fatalf("judgment: status %d", st)
		}
	}
	if wrong < 2 {
		t.Fatalf("queue of 4 at gold rate 0.5 held %d gold items", wrong)
	}
	snap := live.until(t, "annotator1 flagged", func(s api.LiveSnapshot) bool { return s.Quality.Flagged == 1 })
	for _, a := range snap.Annotators {
		if a.Username != "annotator1" {
			continue
		}
		if !a.Flagged || !a.Paused || a.GoldItems != wrong || a.GoldCorrect != 0 || a.GoldBinary == nil || *a.GoldBinary != 0 {
			t.Errorf("annotator1 row: %+v", a)
		}
		if a.DSAccuracy == nil || a.DSSensitivity == nil || a.DSSpecificity == nil {
			t.Errorf("annotator1 has no Dawid–Skene estimate: %+v", a)
		}
	}
	if snap.Quality.DSItems == 0 || snap.Quality.DSPrior == nil {
		t.Errorf("quality panel %+v", snap.Quality)
	}
	if q := a1.queue(api.KindRelevance, 4); !q.Paused || q.PauseReason == "" || len(q.Tasks) != 0 {
		t.Errorf("annotator1 queue: paused %v (%q), %d tasks; want paused, none", q.Paused, q.PauseReason, len(q.Tasks))
	}
	if q := e.login("annotator2").queue(api.KindRelevance, 2); q.Paused || len(q.Tasks) == 0 {
		t.Errorf("annotator2 queue: paused %v, %d tasks", q.Paused, len(q.Tasks))
	}

	// Exports take ?consensus=.
	admin := e.login("admin")
	if st, body, _ := admin.get("/api/projects/fixture/exports/qrels-consensus?consensus=median"); st != 400 || !strings.Contains(string(body), "consensus") {
		t.Errorf("?consensus=median: status %d, %s", st, body)
	}
	for _, m := range []string{"majority", "dawid-skene", ""} {
		st, body, hdr := admin.get("/api/projects/fixture/exports/qrels-consensus?consensus=" + m)
		if st != 200 || len(strings.Split(strings.TrimSpace(string(body)), "\n")) != n {
			t.Errorf("?consensus=%s: status %d, %d qrels, want one per judged item (%d):\n%s", m, st, len(strings.Split(strings.TrimSpace(string(body)), "\n")), n, body)
		}
		// Without ?consensus= the export uses the project's method (set to
		// dawid-skene above), as its record says.
		wantMethod := m
		if m == "" {
			wantMethod = api.ConsensusDawidSkene
		}
		var got string
		if err := e.st.Pool().QueryRow(ctx, `SELECT counts->>'consensus' FROM export_snapshots WHERE id = $1`, hdr.Get("X-Export-Id")).Scan(&got); err != nil || got != wantMethod {
			t.Errorf("?consensus=%s: export recorded consensus %q (%v), want %q", m, got, err, wantMethod)
		}
	}
}
