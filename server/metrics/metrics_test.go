package metrics

import (
	"math"
	"reflect"
	"testing"
)

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) < eps }

// fixture: hand-worked below.
//
// q1 run lines (file order): d2 5, d1 4, d9 4, d3 3, d4 1, d1 0.5 (duplicate).
// Ranking: d2, d9, d1, d3, d4 (d9 before d1: tie on 4, docid descending;
// the second d1 is dropped). Grades: d1 3, d2 0, d3 1, d4 2, d5 2
// (unretrieved); d9 unjudged. Relevant at minRel 1: d1 d3 d4 d5.
// q2: all judged 0. q3: only in qrels. q4: only in the run.
// q5: g1 1, g2 2; run ties g1/g2 on 2.0 → g2, g1.
func fixture() (Qrels, Run) {
	qrels := Qrels{
		"q1": {"d1": 3, "d2": 0, "d3": 1, "d4": 2, "d5": 2},
		"q2": {"e1": 0, "e2": 0},
		"q3": {"f1": 1},
		"q5": {"g1": 1, "g2": 2},
	}
	run := Run{
		"q1": {{"d2", 5}, {"d1", 4}, {"d9", 4}, {"d3", 3}, {"d4", 1}, {"d1", 0.5}},
		"q2": {{"e1", 2}, {"e3", 1}},
		"q4": {{"x", 1}},
		"q5": {{"g1", 2}, {"g2", 2}},
	}
	return qrels, run
}

func TestRank(t *testing.T) {
	_, run := fixture()
	got, dups := Rank(run["q1"])
	if want := []string{"d2", "d9", "d1", "d3", "d4"}; !reflect.DeepEqual(got, want) || dups != 1 {
		t.Fatalf("got %v dups %d, want %v dups 1", got, dups, want)
	}
	// Byte order, not numeric: "d10" < "d9", so d9 ranks first on a tie.
	got, _ = Rank([]Scored{{"d10", 1}, {"d9", 1}, {"D9", 1}})
	if want := []string{"d9", "d10", "D9"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tie order: got %v, want %v", got, want)
	}
}

func TestPerQueryMeasures(t *testing.T) {
	qrels, run := fixture()
	r1, _ := Rank(run["q1"])
	j1 := qrels["q1"]
	r5, _ := Rank(run["q5"])
	j5 := qrels["q5"]
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"mrr@10", ReciprocalRank(r1, j1, 1, 10), 1.0 / 3},
		{"mrr@2 (first relevant at 3)", ReciprocalRank(r1, j1, 1, 2), 0},
		{"mrr@10 minRel 3", ReciprocalRank(r1, j1, 3, 10), 1.0 / 3},
		{"mrr no relevant", ReciprocalRank([]string{"e1", "e3"}, qrels["q2"], 1, 10), 0},
		{"p@5", Precision(r1, j1, 1, 5), 3.0 / 5},
		{"p@10 short run divides by k", Precision(r1, j1, 1, 10), 3.0 / 10},
		{"p@2", Precision(r1, j1, 1, 2), 0},
		{"p@5 minRel 2", Precision(r1, j1, 2, 5), 2.0 / 5},
		{"recall@5", Recall(r1, j1, 1, 5), 3.0 / 4},
		{"recall@3", Recall(r1, j1, 1, 3), 1.0 / 4},
		{"recall@5 minRel 2", Recall(r1, j1, 2, 5), 2.0 / 3},
		{"recall no relevant", Recall([]string{"e1"}, qrels["q2"], 1, 5), 0},
		{"recall empty ranking", Recall(nil, j1, 1, 5), 0},
		{"mrecall@5 one relevant missing", MRecall(r1, j1, 1, 5), 0},
		{"mrecall@2 q5 all relevant in top 2", MRecall(r5, j5, 1, 2), 1},
		{"mrecall@1 q5 more relevant than k, top 1 relevant", MRecall(r5, j5, 1, 1), 1},
		{"mrecall@1 q1 top 1 not relevant", MRecall(r1, j1, 1, 1), 0},
		{"mrecall no relevant", MRecall([]string{"e1"}, qrels["q2"], 1, 5), 0},
		// DCG@5 = 3/log2 4 + 1/log2 5 + 2/log2 6; IDCG@5 = 3 + 2/log2 3 + 2/log2 4 + 1/log2 5.
		{"ndcg@5", NDCG(r1, j1, 5), 0.4750751056400577},
		// DCG@3 = 3/log2 4; IDCG@3 = 3 + 2/log2 3 + 1.
		{"ndcg@3", NDCG(r1, j1, 3), 0.2850703250369507},
		{"ndcg@20 = ndcg@5 (run shorter)", NDCG(r1, j1, 20), 0.4750751056400577},
		{"ndcg@2 q5 ideal order", NDCG(r5, j5, 2), 1},
		{"ndcg@1 q5 reversed", NDCG([]string{"g1", "g2"}, j5, 1), 0.5},
		{"ndcg no positive grade", NDCG([]string{"e1"}, qrels["q2"], 10), 0},
		{"judged@5", Judged(r1, j1, 5), 4.0 / 5},
		{"judged@10 divides by the 5 retrieved", Judged(r1, j1, 10), 4.0 / 5},
		{"judged empty ranking", Judged(nil, j1, 10), 0},
		{"judged@1", Judged(r1, j1, 1), 1},
		{"f1 top 5: P 3/5 R 3/4", SetF1(r1[:5], j1, 1), 2 * 0.6 * 0.75 / 1.35},
		{"f1 exact set", SetF1([]string{"g1", "g2", "g2"}, j5, 1), 1},
		{"f1 empty prediction", SetF1(nil, j5, 1), 0},
		// Relevant d1 d3 d4 (d5 unretrieved) at ranks 3, 4, 5: precisions
		// 1/3, 2/4, 3/5, divided by the 4 relevant: 43/120.
		{"ap", AveragePrecision(r1, j1, 1, 0), (1.0/3 + 2.0/4 + 3.0/5) / 4},
		{"ap@4 (map_cut_4) still divides by 4", AveragePrecision(r1, j1, 1, 4), (1.0/3 + 2.0/4) / 4},
		{"ap@2 nothing relevant in the top 2", AveragePrecision(r1, j1, 1, 2), 0},
		// minRel 2: relevant d1 d4 d5; d1 at 3 (1/3), d4 at 5 (2/5): 11/45.
		{"ap minRel 2", AveragePrecision(r1, j1, 2, 0), 11.0 / 45},
		{"ap q5 ideal", AveragePrecision(r5, j5, 1, 0), 1},
		{"ap no relevant", AveragePrecision([]string{"e1"}, qrels["q2"], 1, 0), 0},
		{"ap via EvaluateQuery", EvaluateQuery(r1, j1, nil, []Spec{{MeasureAP, 0}}, 1)["ap"], 43.0 / 120},
	}
	for _, tc := range tests {
		if !near(tc.got, tc.want) {
			t.Errorf("%s: got %.12f, want %.12f", tc.name, tc.got, tc.want)
		}
	}
}

func TestNegRecallAndViolation(t *testing.T) {
	qrels, run := fixture()
	r1, _ := Rank(run["q1"])
	neg1 := map[string]bool{"d9": true, "d2": true, "d7": true}
	tests := []struct {
		name   string
		got    float64
		gotOK  bool
		want   float64
		wantOK bool
	}{}
	add := func(name string, v float64, ok bool, want float64, wantOK bool) {
		tests = append(tests, struct {
			name   string
			got    float64
			gotOK  bool
			want   float64
			wantOK bool
		}{name, v, ok, want, wantOK})
	}
	v, ok := NegRecall(r1, neg1, 2)
	add("negrecall@2: d2 d9 of 3", v, ok, 2.0/3, true)
	v, ok = NegRecall(r1, neg1, 1)
	add("negrecall@1", v, ok, 1.0/3, true)
	v, ok = NegRecall(r1, nil, 10)
	add("negrecall no negatives", v, ok, 0, false)
	// Ranks (missing = 6): relevant d1 3, d3 4, d4 5, d5 6 → 4.5;
	// negatives d2 1, d9 2, d7 6 → 3 < 4.5: violated.
	v, ok = Violation(r1, qrels["q1"], 1, neg1, 0)
	add("violation whole ranking", v, ok, 1, true)
	// Cut at 2 (missing = 3): relevant all 3 → 3; negatives 1, 2, 3 → 2: violated.
	v, ok = Violation(r1, qrels["q1"], 1, neg1, 2)
	add("violation@2", v, ok, 1, true)
	// Negative d4 at 5, d7 missing 6 → 5.5; relevant d1 3, d3 4, d5 6 → 4.333: fine.
	v, ok = Violation(r1, map[string]int{"d1": 1, "d3": 1, "d5": 1}, 1, map[string]bool{"d4": true, "d7": true}, 0)
	add("no violation", v, ok, 0, true)
	// Relevant d9 at 2; negatives d2 at 1 and d1 at 3 average 2: a tie, no violation.
	v, ok = Violation(r1, map[string]int{"d9": 1}, 1, map[string]bool{"d2": true, "d1": true}, 0)
	add("tie is no violation", v, ok, 0, true)
	v, ok = Violation(r1, qrels["q2"], 1, neg1, 0)
	add("violation no relevant", v, ok, 0, false)
	for _, tc := range tests {
		if tc.gotOK != tc.wantOK || !near(tc.got, tc.want) {
			t.Errorf("%s: got %v,%v want %v,%v", tc.name, tc.got, tc.gotOK, tc.want, tc.wantOK)
		}
	}
}

func TestNevIRAccuracy(t *testing.T) {
	ranked := Ranked{
		"q1": {"a", "b"},
		"q2": {"b", "a"},
		"q3": {"a", "b"},
		"q4": {"a"},
		"q5": {"x"},
	}
	pairs := []NevIRPair{
		{"q1", "q2", "a", "b"}, // both orders right: 1
		{"q1", "q3", "a", "b"}, // q3 ranks a above b: 0
		{"q4", "q2", "a", "b"}, // b missing from q4 counts below a: 1
		{"q5", "q2", "a", "b"}, // neither in q5: 0
	}
	if got := NevIRAccuracy(ranked, pairs); !near(got, 0.5) {
		t.Fatalf("got %v, want 0.5", got)
	}
	if got := NevIRAccuracy(ranked, nil); got != 0 {
		t.Fatalf("no pairs: got %v", got)
	}
}

func TestEvaluate(t *testing.T) {
	qrels, run := fixture()
	ranked, dups := RankRun(run)
	if dups != 1 {
		t.Fatalf("dups = %d", dups)
	}
	specs, err := ParseSpecs("mrr@10,p@5,ndcg@5,recall@5,mrecall@2,judged@5,negrecall@2,violation,f1@5")
	if err != nil {
		t.Fatal(err)
	}
	neg := map[string]map[string]bool{
		"q1": {"d9": true, "d2": true, "d7": true},
		"q2": {"e3": true},
		"q4": {"x": true},
	}
	res := Evaluate(qrels, ranked, specs, Options{Negatives: neg})
	if _, ok := res.PerQuery["q3"]; ok {
		t.Error("q3 (not in run) was scored")
	}
	if _, ok := res.PerQuery["q4"]; ok {
		t.Error("q4 (not in qrels) was scored")
	}
	if !reflect.DeepEqual(res.PerQuery["q2"], map[string]float64{
		"mrr@10": 0, "p@5": 0, "ndcg@5": 0, "recall@5": 0, "mrecall@2": 0, "judged@5": 1.0 / 2, "negrecall@2": 1, "f1@5": 0,
	}) {
		t.Errorf("q2 = %v", res.PerQuery["q2"])
	}
	want := map[string]float64{
		"mrr@10":      (1.0/3 + 0 + 1) / 3,
		"p@5":         (3.0/5 + 0 + 2.0/5) / 3,
		"ndcg@5":      (0.4750751056400577 + 0 + 1) / 3,
		"recall@5":    (3.0/4 + 0 + 1) / 3,
		"mrecall@2":   (0 + 0 + 1) / 3.0,
		"judged@5":    (4.0/5 + 1.0/2 + 2.0/2) / 3,
		"negrecall@2": (2.0/3 + 1) / 2,
		"violation":   1,
		"f1@5":        (2*0.6*0.75/1.35 + 0 + 1) / 3,
	}
	wantCount := map[string]int{"negrecall@2": 2, "violation": 1}
	for name, w := range want {
		if !near(res.Mean[name], w) {
			t.Errorf("mean %s = %.12f, want %.12f", name, res.Mean[name], w)
		}
		c := 3
		if wc, ok := wantCount[name]; ok {
			c = wc
		}
		if res.Count[name] != c {
			t.Errorf("count %s = %d, want %d", name, res.Count[name], c)
		}
	}

	complete := Evaluate(qrels, ranked, specs, Options{Complete: true})
	if got := complete.PerQuery["q3"]["recall@5"]; got != 0 || complete.Count["mrr@10"] != 4 {
		t.Errorf("complete: q3 recall %v, count %d", got, complete.Count["mrr@10"])
	}
	if !near(complete.Mean["mrr@10"], (1.0/3+1)/4) {
		t.Errorf("complete mrr = %v", complete.Mean["mrr@10"])
	}

	strict := Evaluate(qrels, ranked, []Spec{{"p", 5}, {"ndcg", 5}}, Options{MinRel: 2})
	if !near(strict.PerQuery["q1"]["p@5"], 2.0/5) || !near(strict.PerQuery["q5"]["p@5"], 1.0/5) {
		t.Errorf("minRel 2 p@5: %v", strict.PerQuery)
	}
	// nDCG ignores the threshold, as trec_eval's ndcg_cut does.
	if !near(strict.PerQuery["q1"]["ndcg@5"], 0.4750751056400577) {
		t.Errorf("minRel 2 ndcg@5: %v", strict.PerQuery["q1"])
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in   string
		want Spec
		err  bool
	}{
		{"ndcg@10", Spec{"ndcg", 10}, false},
		{"nDCG@10", Spec{"ndcg", 10}, false},
		{"ndcg_cut_10", Spec{"ndcg", 10}, false},
		{"P_5", Spec{"p", 5}, false},
		{"RR@10", Spec{"mrr", 10}, false},
		{"recip_rank", Spec{"mrr", 0}, false},
		{"recall", Spec{"recall", 0}, false},
		{"violation", Spec{"violation", 0}, false},
		{"p", Spec{}, true},
		{"p@0", Spec{}, true},
		{"p@x", Spec{}, true},
		{"map@10", Spec{"ap", 10}, false},
		{"MAP", Spec{"ap", 0}, false},
		{"ap", Spec{"ap", 0}, false},
		{"map_cut_100", Spec{"ap", 100}, false},
		{"bpref", Spec{}, true},
		{"nevir", Spec{"nevir", 0}, false},
		{"nevir@10", Spec{}, true},
		{"negabove", Spec{"negabove", 0}, false},
		{"negabove@100", Spec{"negabove", 100}, false},
	}
	for _, tc := range tests {
		got, err := ParseSpec(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseSpec(%q) = %v, %v", tc.in, got, err)
		}
	}
	specs, err := ParseSpecs(" p@10, ndcg@10,P@10 ,")
	if err != nil || len(specs) != 2 {
		t.Errorf("ParseSpecs: %v %v", specs, err)
	}
}

func TestGroupMeans(t *testing.T) {
	values := map[string]float64{"q1": 1, "q2": 0, "q3": 0.5, "q4": 0.25}
	labels := map[string][]string{
		"q1": {"AND", "NOT"},
		"q2": {"AND"},
		"q3": {"OR", "OR"},
		// q4 unlabelled
	}
	got := GroupMeans(values, labels)
	want := []Group{{"AND", 2, 0.5}, {"NOT", 1, 1}, {"OR", 1, 0.5}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestBootstrap(t *testing.T) {
	values := map[string]float64{}
	for i, v := range []float64{0, 1, 0, 1, 1, 0, 1, 1, 0.5, 0.25} {
		values[string(rune('a'+i))] = v
	}
	a := Bootstrap(values, 2000, 0.95, 7)
	b := Bootstrap(values, 2000, 0.95, 7)
	if a != b {
		t.Fatalf("same seed, different intervals: %v %v", a, b)
	}
	if !near(a.Mean, 0.575) || !(a.Low < a.Mean && a.Mean < a.High) || a.Low < 0 || a.High > 1 {
		t.Fatalf("interval %v", a)
	}
	// Sample sd 0.42, se ≈ 0.13: a 95% interval is roughly ±0.26 wide.
	if w := a.High - a.Low; w < 0.35 || w > 0.65 {
		t.Fatalf("implausible width %v", w)
	}
	c := Bootstrap(map[string]float64{"a": 0.3, "b": 0.3}, 100, 0.95, 1)
	if c != (Interval{0.3, 0.3, 0.3}) {
		t.Fatalf("constant values: %v", c)
	}
	if q := Quantile([]float64{1, 2, 3, 4}, 0.5); q != 2.5 {
		t.Fatalf("quantile = %v", q)
	}
}

func TestPairedRandomization(t *testing.T) {
	a := map[string]float64{}
	b := map[string]float64{}
	for i := range 10 {
		q := string(rune('a' + i))
		a[q] = 1
		b[q] = 0
	}
	b["extra"] = 1 // only in b: ignored
	r := PairedRandomization(a, b, 5000, 3)
	// Only the 2 of 1024 sign patterns with all signs equal reach |sum| = 10.
	if r.N != 10 || r.Diff != 1 || r.P > 0.01 {
		t.Fatalf("clear difference: %+v", r)
	}
	if r != PairedRandomization(a, b, 5000, 3) {
		t.Fatal("not deterministic")
	}
	same := PairedRandomization(a, a, 1000, 3)
	if same.Diff != 0 || same.P != 1 {
		t.Fatalf("identical runs: %+v", same)
	}
}

func TestAccumulator(t *testing.T) {
	qrels, run := fixture()
	ranked, _ := RankRun(run)
	specs := []Spec{{"mrr", 10}, {"negrecall", 2}}
	neg := map[string]map[string]bool{"q1": {"d9": true, "d2": true, "d7": true}}
	want := Evaluate(qrels, ranked, specs, Options{Negatives: neg})

	acc := NewAccumulator()
	for q := range want.PerQuery {
		acc.Set(q, EvaluateQuery(ranked[q], qrels[q], neg[q], specs, 1))
	}
	// A new judgment makes d2 relevant for q1: only q1 is re-scored.
	qrels["q1"]["d2"] = 2
	acc.Set("q1", EvaluateQuery(ranked["q1"], qrels["q1"], neg["q1"], specs, 1))
	means, counts := acc.Means()
	if !near(means["mrr@10"], (1+0+1)/3.0) || counts["mrr@10"] != 3 || counts["negrecall@2"] != 1 {
		t.Fatalf("after update: %v %v", means, counts)
	}
	acc.Remove("q5")
	acc.Remove("nope")
	acc.Recompute()
	means, counts = acc.Means()
	if !near(means["mrr@10"], 0.5) || counts["mrr@10"] != 2 {
		t.Fatalf("after remove: %v %v", means, counts)
	}
	if v, ok := acc.Query("q1"); !ok || v["mrr@10"] != 1 {
		t.Fatalf("query q1: %v %v", v, ok)
	}
}

func TestNegAbove(t *testing.T) {
	judged := map[string]int{"p": 1, "p2": 1, "z": 0}
	neg := map[string]bool{"n": true}
	tests := []struct {
		name   string
		ranked []string
		scores map[string]float64
		k      int
		want   float64
		ok     bool
	}{
		{"positive above", []string{"p", "n"}, map[string]float64{"p": 2, "n": 1}, 0, 0, true},
		{"negative above", []string{"n", "p"}, map[string]float64{"n": 2, "p": 1}, 0, 1, true},
		// A tie fails even when the trec_eval order puts the positive first.
		{"tie", []string{"p", "n"}, map[string]float64{"p": 1, "n": 1}, 0, 1, true},
		{"best positive counts", []string{"p2", "n", "p"}, map[string]float64{"p2": 3, "n": 2, "p": 1}, 0, 0, true},
		{"negative missing", []string{"p"}, map[string]float64{"p": 0.1}, 0, 0, true},
		{"positive missing", []string{"n"}, map[string]float64{"n": -5}, 0, 1, true},
		{"both missing", []string{"z"}, map[string]float64{"z": 1}, 0, 1, true},
		{"cut hides the positive", []string{"z", "p", "n"}, map[string]float64{"z": 3, "p": 2, "n": 1}, 1, 1, true},
	}
	for _, tc := range tests {
		v, ok := NegAbove(tc.ranked, tc.scores, judged, 1, neg, tc.k)
		if v != tc.want || ok != tc.ok {
			t.Errorf("%s: got %v %v, want %v %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
	if _, ok := NegAbove([]string{"p"}, map[string]float64{"p": 1}, judged, 1, nil, 0); ok {
		t.Error("defined without negatives")
	}
	if _, ok := NegAbove([]string{"n"}, map[string]float64{"n": 1}, map[string]int{"z": 0}, 1, neg, 0); ok {
		t.Error("defined without a relevant document")
	}
}

// TestEvaluateRun checks the run evaluator: trec_eval order, scores for
// negabove, NevIR pairs on their first query's row, and the count of qrels
// queries the run lacks.
func TestEvaluateRun(t *testing.T) {
	qrels := Qrels{
		"a-q1": {"a-doc1": 1, "a-doc2": 0},
		"a-q2": {"a-doc2": 1, "a-doc1": 0},
		"b-q1": {"b-doc1": 1, "b-doc2": 0},
		"b-q2": {"b-doc2": 1, "b-doc1": 0},
		"c":    {"c1": 1},
	}
	run := Run{
		// Stored rank order a-doc1, a-doc2 but a tie: trec_eval puts
		// a-doc2 first (docid descending), so the pair fails and negabove
		// (tie) is 1.
		"a-q1": {{"a-doc1", 1}, {"a-doc2", 1}},
		"a-q2": {{"a-doc2", 2}, {"a-doc1", 1}},
		"b-q1": {{"b-doc1", 2}, {"b-doc2", 1}},
		"b-q2": {{"b-doc2", 2}, {"b-doc1", 1}},
	}
	neg := map[string]map[string]bool{}
	for q, j := range qrels {
		for d, g := range j {
			if g == 0 {
				if neg[q] == nil {
					neg[q] = map[string]bool{}
				}
				neg[q][d] = true
			}
		}
	}
	pairs := []NevIRPair{{"a-q1", "a-q2", "a-doc1", "a-doc2"}, {"b-q1", "b-q2", "b-doc1", "b-doc2"}, {"x-q1", "x-q2", "x-doc1", "x-doc2"}}
	specs, err := ParseSpecs("mrr@10,negabove,nevir")
	if err != nil {
		t.Fatal(err)
	}
	res := EvaluateRun(qrels, run, specs, Options{Negatives: neg, NevIRPairs: pairs})
	if res.Missing != 1 {
		t.Errorf("missing = %d, want 1 (c)", res.Missing)
	}
	if got := res.PerQuery["a-q1"]["mrr@10"]; got != 0.5 {
		t.Errorf("a-q1 mrr = %v, want 0.5 (trec_eval tie order)", got)
	}
	if got := res.PerQuery["a-q1"]["negabove"]; got != 1 {
		t.Errorf("a-q1 negabove = %v, want 1 (tie)", got)
	}
	if !near(res.Mean["negabove"], 0.25) || res.Count["negabove"] != 4 {
		t.Errorf("negabove mean %v over %d", res.Mean["negabove"], res.Count["negabove"])
	}
	// x is in no run: left out without Complete; a fails, b succeeds.
	if !near(res.Mean["nevir"], 0.5) || res.Count["nevir"] != 2 {
		t.Errorf("nevir mean %v over %d", res.Mean["nevir"], res.Count["nevir"])
	}
	if _, ok := res.PerQuery["a-q2"]["nevir"]; ok {
		t.Error("nevir on the second query's row")
	}
	complete := EvaluateRun(qrels, run, specs, Options{Negatives: neg, NevIRPairs: pairs, Complete: true})
	if !near(complete.Mean["nevir"], 1.0/3) || complete.Missing != 1 || complete.PerQuery["c"] == nil {
		t.Errorf("complete: nevir %v, missing %d, c %v", complete.Mean["nevir"], complete.Missing, complete.PerQuery["c"])
	}
	// The ranked-only Evaluate agrees with the pair measure when there are
	// no ties.
	ranked, _ := RankRun(run)
	if r := Evaluate(qrels, ranked, specs, Options{Negatives: neg, NevIRPairs: pairs}); !near(r.Mean["nevir"], 0.5) || !near(r.Mean["negabove"], 0.25) {
		t.Errorf("Evaluate: %v", r.Mean)
	}
}

// TestRankings: results added in any order come back per run and query
// ranked as Rank ranks them (ties: docid descending; a repeated docid
// dropped); a run without results has an empty, non-nil map.
func TestRankings(t *testing.T) {
	r := Rankings[string]{}
	r.Add(7, "q1", "a", 1)
	r.Add(9, "q1", "x", 5)
	r.Add(7, "q2", "c", 2)
	r.Add(7, "q1", "b", 3)
	r.Add(7, "q1", "c", 1)
	r.Add(7, "q1", "b", 0.5)
	if got, want := r.Ranked(7), map[string][]string{"q1": {"b", "c", "a"}, "q2": {"c"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("run 7: %v, want %v", got, want)
	}
	if got, want := r.Ranked(9), map[string][]string{"q1": {"x"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("run 9: %v, want %v", got, want)
	}
	if got := r.Ranked(8); got == nil || len(got) != 0 {
		t.Errorf("run 8: %#v, want an empty map", got)
	}
}
