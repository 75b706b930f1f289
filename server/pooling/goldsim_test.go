package pooling

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"boolpool/server/cal"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// A small corpus: three documents about red apples are relevant to the
// query; the runs retrieve only one of them (plus noise), so every
// pool-bound strategy finds a third of the gold and cal must look beyond
// the pool.
var goldDocs = map[string]string{
	"r1": "crisp red apple harvested in the orchard",
	"r2": "red apple pie baked from orchard apples",
	"r3": "apple orchard where red apples grow",
	"n1": "green bicycle with red wheels",
	"n2": "banana bread recipe",
	"n3": "city bus timetable",
	"n4": "mountain bike repair guide",
	"n5": "weather report for tomorrow",
	"n6": "orange juice from fresh oranges",
	"n7": "train station opening hours",
}

func goldEngine(t *testing.T) *cal.Engine {
	t.Helper()
	var docs []lexical.Doc
	for id, text := range goldDocs {
		docs = append(docs, lexical.Doc{ExtID: id, Body: text})
	}
	slices.SortFunc(docs, func(a, b lexical.Doc) int { return strings.Compare(a.ExtID, b.ExtID) })
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return cal.NewEngine(cal.FromIndex(ix), cal.Options{Negatives: 3, Train: cal.DefaultTrainOptions()})
}

// TestCALFindsBeyondThePool: no run retrieved r2 or r3; cal finds them.
func TestCALFindsBeyondThePool(t *testing.T) {
	ctx := context.Background()
	q := GoldQuery{ID: "q1", Text: "red apple orchard", Lists: [][]string{{"n1", "r1"}, {"n2", "n1"}},
		Rel: map[string]bool{"r1": true, "r2": true, "r3": true}}
	names := []string{Depth, Bandit, CAL}
	seqs, err := Sequencers(names, BanditOptions{}, &CALSim{Engine: goldEngine(t), Knee: cal.KneeOptions{MinRank: 5, Rho: 2}, MaxPerQuery: 10})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := SimulateGold(ctx, []GoldQuery{q}, names, seqs, []float64{0.5, 0.9}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Queries != 1 || sum.Gold != 3 {
		t.Fatalf("summary %+v", sum)
	}
	for _, s := range []string{Depth, Bandit} {
		if r := sum.Strategies[s]; r.Found != 1 || r.Judgments != 3 || r.JudgmentsTo["0.5"] != nil {
			t.Fatalf("%s: %+v", s, r)
		}
	}
	c := sum.Strategies[CAL]
	if c.Found != 3 || c.Recall != 1 || c.JudgmentsTo["0.9"] == nil || *c.JudgmentsTo["0.9"] != 3 {
		t.Fatalf("cal: %+v (to 0.9: %v)", c, c.JudgmentsTo["0.9"])
	}
	// The rule is checked after each batch (sizes 1, 2, 3): at rank 6 (3
	// relevant in the first 3, then 3 misses; ρ = 1/(1/3) = 3 >= 2) the
	// review stops.
	if c.Judgments != 6 {
		t.Fatalf("cal judged %d, want 6 (knee stop)", c.Judgments)
	}
	// A budget of 2 per strategy: cal ignores its rule and stops at 2.
	two, err := SimulateGold(ctx, []GoldQuery{q}, names, seqs, []float64{0.5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range names {
		if two.Strategies[s].Judgments != 2 {
			t.Fatalf("budget 2: %s judged %d", s, two.Strategies[s].Judgments)
		}
	}
	// Two queries, budget 4 (an even share of 2 each): the one-document
	// pool leaves its unused share to the three-document one, so depth
	// judges 4 and finds r1 at q1's third judgment.
	q2 := GoldQuery{ID: "q2", Lists: [][]string{{"n6"}}, Rel: map[string]bool{"n6": true}}
	four, err := SimulateGold(ctx, []GoldQuery{q, q2}, []string{Depth}, seqs[:1], []float64{0.5}, 4)
	if err != nil || four.Strategies[Depth].Judgments != 4 || four.Strategies[Depth].Found != 2 {
		t.Fatalf("budget 4 over two pools: %+v %v", four.Strategies[Depth], err)
	}

	// The JSON contract.
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(sum); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["queries"] != 1.0 || got["gold"] != 3.0 {
		t.Fatalf("top level %v", got)
	}
	depth := got["strategies"].(map[string]any)[Depth].(map[string]any)
	if len(depth) != 4 || depth["judgments"] != 3.0 || depth["found"] != 1.0 || depth["recall"] != 1.0/3 {
		t.Fatalf("depth %v", depth)
	}
	if to := depth["judgments_to"].(map[string]any); len(to) != 2 || to["0.5"] != nil || to["0.9"] != nil {
		t.Fatalf("depth judgments_to %v", to)
	}
	var svg bytes.Buffer
	if err := WriteRecallSVG(&svg, sum); err != nil || !strings.Contains(svg.String(), "<polyline") || !strings.HasSuffix(svg.String(), "</svg>\n") {
		t.Fatalf("svg %v:\n%s", err, svg.String())
	}
}

// TestInterleave: two queries judged one judgment each per turn; the
// budget cuts the total.
func TestInterleave(t *testing.T) {
	qs := []GoldQuery{
		{ID: "a", Rel: map[string]bool{"a1": true, "a3": true}},
		{ID: "b", Rel: map[string]bool{"b2": true, "zz": true}},
	}
	fixed := map[string][]string{"a": {"a1", "a2", "a3"}, "b": {"b1", "b2"}}
	seq := func(_ context.Context, q GoldQuery, limit int) ([]string, error) {
		s := fixed[q.ID]
		if limit > 0 {
			s = s[:min(limit, len(s))]
		}
		return s, nil
	}
	// Order: a1 b1 | a2 b2 | a3 → found after 1, 4, 5 judgments.
	sum, err := SimulateGold(context.Background(), qs, []string{"x"}, []Sequencer{seq}, []float64{0.25, 0.5, 0.75, 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Strategies["x"]
	want := map[string]int{"0.25": 1, "0.5": 4, "0.75": 5}
	for k, v := range want {
		if r.JudgmentsTo[k] == nil || *r.JudgmentsTo[k] != v {
			t.Fatalf("to %s: %v, want %d", k, r.JudgmentsTo[k], v)
		}
	}
	if r.JudgmentsTo["1"] != nil || r.Found != 3 || r.Judgments != 5 || sum.Gold != 4 {
		t.Fatalf("result %+v gold %d", r, sum.Gold)
	}
	// Budget 3: per-query limit 2, total capped at 3 (a1 b1 a2).
	sum, _ = SimulateGold(context.Background(), qs, []string{"x"}, []Sequencer{seq}, []float64{0.5}, 3)
	if r := sum.Strategies["x"]; r.Judgments != 3 || r.Found != 1 {
		t.Fatalf("budget: %+v", r)
	}
}

// TestSimulateGoldProject: the stored project path, with the stored qrels
// and with a qrels map, on real Postgres; cal loads the lexical index.
func TestSimulateGoldProject(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "gold")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var qid int64
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		var err error
		for id, text := range goldDocs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Body: text}); err != nil {
				return err
			}
		}
		if qid, err = im.Query(ctx, store.QueryIn{ExtID: "q1", Text: "red apple orchard"}); err != nil {
			return err
		}
		for _, d := range []string{"r1", "r2", "r3"} {
			if err := im.Qrel(ctx, qid, d, 1, "positive", "gold"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	qs := []retrieval.Query{{ID: "q1", RowID: qid}}
	res := map[string][]retrieval.Result{"q1": {{DocID: "n1", Score: 2}, {DocID: "r1", Score: 1}}}
	if _, err := retrieval.SaveRun(ctx, st, p.ID, "a", "test", nil, qs, res); err != nil {
		t.Fatal(err)
	}
	spec := GoldSpec{Runs: []string{"a"}, Depth: 10, Strategies: []string{MTF, CAL}, Levels: []float64{0.9},
		CAL: CALSim{Knee: cal.KneeOptions{MinRank: 5, Rho: 2}, MaxPerQuery: 10}}
	sum, err := SimulateGoldProject(ctx, st, p.ID, spec, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Gold != 3 || sum.Strategies[MTF].Found != 1 || sum.Strategies[CAL].Found != 3 {
		t.Fatalf("stored qrels: %+v", sum)
	}
	// A qrels file naming only r3 (and a query the project lacks).
	spec.Qrels = map[string]map[string]bool{"q1": {"r3": true}, "other": {"x": true}}
	sum, err = SimulateGoldProject(ctx, st, p.ID, spec, log)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Queries != 1 || sum.Gold != 1 || sum.Strategies[MTF].Found != 0 || sum.Strategies[CAL].Found != 1 {
		t.Fatalf("qrels map: %+v", sum)
	}
	spec.Strategies = []string{"nope"}
	if _, err := SimulateGoldProject(ctx, st, p.ID, spec, log); err == nil {
		t.Fatal("unknown strategy accepted")
	}
}
