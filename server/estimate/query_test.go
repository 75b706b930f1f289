package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"boolpool/server/metrics"
)

const tol = 1e-12

func specs(t testing.TB, list string) []metrics.Spec {
	t.Helper()
	s, err := metrics.ParseSpecs(list)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkValue(t *testing.T, name string, got Value, est, v float64) {
	t.Helper()
	if math.Abs(got.Est-est) > tol || math.Abs(got.SE-math.Sqrt(v)) > tol {
		t.Errorf("%s: got est %.15g se %.15g, want est %.15g se %.15g (var %.15g)", name, got.Est, got.SE, est, math.Sqrt(v), v)
	}
}

// oneStratum: N = 4, n = 2 drawn (a, b), π = 1/2, weight 2; c and d are
// not drawn. Grades a 2 (relevant), b 0. The jackknife replicates are
// "drop a" (b weighs 4/1) and "drop b" (a weighs 4), with coefficient
// (1 − f)(n − 1)/n = ½·½ = ¼.
func oneStratum() (QueryDesign, map[string]int) {
	d := QueryDesign{
		Query:  "q",
		Strata: []Stratum{{Name: "rank 1-4", Population: 4, Sampled: 2}},
		Units:  []Unit{{Doc: "a", Stratum: 0, Pi: 0.5}, {Doc: "b", Stratum: 0, Pi: 0.5}},
	}
	return d, map[string]int{"a": 2, "b": 0, "zz": 1} // zz: judged, not a unit: ignored
}

func TestOneStratumByHand(t *testing.T) {
	d, judged := oneStratum()
	// R̂ = 2·1 = 2. Replicates 0 and 4, mean 2, Σ dev² = 8, v = ¼·8 = 2;
	// the textbook N²(1−f)s²/n = 16·½·½/2 = 2 (s² of (1, 0) is ½).
	r := QueryR(d, judged, 1)
	checkValue(t, "R", r, 2, 2)
	if r.Lo != 1 { // 2 − 1.96·√2 < 1 = judged relevant: clipped
		t.Errorf("R interval %+v, want Lo clipped to 1", r)
	}
	if want := 2 + z95*math.Sqrt2; math.Abs(r.Hi-want) > tol {
		t.Errorf("R Hi %v, want %v", r.Hi, want)
	}
	// Ranking x (not a unit), a (rank 2), b (rank 3), c (drawn never).
	ranked := []string{"x", "a", "b", "c"}
	got := Query(ranked, d, judged, specs(t, "p@2,recall@2,ap,ap@1,ndcg@2,mrr@10"), 1)
	l3 := math.Log2(3)
	// P@2 = 2·1/2 = 1; replicates 0 (drop a) and 4/2 = 2 (drop b): v = ¼·2.
	checkValue(t, "p@2", got["p@2"], 1, 0.5)
	// R@2 = 2/2 = 1; drop a: R̂ = 0 → 0; drop b: 4/4 = 1; v = ¼·½. The
	// ratio estimators are bias-corrected: b̂ = (1 − f)(n − 1)(θ̄ − θ̂) =
	// ½·1·(½ − 1) = −¼, so Est = 1.25 (a per-query estimate may leave
	// [0, 1]; the interval is clipped).
	checkValue(t, "recall@2", got["recall@2"], 1.25, 0.125)
	// AP = (1/R̂)·w_a·(1 + 0)/2 = ½·2·½ = ½; drop a → 0, drop b →
	// ¼·4·½ = ½; mean ¼, Σ dev² = ⅛, v = 1/32; b̂ = ½·(¼ − ½) = −⅛.
	checkValue(t, "ap", got["ap"], 0.625, 1.0/32)
	// ap@1: a is at rank 2, so nothing counts: 0 in every replicate.
	checkValue(t, "ap@1", got["ap@1"], 0, 0)
	// nDCG@2: DCG = 2·2/log2 3; Ĝ_2 = 2 fills both ideal positions:
	// IDCG = 2 + 2/log2 3; nDCG = 2/(log2 3 + 1). Drop a: 0; drop b: DCG
	// doubles, IDCG the same: twice that. v = ¼·2·nDCG²; the replicates'
	// mean is nDCG itself, so b̂ = 0.
	nd := 2 / (l3 + 1)
	checkValue(t, "ndcg@2", got["ndcg@2"], nd, 0.5*nd*nd)
	if m := got["mrr@10"]; !m.Plain || m.Est != 0.5 || m.SE != 0 || m.Lo != 0.5 {
		t.Errorf("mrr@10 plain: %+v", m)
	}
	if p := got["p@2"]; p.Lo != max(0, 1-z95*math.Sqrt(0.5)) || p.Hi != 1 {
		t.Errorf("p@2 interval %+v: want clipped to [0, 1]", p)
	}
}

// A drawn unit that is not judged yet is left out: n_h becomes the number
// judged. Drawing a, b, c and judging a and b equals drawing a and b.
func TestUnjudgedUnitsLeftOut(t *testing.T) {
	d, judged := oneStratum()
	d3 := d
	d3.Units = append(append([]Unit(nil), d.Units...), Unit{Doc: "c", Stratum: 0, Pi: 0.75})
	d3.Strata = []Stratum{{Name: "rank 1-4", Population: 4, Sampled: 3}}
	sp := specs(t, "p@2,recall@3,ap,ndcg@3")
	ranked := []string{"x", "a", "b", "c"}
	a := Query(ranked, d, judged, sp, 1)
	b := Query(ranked, d3, judged, sp, 1)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("with an unjudged unit %v, without %v", b, a)
	}
}

// Two strata: a certainty stratum (t1 relevant, t2 not, π 1) and the
// N = 4, n = 2 stratum of oneStratum but with a grade 1. Ranking t1, t2,
// a, c, b.
func TestCertaintyPlusSampledByHand(t *testing.T) {
	d := QueryDesign{
		Strata: []Stratum{{Name: "rank 1-2", Population: 2, Sampled: 2}, {Name: "rank 3-10", Population: 4, Sampled: 2}},
		Units: []Unit{
			{Doc: "t1", Stratum: 0, Pi: 1}, {Doc: "t2", Stratum: 0, Pi: 1},
			{Doc: "a", Stratum: 1, Pi: 0.5}, {Doc: "b", Stratum: 1, Pi: 0.5},
		},
	}
	judged := map[string]int{"t1": 1, "t2": 0, "a": 1, "b": 0}
	ranked := []string{"t1", "t2", "a", "c", "b"}
	// R̂ = 1 + 2 = 3; only stratum 1 varies: replicates 1 and 5, v = ¼·8.
	checkValue(t, "R", QueryR(d, judged, 1), 3, 2)
	got := Query(ranked, d, judged, specs(t, "ap,p@3,recall@3,ndcg@3"), 1)
	// AP: t1 at 1 (w 1): 1·(1+0)/1 = 1; a at 3 (w 2): 2·(1+1)/3 = 4/3;
	// (7/3)/3 = 7/9. Drop a: R̂ 1, AP 1. Drop b: a weighs 4, R̂ 5,
	// (1 + 4·2/3)/5 = 11/15. Mean 13/15, deviations ±2/15, v = ¼·8/225.
	// b̂ = ½·1·(13/15 − 7/9) = 2/45: Est = 7/9 − 2/45 = 11/15.
	checkValue(t, "ap", got["ap"], 11.0/15, 2.0/225)
	// P@3 = (1 + 2)/3 = 1; drop a 1/3, drop b 5/3: v = ¼·2·(2/3)² = 2/9.
	checkValue(t, "p@3", got["p@3"], 1, 2.0/9)
	// R@3 = 3/3 = 1 in every replicate (every relevant unit is in the
	// top 3): v = 0.
	checkValue(t, "recall@3", got["recall@3"], 1, 0)
	// nDCG@3: DCG = 1 + 2/log2 4 = 2; Ĝ_1 = 3 fills 3 ideal positions:
	// IDCG = 1 + 1/log2 3 + ½. Drop a: DCG 1, Ĝ_1 = 1, IDCG 1 → 1. Drop
	// b: DCG 1 + 4/2 = 3, Ĝ_1 = 5 → IDCG@3 as before.
	l3 := math.Log2(3)
	idcg := 1.5 + 1/l3
	full, dropB := 2/idcg, 3/idcg
	mean := (1 + dropB) / 2
	checkValue(t, "ndcg@3", got["ndcg@3"], full-0.5*(mean-full), 0.25*2*(1-mean)*(1-mean))
	// The plug-in values, without the bias correction.
	s := newSample(d, judged, 1)
	raw := s.query(ranked, specs(t, "ap,ndcg@3"), 1, true, make([]float64, s.nRows))
	checkValue(t, "plug-in ap", raw["ap"], 7.0/9, 2.0/225)
	checkValue(t, "plug-in ndcg@3", raw["ndcg@3"], full, 0.25*2*(1-mean)*(1-mean))
}

// Fractional ideal: N = 3, n = 2 (weight 1.5), a grade 2, b grade 1, so
// Ĝ_2 = Ĝ_1 = 1.5. Ideal@3: [0,1] grade 2 → 2; [1,1.5] grade 2 →
// 2·½/log2 3; [1.5,2] grade 1 → ½/log2 3; [2,3] grade 1 → 1/log2 4.
func TestFractionalIdealByHand(t *testing.T) {
	d := QueryDesign{
		Strata: []Stratum{{Population: 3, Sampled: 2}},
		Units:  []Unit{{Doc: "a", Pi: 2.0 / 3}, {Doc: "b", Pi: 2.0 / 3}},
	}
	judged := map[string]int{"a": 2, "b": 1}
	l3 := math.Log2(3)
	ideal := 2 + 1/l3 + 0.5/l3 + 0.5
	dcg := 1.5*1 + 1.5*2/l3 // ranking b, a
	s := newSample(d, judged, 1)
	got := s.query([]string{"b", "a"}, specs(t, "ndcg@3"), 1, true, make([]float64, s.nRows))
	if math.Abs(got["ndcg@3"].Est-dcg/ideal) > tol {
		t.Errorf("ndcg@3 = %v, want %v", got["ndcg@3"].Est, dcg/ideal)
	}
}

// A stratum with one judged unit: N = 5, n = 1, a relevant (weight 5),
// beside a certainty stratum with t1 relevant. Its one replicate drops the
// stratum: R̂ 6 → 1, v = (1 − ⅕)·5² = 20.
func TestSingleUnitStratum(t *testing.T) {
	d := QueryDesign{
		Strata: []Stratum{{Population: 1, Sampled: 1}, {Population: 5, Sampled: 1}},
		Units:  []Unit{{Doc: "t1", Stratum: 0, Pi: 1}, {Doc: "a", Stratum: 1, Pi: 0.2}},
	}
	judged := map[string]int{"t1": 1, "a": 1}
	checkValue(t, "R", QueryR(d, judged, 1), 6, 20)
	got := Query([]string{"t1", "a"}, d, judged, specs(t, "p@2,ap"), 1)
	// P@2 = (1 + 5)/2 = 3 (an HT estimate can pass 1); dropped: ½.
	// v = ⅘·(3 − ½)² = 5.
	checkValue(t, "p@2", got["p@2"], 3, 0.8*2.5*2.5)
	// AP = (1·1/1 + 5·(1+1)/2)/6 = 1; dropped: 1/1 = 1; v = 0. A
	// single-unit stratum has no bias estimate.
	checkValue(t, "ap", got["ap"], 1, 0)
	if p := got["p@2"]; p.Hi != 1 || p.Lo != 0 {
		t.Errorf("p@2 interval %+v, want clipped to [0, 1]", p)
	}
}

func TestNoRelevantSampled(t *testing.T) {
	d, _ := oneStratum()
	judged := map[string]int{"a": 0, "b": 0}
	checkValue(t, "R", QueryR(d, judged, 1), 0, 0)
	got := Query([]string{"a", "b"}, d, judged, specs(t, "ap,recall@10,ndcg@10,p@10"), 1)
	for _, m := range []string{"ap", "recall@10", "ndcg@10", "p@10"} {
		if v := got[m]; v != (Value{}) {
			t.Errorf("%s = %+v, want 0 with SE 0", m, v)
		}
	}
	// Nothing judged at all.
	got = Query([]string{"a"}, d, nil, specs(t, "ap,ndcg@10,p@10"), 1)
	for m, v := range got {
		if v != (Value{}) {
			t.Errorf("nothing judged: %s = %+v", m, v)
		}
	}
}

// With every π = 1 and every ranked document judged, each estimate is the
// plain measure exactly.
func TestCertaintyEqualsPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	sp := specs(t, "ap,ap@5,ndcg@5,ndcg@20,ndcg,p@5,p@20,recall@5,recall@20,recall,mrr@10,judged@10")
	for it := range 200 {
		n := 1 + rng.IntN(30)
		judged := map[string]int{}
		d := QueryDesign{Strata: []Stratum{{Population: n, Sampled: n}, {Population: 3, Sampled: 3}}}
		var ranked []string
		for i := range n {
			doc := fmt.Sprintf("d%d", i)
			judged[doc] = rng.IntN(4) - boolToInt(rng.IntN(10) == 0) // grades −1..3
			d.Units = append(d.Units, Unit{Doc: doc, Stratum: 0, Pi: 1})
			if rng.IntN(4) > 0 {
				ranked = append(ranked, doc)
			}
		}
		for i := range 3 { // judged, never ranked
			doc := fmt.Sprintf("e%d", i)
			judged[doc] = rng.IntN(3)
			d.Units = append(d.Units, Unit{Doc: doc, Stratum: 1, Pi: 1})
		}
		rng.Shuffle(len(ranked), func(i, j int) { ranked[i], ranked[j] = ranked[j], ranked[i] })
		minRel := 1 + rng.IntN(2)
		want := metrics.EvaluateQuery(ranked, judged, nil, sp, minRel)
		got := Query(ranked, d, judged, sp, minRel)
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for m, w := range want {
			g := got[m]
			if math.Abs(g.Est-w) > 1e-12 || g.SE != 0 {
				t.Errorf("iteration %d %s: got %+v, want %v", it, m, g, w)
			}
		}
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
