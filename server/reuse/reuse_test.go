package reuse

import (
	"math"
	"testing"

	"boolpool/server/metrics"
)

func specs(t *testing.T, list string) []metrics.Spec {
	t.Helper()
	s, err := metrics.ParseSpecs(list)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

func nearPtr(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = null, want %.6f", what, want)
		return
	}
	near(t, what, *got, want)
}

// reuseFixture: four runs, two queries, a depth-2 pool, P@2 with grade >= 2
// relevant.
//
//	q1  A: d1 d2   B: d2 d3   C: d4 d1   D: d5 d2     qrels d1=2 d2=0 d3=2 d4=2 d5=0
//	q2  A: e1 e2   B: e3 e1   C: e4 e5   D: e2 e6     qrels e1=2 e2=0 e3=2 e4=2 e5=2 e6=3
//
// Pool sources (C contributes 4, 3 alone): d1{A,C} d2{A,B,D} d3{B} d4{C} d5{D}; e1{A,B} e2{A,D} e3{B}
// e4{C} e5{C} e6{D}. A and B are lexical (bm25), C dense, D has no known
// method (its family is its name).
//
// Full qrels, P@2 per query and mean: A .5 .5 → .50, B .5 1 → .75,
// C 1 1 → 1.00, D 0 .5 → .25; ranks C1 B2 A3 D4.
func reuseFixture() ReuseInput {
	src := func(kv ...any) map[string]int {
		m := map[string]int{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(int)
		}
		return m
	}
	return ReuseInput{
		Pool: "depth-2",
		Runs: []Run{
			{Name: "A", Family: "lexical", Ranked: map[string][]string{"q1": {"d1", "d2"}, "q2": {"e1", "e2"}}},
			{Name: "B", Family: "lexical", Ranked: map[string][]string{"q1": {"d2", "d3"}, "q2": {"e3", "e1"}}},
			{Name: "C", Family: "dense", Ranked: map[string][]string{"q1": {"d4", "d1"}, "q2": {"e4", "e5"}}},
			{Name: "D", Family: "D", Ranked: map[string][]string{"q1": {"d5", "d2"}, "q2": {"e2", "e6"}}},
		},
		Items: []PoolItem{
			{"q1", "d1", src("A", 1, "C", 2)}, {"q1", "d2", src("A", 2, "B", 1, "D", 2)}, {"q1", "d3", src("B", 2)},
			{"q1", "d4", src("C", 1)}, {"q1", "d5", src("D", 1)},
			{"q2", "e1", src("A", 1, "B", 2)}, {"q2", "e2", src("A", 2, "D", 1)}, {"q2", "e3", src("B", 1)},
			{"q2", "e4", src("C", 1)}, {"q2", "e5", src("C", 2)}, {"q2", "e6", src("D", 2)},
		},
		Qrels: metrics.Qrels{
			"q1": {"d1": 2, "d2": 0, "d3": 2, "d4": 2, "d5": 0},
			"q2": {"e1": 2, "e2": 0, "e3": 2, "e4": 2, "e5": 2, "e6": 3},
		},
		MinRel: 2,
	}
}

func leaveOutOf(t *testing.T, los []LeaveOut, name string) LeaveOut {
	t.Helper()
	for _, lo := range los {
		if lo.LeftOut == name {
			return lo
		}
	}
	t.Fatalf("no leave-out %q in %+v", name, los)
	return LeaveOut{}
}

func TestReusabilityByHand(t *testing.T) {
	in := reuseFixture()
	in.Specs = specs(t, "p@2")
	before := len(in.Qrels["q2"])
	rep := Reusability(in)
	if len(in.Qrels["q2"]) != before {
		t.Fatal("Reusability changed its input qrels")
	}
	if rep.Queries != 2 || len(rep.Runs) != 4 || len(rep.LeaveOneRun) != 4 {
		t.Fatalf("queries %d, runs %d, leave-outs %d; want 2, 4, 4", rep.Queries, len(rep.Runs), len(rep.LeaveOneRun))
	}
	wantMean := map[string]float64{"A": .5, "B": .75, "C": 1, "D": .25}
	wantContrib := map[string][2]int{"A": {4, 0}, "B": {4, 2}, "C": {4, 3}, "D": {4, 2}}
	for _, r := range rep.Runs {
		near(t, r.Name+" full p@2", r.Mean["p@2"], wantMean[r.Name])
		if got := [2]int{r.Contributed, r.Unique}; got != wantContrib[r.Name] {
			t.Errorf("%s contributed/unique = %v, want %v", r.Name, got, wantContrib[r.Name])
		}
	}

	// Leave C out: d4, e4, e5 (all relevant) leave the qrels. P@2: A .5 .5
	// → .50, B .5 1 → .75, C (d4 unjudged, d1) .5 and (e4, e5 unjudged) 0
	// → .25, D 0 .5 → .25; ranks B1 A2 C3 D4 (C and D tie, by name).
	// C: 1.00 (rank 1) → .25 (rank 3), change −.75.
	// τ-b, full (A .5, B .75, C 1, D .25) vs without (A .5, B .75, C .25,
	// D .25): AB concordant, AC discordant, AD concordant, BC discordant,
	// BD concordant, CD tied without: (3 − 2)/sqrt(6·5) = 1/sqrt(30).
	// τ_AP (truth = full): without ranks B A C D; A under B: 1/1; C under
	// B, A: neither is above C in the full ranking, 0/2; D under B, A, C:
	// B and A are above D, C–D is tied (½): 2.5/3. 2/3·(1 + 0 + 5/6) − 1
	// = 2/9. Judged@10 of C: q1 1 of 2 (d1), q2 0 of 2 → .25.
	c := leaveOutOf(t, rep.LeaveOneRun, "C")
	if c.Removed != 3 || c.RemovedRelevant != 3 {
		t.Errorf("leave C out removed %d (%d relevant), want 3 (3)", c.Removed, c.RemovedRelevant)
	}
	m := c.Measures["p@2"]
	if len(m.Runs) != 1 {
		t.Fatalf("leave C out: runs %+v", m.Runs)
	}
	rc := m.Runs[0]
	near(t, "C with", rc.With, 1)
	near(t, "C without", rc.Without, .25)
	near(t, "C change", rc.Change, -.75)
	if rc.RankWith != 1 || rc.RankWithout != 3 {
		t.Errorf("C ranks %d → %d, want 1 → 3", rc.RankWith, rc.RankWithout)
	}
	nearPtr(t, "leave C out τ", m.KendallTau, 1/math.Sqrt(30))
	nearPtr(t, "leave C out τ_AP", m.TauAP, 2.0/9)
	near(t, "C Judged@10", c.JudgedAt10["C"], .25)

	// Leave B out: d3, e3 (relevant) go. B: (d2, d3 unjudged) 0 and
	// (e3 unjudged, e1) .5 → .25; the others keep theirs. Ranks C1 A2 B3
	// D4 (B and D tie at .25, by name): .75 (rank 2) → .25 (rank 3).
	// τ-b: AB discordant, BD tied without, AC AD BC CD concordant:
	// (4 − 1)/sqrt(6·5) = 3/sqrt(30). τ_AP: without ranks C A B D; A under
	// C: 1/1; B under C, A: C only, 1/2; D under C, A, B: C and A, B–D
	// tied (½), 2.5/3; 2/3·(1 + 1/2 + 5/6) − 1 = 5/9.
	b := leaveOutOf(t, rep.LeaveOneRun, "B")
	if b.Removed != 2 || b.RemovedRelevant != 2 {
		t.Errorf("leave B out removed %d (%d relevant), want 2 (2)", b.Removed, b.RemovedRelevant)
	}
	rb := b.Measures["p@2"].Runs[0]
	near(t, "B without", rb.Without, .25)
	if rb.RankWith != 2 || rb.RankWithout != 3 {
		t.Errorf("B ranks %d → %d, want 2 → 3", rb.RankWith, rb.RankWithout)
	}
	nearPtr(t, "leave B out τ", b.Measures["p@2"].KendallTau, 3/math.Sqrt(30))
	nearPtr(t, "leave B out τ_AP", b.Measures["p@2"].TauAP, 5.0/9)

	// Leave A out: every item A contributed has another source: nothing
	// leaves, nothing changes.
	a := leaveOutOf(t, rep.LeaveOneRun, "A")
	if a.Removed != 0 {
		t.Errorf("leave A out removed %d, want 0", a.Removed)
	}
	near(t, "A change", a.Measures["p@2"].Runs[0].Change, 0)
	nearPtr(t, "leave A out τ", a.Measures["p@2"].KendallTau, 1)

	// Leave D out: d5 (0) and e6 (3) go; D: 0 and (e2, e6 unjudged) 0 → 0,
	// change −.25, still rank 4, τ 1.
	d := leaveOutOf(t, rep.LeaveOneRun, "D")
	if d.Removed != 2 || d.RemovedRelevant != 1 {
		t.Errorf("leave D out removed %d (%d relevant), want 2 (1)", d.Removed, d.RemovedRelevant)
	}
	near(t, "D change", d.Measures["p@2"].Runs[0].Change, -.25)
	nearPtr(t, "leave D out τ", d.Measures["p@2"].KendallTau, 1)

	near(t, "max |change|", rep.MaxAbsChange["p@2"], .75)

	// Leave the lexical family (A, B) out: d3, e1, e3 (all relevant) go;
	// d2 stays (D has it too). A: .5 and (e1 unjudged, e2) 0 → .25; B: 0
	// and 0 → 0; C 1; D .25. Ranks C1 A2 D3 B4. A .50 (3) → .25 (2), B
	// .75 (2) → 0 (4). τ-b: AB, BD discordant; AC, BC, CD concordant; AD
	// tied without: (3 − 2)/sqrt(6·5).
	if len(rep.LeaveOneFamily) != 3 {
		t.Fatalf("families %+v, want D, dense, lexical", rep.LeaveOneFamily)
	}
	lex := leaveOutOf(t, rep.LeaveOneFamily, "lexical")
	if lex.Removed != 3 || lex.RemovedRelevant != 3 || len(lex.Runs) != 2 {
		t.Errorf("leave lexical out: removed %d (%d relevant), runs %v", lex.Removed, lex.RemovedRelevant, lex.Runs)
	}
	lm := lex.Measures["p@2"]
	if len(lm.Runs) != 2 || lm.Runs[0].Run != "A" || lm.Runs[1].Run != "B" {
		t.Fatalf("leave lexical out runs %+v", lm.Runs)
	}
	near(t, "A without lexical", lm.Runs[0].Without, .25)
	near(t, "B without lexical", lm.Runs[1].Without, 0)
	if lm.Runs[0].RankWithout != 2 || lm.Runs[1].RankWithout != 4 {
		t.Errorf("ranks without lexical: A %d, B %d; want 2, 4", lm.Runs[0].RankWithout, lm.Runs[1].RankWithout)
	}
	nearPtr(t, "leave lexical out τ", lm.KendallTau, 1/math.Sqrt(30))
	near(t, "max |change| family", rep.MaxAbsChangeFamily["p@2"], .75)
}

// A query only one run found relevant documents for keeps its place in the
// means after leaving that run out (it scores 0), so every run stays
// averaged over the same queries.
func TestReusabilityKeepsQueries(t *testing.T) {
	in := ReuseInput{
		Runs: []Run{
			{Name: "A", Ranked: map[string][]string{"q1": {"a"}, "q2": {"b"}}},
			{Name: "B", Ranked: map[string][]string{"q1": {"a"}}},
		},
		Items:  []PoolItem{{"q1", "a", map[string]int{"A": 1, "B": 1}}, {"q2", "b", map[string]int{"A": 1}}},
		Qrels:  metrics.Qrels{"q1": {"a": 2}, "q2": {"b": 2}},
		Specs:  specs(t, "recall@100"),
		MinRel: 2,
	}
	rep := Reusability(in)
	// Full: A 1, 1 → 1; B 1 and q2 as an empty ranking 0 → .5. Without A:
	// q2 has no judgment left; A 1, 0 → .5; B .5.
	a := leaveOutOf(t, rep.LeaveOneRun, "A").Measures["recall@100"].Runs[0]
	near(t, "A with", a.With, 1)
	near(t, "A without", a.Without, .5)
	if rep.Runs[1].Family != "B" {
		t.Errorf("family of a run without a method = %q, want its name", rep.Runs[1].Family)
	}
}

func TestFamily(t *testing.T) {
	for _, c := range [][3]string{
		{"bm25", "r", "lexical"}, {"pnorm", "r", "lexical"}, {"sparse-cpt", "r", "sparse"},
		{"dense-vanilla", "r", "dense"}, {"rrf", "r", "fusion"}, {"", "imported", "imported"},
	} {
		if got := Family(c[0], c[1]); got != c[2] {
			t.Errorf("Family(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestParseMeasures(t *testing.T) {
	if _, err := ParseMeasures("ndcg@10,negrecall@10"); err == nil {
		t.Error("negrecall accepted")
	}
	if _, err := ParseMeasures("bogus"); err == nil {
		t.Error("unknown measure accepted")
	}
	s, err := ParseMeasures("")
	if err != nil || len(s) != 3 || s[0].String() != "ndcg@10" || s[2].String() != "recall@100" {
		t.Errorf("default measures %v, %v", s, err)
	}
}
