package agreement

import (
	"math"
	"reflect"
	"testing"
)

const M = Missing

// Fleiss (1971) as worked on Wikipedia's "Fleiss' kappa" page: 10 items,
// 14 raters, 5 categories; κ = 0.210 (P̄ = 0.378, P̄e = 0.213).
var fleissExample = [][]int{
	{0, 0, 0, 0, 14},
	{0, 2, 6, 4, 2},
	{0, 0, 3, 5, 6},
	{0, 3, 9, 2, 0},
	{2, 2, 8, 1, 1},
	{7, 7, 0, 0, 0},
	{3, 2, 6, 3, 0},
	{2, 5, 3, 2, 2},
	{6, 5, 2, 1, 0},
	{0, 2, 2, 3, 7},
}

// expand turns category counts into one rating per rater.
func expand(counts [][]int) Ratings {
	var r Ratings
	for _, row := range counts {
		var item []int
		for c, n := range row {
			for range n {
				item = append(item, c+1)
			}
		}
		r = append(r, item)
	}
	return r
}

func TestFleissWikipedia(t *testing.T) {
	if k := FleissKappaCounts(fleissExample); math.Abs(k-0.210) > 0.0005 {
		t.Fatalf("counts: κ = %.4f, want 0.210", k)
	}
	k, n := FleissKappa(expand(fleissExample))
	if math.Abs(k-0.210) > 0.0005 || n != 10 {
		t.Fatalf("ratings: κ = %.4f over %d items", k, n)
	}
}

func TestFleissSkipsIncompleteItems(t *testing.T) {
	r := Ratings{
		{1, 1, 1},
		{0, 0, 0},
		{1, 1, 0},
		{0, M, 1}, // incomplete: left out
		{1, 1},    // short row: incomplete
	}
	// Items used: 3, m = 3. P_i: 1, 1, (4+1−3)/6 = 1/3 → P̄ = 7/9.
	// p_1 = 5/9, p_0 = 4/9 → P̄e = 41/81. κ = (7/9 − 41/81)/(40/81) = 22/40.
	k, n := FleissKappa(r)
	if n != 3 || math.Abs(k-0.55) > 1e-12 {
		t.Fatalf("κ = %v over %d items, want 0.55 over 3", k, n)
	}
	if k, _ := FleissKappa(Ratings{{2, 2}, {2, 2}}); !math.IsNaN(k) {
		t.Fatalf("no variation: κ = %v, want NaN", k)
	}
}

// Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", the
// reference example C: 4 observers × 12 units with missing values. Rows
// here are units, columns observers A–D.
var krippendorffExample = Ratings{
	{1, 1, M, 1},
	{2, 2, 3, 2},
	{3, 3, 3, 3},
	{3, 3, 3, 3},
	{2, 2, 2, 2},
	{1, 2, 3, 4},
	{4, 4, 4, 4},
	{1, 1, 2, 1},
	{2, 2, 2, 2},
	{M, 5, 5, 5},
	{M, M, 1, 1},
	{M, 3, M, M},
}

func TestKrippendorffReference(t *testing.T) {
	tests := []struct {
		level Level
		want  float64
	}{
		{Nominal, 0.743},
		{Ordinal, 0.815},
		{Interval, 0.849},
	}
	for _, tc := range tests {
		if a := KrippendorffAlpha(krippendorffExample, tc.level); math.Abs(a-tc.want) > 0.0005 {
			t.Errorf("level %d: α = %.4f, want %.3f", tc.level, a, tc.want)
		}
	}
}

func TestKrippendorffSmall(t *testing.T) {
	// Two coders, units (0,0) (1,1) (0,1): o00 = 2, o11 = 2, o01 = o10 = 1,
	// n0 = n1 = 3, n = 6. Nominal: 1 − 5·2/(2·9) = 4/9.
	r := Ratings{{0, 0}, {1, 1}, {0, 1}, {1, M}}
	if a := KrippendorffAlpha(r, Nominal); math.Abs(a-4.0/9) > 1e-12 {
		t.Fatalf("α = %v, want 4/9", a)
	}
	// With two values ordinal δ² = (3+3 − 3)² = 9 for both off-diagonal
	// cells, which cancels: same as nominal.
	if a := KrippendorffAlpha(r, Ordinal); math.Abs(a-4.0/9) > 1e-12 {
		t.Fatalf("ordinal α = %v, want 4/9", a)
	}
	if a := KrippendorffAlpha(Ratings{{1, 1}, {1, 1}}, Nominal); !math.IsNaN(a) {
		t.Fatalf("no variation: α = %v, want NaN", a)
	}
}

// Hand-worked two-rater binary case used for Cohen and Gwet:
// items (1,1) (1,1) (1,1) (0,1) (0,0).
var twoRaters = Ratings{{1, 1}, {1, 1}, {1, 1}, {0, 1}, {0, 0}}

func TestCohenKappa(t *testing.T) {
	// po = 4/5; A says 1 on 3/5, B on 4/5: pe = .6·.8 + .4·.2 = .56.
	// κ = (.8 − .56)/(.44) = 6/11.
	a := []int{1, 1, 1, 0, 0, M}
	b := []int{1, 1, 1, 1, 0, 1}
	k, n := CohenKappa(a, b)
	if n != 5 || math.Abs(k-6.0/11) > 1e-12 {
		t.Fatalf("κ = %v over %d, want 6/11 over 5", k, n)
	}
	pairs, mean := PairwiseCohen(Ratings{{1, 1, 1}, {1, 1, 0}, {1, 1, 1}, {0, 1, 1}, {0, 0, 0}})
	// Pair (0,1) is the case above; (0,2) and (1,2) worked the same way:
	// (0,2): po 3/5, A 3/5 B 3/5 → pe .52, κ = .08/.48 = 1/6.
	// (1,2): po 4/5, A 4/5 B 3/5 → pe .56, κ = 6/11.
	want := []PairKappa{{0, 1, 6.0 / 11, 5}, {0, 2, 1.0 / 6, 5}, {1, 2, 6.0 / 11, 5}}
	if len(pairs) != 3 {
		t.Fatalf("pairs %v", pairs)
	}
	for i, p := range pairs {
		if p.A != want[i].A || p.B != want[i].B || p.N != want[i].N || math.Abs(p.Kappa-want[i].Kappa) > 1e-12 {
			t.Errorf("pair %d = %+v, want %+v", i, p, want[i])
		}
	}
	if w := (6.0/11*2 + 1.0/6) / 3; math.Abs(mean-w) > 1e-12 {
		t.Errorf("mean %v, want %v", mean, w)
	}
}

func TestGwetAC1(t *testing.T) {
	// pa = 4/5. π_1 = (1+1+1+.5+0)/5 = .7, π_0 = .3.
	// Q = 2: pe = 2·.21/1 = .42 → AC1 = .38/.58 = 19/29.
	if g := GwetAC1(twoRaters, 2); math.Abs(g-19.0/29) > 1e-12 {
		t.Fatalf("AC1 = %v, want 19/29", g)
	}
	// On the 0–3 scale Q = 4: pe = .42/3 = .14 → AC1 = .66/.86 = 33/43.
	if g := GwetAC1(twoRaters, 4); math.Abs(g-33.0/43) > 1e-12 {
		t.Fatalf("AC1 (Q=4) = %v, want 33/43", g)
	}
	// Three raters with missing ratings; Q = 2.
	// Items: (1,1,1) (1,1,M) (0,1,M) (0,M,M) (M,M,M).
	// pa over items with ≥2 ratings: 1, 1, 0 → 2/3.
	// π over rated items (4): π_1 = (1+1+.5+0)/4 = .625, π_0 = .375.
	// pe = 2·.625·.375 = .46875 → AC1 = (2/3 − .46875)/(.53125).
	r := Ratings{{1, 1, 1}, {1, 1, M}, {0, 1, M}, {0, M, M}, {M, M, M}}
	want := (2.0/3 - 0.46875) / 0.53125
	if g := GwetAC1(r, 2); math.Abs(g-want) > 1e-12 {
		t.Fatalf("AC1 missing = %v, want %v", g, want)
	}
}

func TestUnanimousBinarised(t *testing.T) {
	r := Ratings{
		{2, 3, 3}, // all relevant
		{0, 1, 0}, // all not relevant
		{1, 2, M}, // disagree after binarising
		{3, M, M}, // one rating: skipped
		{3, 3},    // agree
	}
	share, n := UnanimousBinarised(r, 2)
	if n != 4 || share != 0.75 {
		t.Fatalf("share %v over %d, want 0.75 over 4", share, n)
	}
}

func TestConfusion(t *testing.T) {
	got := Confusion([]int{0, 1, 2, 3, M, 1}, []int{0, 2, 2, 3, 1, 1}, 4)
	want := [][]int{{1, 0, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	pooled := PooledConfusion(Ratings{{0, 1, 1}, {2, M, 2}}, 3)
	// Item 1 pairs: 0-1 ×2, 1-1 ×1 (each both ways); item 2: 2-2 once both ways.
	wantP := [][]int{{0, 2, 0}, {2, 2, 0}, {0, 0, 2}}
	if !reflect.DeepEqual(pooled, wantP) {
		t.Fatalf("pooled %v", pooled)
	}
}

func TestPerRater(t *testing.T) {
	// Same table as the pairwise Cohen test: κ(0,1) = 6/11, κ(0,2) = 1/6,
	// κ(1,2) = 6/11.
	r := Ratings{{1, 1, 1}, {1, 1, 0}, {1, 1, 1}, {0, 1, 1}, {0, 0, 0}}
	got := PerRater(r)
	want := []struct{ kappa, agree float64 }{
		{(6.0/11 + 1.0/6) / 2, 7.0 / 10}, // rater 0 matches 1 on 4 items, 2 on 3
		{6.0 / 11, 8.0 / 10},             // rater 1 matches 0 on 4, 2 on 4
		{(1.0/6 + 6.0/11) / 2, 7.0 / 10},
	}
	for i, w := range want {
		if got[i].Rater != i || got[i].Items != 5 || math.Abs(got[i].Kappa-w.kappa) > 1e-12 || math.Abs(got[i].Agree-w.agree) > 1e-12 {
			t.Errorf("rater %d = %+v, want κ %v agree %v", i, got[i], w.kappa, w.agree)
		}
	}
}

func TestGoldAccuracy(t *testing.T) {
	exact, binary, n := GoldAccuracy([]int{3, 2, 0, 1, M}, []int{3, 3, 1, 2, 0}, 2)
	// Exact: item 0 only → 1/4; binary: items 0, 1, 2 → 3/4 (item 3: 1 vs 2 crosses).
	if n != 4 || exact != 0.25 || binary != 0.75 {
		t.Fatalf("exact %v binary %v n %d", exact, binary, n)
	}
}
