package estimate

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"boolpool/server/metrics"
)

func TestHolmByHand(t *testing.T) {
	// Sorted: 0.01 ×4 = 0.04; 0.03 ×3 = 0.09; 0.04 ×2 = 0.08 → 0.09 (kept
	// monotone); 0.2 ×1 = 0.2. A fifth p of 0.5 makes m = 5: see below.
	got := holm([]float64{0.04, 0.01, 0.2, 0.03})
	want := []float64{0.09, 0.04, 0.2, 0.09}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Errorf("holm = %v, want %v", got, want)
			break
		}
	}
	// m = 3: 0.3 ×3 → capped at 1, and everything after it is 1.
	// m = 2: 0.6 ×2 = 1.2 → 1; then 0.7 → max(1, 0.7) = 1.
	got = holm([]float64{0.7, 0.6})
	if got[0] != 1 || got[1] != 1 {
		t.Errorf("holm capped = %v, want [1 1]", got)
	}
}

func TestStudentT(t *testing.T) {
	tests := []struct {
		t, df, want float64
	}{
		{1, 1, 0.5},                     // Cauchy: P(|T| > 1) = ½
		{2, 2, 1 - 2/math.Sqrt(6)},      // df 2: P(|T| > t) = 1 − t/√(2+t²)
		{0, 5, 1},                       // no difference
		{1.959963984540054, 1e7, 0.05},  // the normal limit
		{-2.2281388519649385, 10, 0.05}, // t_{0.975, 10}
	}
	for _, tc := range tests {
		if got := studentTwoSided(tc.t, tc.df); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("P(|T_%v| ≥ %v) = %v, want %v", tc.df, tc.t, got, tc.want)
		}
	}
	// d = 1, 2, 3: mean 2, sd 1, t = 2√3 with 2 df: p = 1 − t/√(2+t²).
	mean, p := pairedT([]float64{1, 2, 3})
	tt := 2 * math.Sqrt(3)
	if mean != 2 || math.Abs(p-(1-tt/math.Sqrt(2+tt*tt))) > 1e-12 {
		t.Errorf("pairedT = %v, %v", mean, p)
	}
	if _, p := pairedT([]float64{0.5, 0.5}); p != 0 {
		t.Errorf("constant non-zero difference: p = %v, want 0", p)
	}
	if _, p := pairedT([]float64{0, 0}); p != 1 {
		t.Errorf("no difference: p = %v, want 1", p)
	}
}

// TestEstimateReport checks that Estimate assembles the per-query
// estimates: means and their design SE, R̂ total, the judged-set recall,
// runs without a query, and one t-test per pair and measure.
func TestEstimateReport(t *testing.T) {
	d1, j1 := oneStratum() // R̂ 2 (var 2), 1 judged relevant
	d2 := QueryDesign{
		Strata: []Stratum{{Population: 2, Sampled: 2}, {Population: 4, Sampled: 2}},
		Units: []Unit{
			{Doc: "t1", Stratum: 0, Pi: 1}, {Doc: "t2", Stratum: 0, Pi: 1},
			{Doc: "a", Stratum: 1, Pi: 0.5}, {Doc: "b", Stratum: 1, Pi: 0.5},
		},
	}
	j2 := map[string]int{"t1": 1, "t2": 0, "a": 1, "b": 0} // R̂ 3 (var 2), 2 judged relevant
	sp := specs(t, "ap,p@3,mrr@10")
	runs := []NamedRanking{
		{Name: "A", Lists: map[string][]string{"q1": {"x", "a", "b", "c"}, "q2": {"t1", "t2", "a", "c", "b"}}},
		{Name: "B", Lists: map[string][]string{"q2": {"b", "a", "t2", "t1"}}}, // no q1: an empty ranking
		{Name: "C", Lists: map[string][]string{"q1": {"a"}, "q2": {"a", "t1"}}},
	}
	rep := Estimate(Input{
		Designs: map[string]QueryDesign{"q1": d1, "q2": d2},
		Judged:  map[string]map[string]int{"q1": j1, "q2": j2},
		Runs:    runs,
		Specs:   sp,
	})
	if fmt.Sprint(rep.Measures) != "[ap p@3 mrr@10]" || len(rep.Runs) != 3 || rep.Runs[1].Run != "B" {
		t.Fatalf("measures %v runs %d", rep.Measures, len(rep.Runs))
	}
	checkValue(t, "R q1", rep.RelevantPerQuery["q1"], 2, 2)
	checkValue(t, "R total", rep.RelevantTotal, 5, 4)
	if rep.JudgedRelevant != 3 {
		t.Errorf("judged relevant %d, want 3", rep.JudgedRelevant)
	}
	// Judged recall 3/5; delta method SE = 3·√4/5² = 0.24.
	checkValue(t, "judged recall", rep.JudgedRecall, 0.6, 0.24*0.24)
	designs := map[string]QueryDesign{"q1": d1, "q2": d2}
	judged := map[string]map[string]int{"q1": j1, "q2": j2}
	for _, run := range rep.Runs {
		var lists map[string][]string
		for _, r := range runs {
			if r.Name == run.Run {
				lists = r.Lists
			}
		}
		for _, m := range rep.Measures {
			sum, v := 0.0, 0.0
			for _, q := range []string{"q1", "q2"} {
				want := Query(lists[q], designs[q], judged[q], sp, 1)[m]
				if got := run.PerQuery[q][m]; got != want {
					t.Errorf("%s %s %s: %+v, want %+v", run.Run, q, m, got, want)
				}
				sum += want.Est
				v += want.SE * want.SE
			}
			mean := run.Means[m]
			if math.Abs(mean.Est-sum/2) > tol || math.Abs(mean.SE-math.Sqrt(v)/2) > tol || mean.Plain != (m == "mrr@10") {
				t.Errorf("%s mean %s = %+v, want est %v se %v", run.Run, m, mean, sum/2, math.Sqrt(v)/2)
			}
		}
	}
	if got := rep.Runs[1].PerQuery["q1"]["ap"]; got != (Value{}) {
		t.Errorf("run B without q1: ap %+v, want 0", got)
	}
	if len(rep.Pairs) != 3*3 {
		t.Fatalf("%d pairs, want 9", len(rep.Pairs))
	}
	for _, p := range rep.Pairs {
		a := rep.Runs[map[string]int{"A": 0, "B": 1, "C": 2}[p.A]]
		b := rep.Runs[map[string]int{"A": 0, "B": 1, "C": 2}[p.B]]
		if want := a.Means[p.Measure].Est - b.Means[p.Measure].Est; math.Abs(p.Diff-want) > tol {
			t.Errorf("pair %+v: diff %v, want %v", p, p.Diff, want)
		}
		if p.PHolm < p.P || p.PHolm > 1 || p.Significant != (p.PHolm <= Alpha) {
			t.Errorf("pair %+v", p)
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not marshal: %v", err)
	}
	// Deterministic.
	again := Estimate(Input{Designs: designs, Judged: judged, Runs: runs, Specs: sp})
	a, _ := json.Marshal(rep)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Error("Estimate is not deterministic")
	}
}

// TestMeanCoverage: over 60 queries, each a small universe sampled
// sparsely (ranks 11–100 at 0.2, 101–400 at 0.1), the 95 % intervals of
// the MEAN P@20 and of the R̂ total cover the truth in 90–99 % of 300
// draws, although a single query's P@20 interval undercovers badly
// (TestEstimatorsUnbiased): the skew averages out over queries. The
// bias-corrected ratio estimators (AP, nDCG, recall) cover it in 88–99 %;
// without the correction their bias (+0.04 for nDCG@20, +0.07 for
// recall@100 here) leaves coverage near 0.4–0.55.
func TestMeanCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const nq = 60
	type query struct {
		in     QueryInput
		grades map[string]int
	}
	var qs []query
	run := NamedRanking{Name: "run", Lists: map[string][]string{}}
	qrels := metrics.Qrels{}
	for q := range nq {
		qid := fmt.Sprintf("q%d", q)
		grades := map[string]int{}
		var list []string
		for i := range 400 {
			doc := fmt.Sprintf("%s-d%d", qid, i)
			list = append(list, doc)
			// Relevance falls with rank: ~50 % at the top, ~2 % deep.
			if rng.Float64() < 0.5/(1+float64(i)/15) {
				grades[doc] = 1 + rng.IntN(2)
			}
		}
		qs = append(qs, query{in: QueryInput{Query: qid, Lists: [][]string{list}}, grades: grades})
		run.Lists[qid] = list
		qrels[qid] = grades
	}
	cfg := SampleConfig{Strata: []RankStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 100, Rate: 0.2}, {From: 101, To: 400, Rate: 0.1}}}
	sp := specs(t, "p@20,ap,ndcg@20,recall@100,ndcg@100")
	truth := metrics.Evaluate(qrels, run.Lists, sp, metrics.Options{}).Mean
	truthR := 0.0
	for _, g := range qrels {
		truthR += float64(len(g))
	}
	covered := map[string]int{}
	sum, sumSq, sumSE := map[string]float64{}, map[string]float64{}, map[string]float64{}
	const draws = 300
	for range draws {
		in := Input{Designs: map[string]QueryDesign{}, Judged: map[string]map[string]int{}, Runs: []NamedRanking{run}, Specs: sp}
		for _, q := range qs {
			d := Draw(q.in, cfg, rng)
			j := map[string]int{}
			for _, u := range d.Units {
				j[u.Doc] = q.grades[u.Doc]
			}
			in.Designs[q.in.Query] = d
			in.Judged[q.in.Query] = j
		}
		rep := Estimate(in)
		for _, m := range rep.Measures {
			v := rep.Runs[0].Means[m]
			if v.Lo <= truth[m] && truth[m] <= v.Hi {
				covered[m]++
			}
			sum[m] += v.Est
			sumSq[m] += v.Est * v.Est
			sumSE[m] += v.SE
		}
		v := rep.RelevantTotal
		if v.Lo <= truthR && truthR <= v.Hi {
			covered["R"]++
		}
		sum["R"] += v.Est
		sumSq["R"] += v.Est * v.Est
		sumSE["R"] += v.SE
	}
	truth["R"] = truthR
	for _, m := range []string{"p@20", "ap", "ndcg@20", "recall@100", "ndcg@100", "R"} {
		c := float64(covered[m]) / draws
		mean := sum[m] / draws
		t.Logf("%s: mean-interval coverage %.3f; truth %.4f, mean estimate %.4f, sd %.4f, mean SE %.4f", m, c, truth[m], mean, math.Sqrt(sumSq[m]/draws-mean*mean), sumSE[m]/draws)
		lo := 0.90
		if m != "p@20" && m != "R" {
			// The bias-corrected ratio estimators vary a little more than
			// the jackknife variance of the plug-in says.
			lo = 0.88
		}
		if c < lo || c > 0.99 {
			t.Errorf("%s: coverage of the mean's interval %.3f outside [%v, 0.99]", m, c, lo)
		}
	}
}
