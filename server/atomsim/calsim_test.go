package atomsim

import (
	"context"
	"fmt"
	"testing"

	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/cal"
	"boolpool/server/lexical"
)

// calFixture is a small corpus: 12 astronomy documents (one, "quiet",
// never says so), 6 of them also Python; 6 chess documents; 30 others:
// 48 in all.
func calFixture(t *testing.T) (*cal.Engine, SimInput) {
	t.Helper()
	var docs []lexical.Doc
	o := atoms.Oracle{"astronomy software": {}, "python software": {}, "chess software": {}}
	add := func(id, body string, in ...string) {
		docs = append(docs, lexical.Doc{ExtID: id, Title: id, Body: body})
		for _, a := range in {
			o[a][id] = true
		}
	}
	for i := range 11 {
		if i < 6 {
			add(fmt.Sprintf("astro-py%d", i), "astronomy telescope star catalogue in python", "astronomy software", "python software")
		} else {
			add(fmt.Sprintf("astro%d", i), "astronomy software for the night sky and stars", "astronomy software")
		}
	}
	add("quiet", "reduces images of galaxies taken at night", "astronomy software")
	for i := range 6 {
		add(fmt.Sprintf("chess%d", i), "chess engine and board for playing chess", "chess software")
	}
	for i := range 30 {
		add(fmt.Sprintf("other%d", i), fmt.Sprintf("utility number %d for files and text", i))
	}
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	single, _ := boolexpr.FromTemplate(boolexpr.TemplateSingle, 1)
	and, _ := boolexpr.FromTemplate(boolexpr.TemplateAnd2, 2)
	or, _ := boolexpr.FromTemplate(boolexpr.TemplateOr2, 2)
	in := SimInput{
		Queries: []atoms.Query{
			{ID: "q1", Expr: single, Atoms: []string{"astronomy software"}},
			{ID: "q2", Expr: and, Atoms: []string{"astronomy software", "python software"}},
			{ID: "q3", Expr: or, Atoms: []string{"astronomy software", "chess software"}},
		},
		Oracle:     o,
		AtomTexts:  map[string]string{"astronomy software": "astronomy software", "python software": "python software", "chess software": "chess software"},
		QueryTexts: map[string]string{"q1": "astronomy software", "q2": "astronomy software that are also python software", "q3": "astronomy software or chess software"},
	}
	return cal.NewEngine(cal.FromIndex(ix), cal.DefaultOptions()), in
}

// TestSimulateAtomsCAL: run to its end, constraint pooling over the whole
// corpus finds every gold pair (the unstated member too), asks each
// (atom, document) at most once, and costs fewer judgments than judging
// every query's documents; StopAt and Budget stop it where they say.
func TestSimulateAtomsCAL(t *testing.T) {
	e, in := calFixture(t)
	ctx := context.Background()
	res, err := SimulateAtomsCAL(ctx, in, CALSimOptions{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	// gold: q1 12, q2 6, q3 18.
	if res.Gold != 36 || res.Recall() != 1 {
		t.Fatalf("gold %d recall %v, want 36 and 1", res.Gold, res.Recall())
	}
	if v, _ := res.Labels.Get("astronomy software", "quiet"); v != boolexpr.True {
		t.Fatalf("the unstated member was not found: %v", v)
	}
	asked := map[string]bool{}
	for _, s := range res.Steps {
		k := s.Atom + "/" + s.Doc
		if asked[k] {
			t.Fatalf("%s asked twice", k)
		}
		asked[k] = true
	}
	if n, ok := res.JudgmentsTo(1); !ok || n >= 3*48 {
		t.Fatalf("judgments to all gold %d (%v), want fewer than judging every document for every query (%d)", n, ok, 3*48)
	}
	half, err := SimulateAtomsCAL(ctx, in, CALSimOptions{Engine: e, StopAt: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := half.JudgmentsTo(0.5); n != len(half.Steps) || half.Steps[len(half.Steps)-1].Found != 18 {
		t.Fatalf("StopAt 0.5: %d steps, reached at %d, found %d", len(half.Steps), n, half.Steps[len(half.Steps)-1].Found)
	}
	few, err := SimulateAtomsCAL(ctx, in, CALSimOptions{Engine: e, Budget: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(few.Steps) != 5 {
		t.Fatalf("Budget 5: %d steps", len(few.Steps))
	}
}

// TestSimulateQueryLevelCAL: every query reviewed over the whole corpus
// finds all its gold; StopAt stops at the judgment that reaches it.
func TestSimulateQueryLevelCAL(t *testing.T) {
	e, in := calFixture(t)
	ctx := context.Background()
	res, err := SimulateQueryLevelCAL(ctx, in, CALSimOptions{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := res.JudgmentsTo(1); !ok || res.Gold != 36 || len(res.Found) != 3*48 {
		t.Fatalf("gold %d, all found at %d (%v), judgments %d; want 36, every document of every query judged (%d)", res.Gold, n, ok, len(res.Found), 3*48)
	}
	part, err := SimulateQueryLevelCAL(ctx, in, CALSimOptions{Engine: e, StopAt: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := part.JudgmentsTo(0.9); !ok || n != len(part.Found) {
		t.Fatalf("StopAt 0.9: reached at %d (%v) of %d judgments", n, ok, len(part.Found))
	}
}

// TestQueryLevelHindsight: all the gold costs every review up to its last
// relevant document; one pair costs the cheapest first find; the bound is
// never above what the interleaved reviews need.
func TestQueryLevelHindsight(t *testing.T) {
	e, in := calFixture(t)
	ctx := context.Background()
	h, err := QueryLevelHindsight(ctx, in, e, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	if h.Gold != 36 || h.Found != 36 {
		t.Fatalf("gold %d found %d, want 36 and 36", h.Gold, h.Found)
	}
	all, first := 0, 1<<30
	for _, p := range h.pos {
		all += p[len(p)-1]
		first = min(first, p[0])
	}
	if n, ok := h.JudgmentsTo(1); !ok || n != all {
		t.Fatalf("to 100%%: %d (%v), want %d", n, ok, all)
	}
	if n, ok := h.JudgmentsTo(1.0 / 36); !ok || n != first {
		t.Fatalf("to one pair: %d (%v), want %d", n, ok, first)
	}
	ql, err := SimulateQueryLevelCAL(ctx, in, CALSimOptions{Engine: e})
	if err != nil {
		t.Fatal(err)
	}
	for _, share := range []float64{0.5, 0.9, 1} {
		b, _ := h.JudgmentsTo(share)
		if n, _ := ql.JudgmentsTo(share); n < b {
			t.Fatalf("to %v: interleaved %d below the hindsight bound %d", share, n, b)
		}
	}
	if _, ok := (&Hindsight{Gold: 10, Found: 5, pos: [][]int{{1, 2, 3, 4, 5}}}).JudgmentsTo(0.6); ok {
		t.Fatal("a share above what the reviews found was reported reached")
	}
}
