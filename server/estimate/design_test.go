package estimate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// drawFixture: two runs over documents a..; the best ranks are
//
//	a 1, b 1, c 2, x 2 (judged before, skipped), d 3, e 3, f 4, g 4, h 5
//
// so with strata 1-2, 3-5 and corpus bounds [4] + rest:
//
//	rank 1-2: a b c (N 3, rate 1)
//	rank 3-5: d e f g h (N 5, rate 0.5 → n 2 or 3)
//	corpus proxy 1-4: proxy p1 a p2 x p3 → p1 p2 (a in a rank stratum, x
//	  judged; p3 at proxy rank 5 goes to the rest) (N 2, rate 0.5 → n 1)
//	corpus rest: p3, then corpus c1 c2 c3 (a, p1 and x in the corpus are
//	  skipped) (N 4, rate 0.25 → n 1)
//	judged before: x y (N 2, π 1)
func drawFixture() (QueryInput, SampleConfig) {
	in := QueryInput{
		Query:  "q",
		Lists:  [][]string{{"a", "c", "d", "f", "h", "z1"}, {"b", "x", "e", "g"}},
		Proxy:  []string{"p1", "a", "p2", "x", "p3"},
		Corpus: []string{"a", "p1", "c1", "c2", "x", "c3"},
		Judged: map[string]bool{"x": true, "y": true, "n": false},
	}
	cfg := SampleConfig{
		Strata: []RankStratum{{From: 1, To: 2, Rate: 1}, {From: 3, To: 5, Rate: 0.5}},
		Corpus: &CorpusStratum{Bounds: []int{4}, Rates: []float64{0.5}, Rest: true, RestRate: 0.25},
	}
	return in, cfg
}

func TestDraw(t *testing.T) {
	in, cfg := drawFixture()
	if err := cfg.Check(); err != nil {
		t.Fatal(err)
	}
	want := []Stratum{
		{Name: "rank 1-2", Population: 3},
		{Name: "rank 3-5", Population: 5},
		{Name: "corpus proxy 1-4", Population: 2},
		{Name: "corpus rest", Population: 4},
		{Name: "judged before", Population: 2},
	}
	members := []string{"a b c", "d e f g h", "p1 p2", "p3 c1 c2 c3", "x y"}
	rng := rand.New(rand.NewPCG(1, 2))
	sizeSum := make([]float64, len(want))
	const draws = 4000
	for it := range draws {
		d := Draw(in, cfg, rng)
		if len(d.Strata) != len(want) {
			t.Fatalf("strata %+v", d.Strata)
		}
		seen := map[string]bool{}
		count := make([]int, len(want))
		for _, u := range d.Units {
			if seen[u.Doc] {
				t.Fatalf("draw %d: %s drawn twice", it, u.Doc)
			}
			seen[u.Doc] = true
			if !strings.Contains(" "+members[u.Stratum]+" ", " "+u.Doc+" ") {
				t.Fatalf("draw %d: %s in stratum %d", it, u.Doc, u.Stratum)
			}
			s := d.Strata[u.Stratum]
			if u.Pi != float64(s.Sampled)/float64(s.Population) {
				t.Fatalf("draw %d: %s π %v, stratum %+v", it, u.Doc, u.Pi, s)
			}
			count[u.Stratum]++
		}
		for h, s := range d.Strata {
			if s.Name != want[h].Name || s.Population != want[h].Population || s.Sampled != count[h] {
				t.Fatalf("draw %d: stratum %d = %+v (units %d), want %+v", it, h, s, count[h], want[h])
			}
			sizeSum[h] += float64(s.Sampled)
		}
		// Randomized rounding: rate·N = 2.5 → 2 or 3; 1 → 1; 1 → 1.
		if n := d.Strata[1].Sampled; n != 2 && n != 3 {
			t.Fatalf("rank 3-5 drew %d", n)
		}
		if d.Strata[0].Sampled != 3 || d.Strata[2].Sampled != 1 || d.Strata[3].Sampled != 1 || d.Strata[4].Sampled != 2 {
			t.Fatalf("sizes %+v", d.Strata)
		}
		// The certainty stratum comes last, in docid order, π 1.
		if u := d.Units[len(d.Units)-2:]; u[0].Doc != "x" || u[1].Doc != "y" || u[0].Pi != 1 {
			t.Fatalf("judged before units %+v", u)
		}
	}
	// Expected size 2.5 in rank 3-5: the mean of 4,000 draws (sd 0.5) is
	// within 4 standard errors (0.032).
	if m := sizeSum[1] / draws; math.Abs(m-2.5) > 4*0.5/math.Sqrt(draws) {
		t.Errorf("mean size of rank 3-5 = %v, want 2.5", m)
	}
	// The same seed gives the same design.
	a := Draw(in, cfg, rand.New(rand.NewPCG(9, 9)))
	b := Draw(in, cfg, rand.New(rand.NewPCG(9, 9)))
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("not reproducible:\n%v\n%v", a, b)
	}
}

// TestDrawInclusion checks that every document of a sampled stratum is
// drawn with probability rate (expected size / N), whatever its position.
func TestDrawInclusion(t *testing.T) {
	in, cfg := drawFixture()
	rng := rand.New(rand.NewPCG(5, 6))
	hits := map[string]int{}
	const draws = 8000
	for range draws {
		for _, u := range Draw(in, cfg, rng).Units {
			hits[u.Doc]++
		}
	}
	for doc, p := range map[string]float64{"d": 0.5, "h": 0.5, "p1": 0.5, "p3": 0.25, "c3": 0.25, "a": 1, "x": 1} {
		se := math.Sqrt(p * (1 - p) / draws)
		if got := float64(hits[doc]) / draws; math.Abs(got-p) > 4*se+1e-12 {
			t.Errorf("%s drawn with frequency %v, want %v", doc, got, p)
		}
	}
	if hits["z1"] != 0 || hits["n"] != 0 {
		t.Errorf("documents outside the design drawn: %v", hits)
	}
}

func TestCheck(t *testing.T) {
	bad := []struct {
		field string
		cfg   SampleConfig
	}{
		{"strata", SampleConfig{}},
		{"strata[0].from", SampleConfig{Strata: []RankStratum{{From: 2, To: 5, Rate: 1}}}},
		{"strata[1].from", SampleConfig{Strata: []RankStratum{{From: 1, To: 5, Rate: 1}, {From: 7, To: 9, Rate: 1}}}},
		{"strata[0].to", SampleConfig{Strata: []RankStratum{{From: 1, To: 0, Rate: 1}}}},
		{"strata[1].rate", SampleConfig{Strata: []RankStratum{{From: 1, To: 5, Rate: 1}, {From: 6, To: 9, Rate: 0}}}},
		{"strata[0].rate", SampleConfig{Strata: []RankStratum{{From: 1, To: 5, Rate: 1.5}}}},
		{"corpus", SampleConfig{Corpus: &CorpusStratum{}}},
		{"corpus.rates", SampleConfig{Corpus: &CorpusStratum{Bounds: []int{10}}}},
		{"corpus.bounds[1]", SampleConfig{Corpus: &CorpusStratum{Bounds: []int{10, 10}, Rates: []float64{1, 1}}}},
		{"corpus.rates[0]", SampleConfig{Corpus: &CorpusStratum{Bounds: []int{10}, Rates: []float64{-1}}}},
		{"corpus.rest_rate", SampleConfig{Corpus: &CorpusStratum{Rest: true}}},
	}
	for _, tc := range bad {
		err := tc.cfg.Check()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: got %v, want an error on %s", tc.cfg, err, tc.field)
		}
	}
	if err := DefaultConfig().Check(); err != nil {
		t.Errorf("default config: %v", err)
	}
	_, cfg := drawFixture()
	if err := cfg.Check(); err != nil {
		t.Errorf("fixture config: %v", err)
	}
}

func TestScaleToBudget(t *testing.T) {
	in, cfg := drawFixture()
	in2 := in
	in2.Query = "q2"
	in2.Judged = nil // x becomes rank 2: rank 1-2 holds a b c x
	inputs := []QueryInput{in, in2}
	// Rate-1 stratum: 3 + 4 = 7 documents. Sampled strata (N): rank 3-5
	// 5 + 5, proxy 2 + 2 (in q2 x is in rank 1-2, so still skipped), rest
	// 4 + 4.
	if got := ExpectedNew(inputs, cfg); math.Abs(got-(7+0.5*10+0.5*4+0.25*8)) > 1e-12 {
		t.Fatalf("ExpectedNew = %v", got)
	}
	// Budget 12: s solves 7 + s(0.5·10 + 0.5·4 + 0.25·8) = 12 → s = 5/9.
	scaled, err := ScaleToBudget(inputs, cfg, 12)
	if err != nil {
		t.Fatal(err)
	}
	s := 5.0 / 9
	if r := scaled.Strata[1].Rate; math.Abs(r-0.5*s) > 1e-12 || scaled.Strata[0].Rate != 1 || math.Abs(scaled.Corpus.RestRate-0.25*s) > 1e-12 {
		t.Fatalf("scaled %+v %+v, want factor %v", scaled.Strata, *scaled.Corpus, s)
	}
	if cfg.Strata[1].Rate != 0.5 || cfg.Corpus.Rates[0] != 0.5 {
		t.Fatal("ScaleToBudget changed its input")
	}
	if got := ExpectedNew(inputs, scaled); math.Abs(got-12) > 1e-9 {
		t.Fatalf("expected new judgments %v, want 12", got)
	}
	// Drawn: the mean number of new judgments over many draws is 12.
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	const draws = 4000
	for range draws {
		for _, qi := range inputs {
			d := Draw(qi, scaled, rng)
			for _, st := range d.Strata {
				if st.Name != "judged before" {
					total += st.Sampled
				}
			}
		}
	}
	if m := float64(total) / draws; math.Abs(m-12) > 0.05 {
		t.Errorf("mean new judgments %v, want 12", m)
	}
	// Budget 26: at s = 2 the 0.5 rates reach 1 and the total is
	// 7 + 10 + 4 + 0.5·8 = 25 < 26, so s = 2.5 with those capped:
	// 7 + 10 + 4 + 0.25·2.5·8 = 26, rest rate 0.625.
	big, err := ScaleToBudget(inputs, cfg, 26)
	if err != nil {
		t.Fatal(err)
	}
	if big.Strata[1].Rate != 1 || big.Corpus.Rates[0] != 1 || math.Abs(big.Corpus.RestRate-0.625) > 1e-12 {
		t.Errorf("budget 26: %+v %+v", big.Strata, *big.Corpus)
	}
	all, err := ScaleToBudget(inputs, cfg, 1000)
	if err != nil || all.Corpus.RestRate != 1 || all.Strata[1].Rate != 1 {
		t.Errorf("budget 1000: %+v %v", all, err)
	}
	if _, err := ScaleToBudget(inputs, cfg, 5); err == nil || !strings.Contains(err.Error(), "2 more than the budget") {
		t.Errorf("budget 5 (rate-1 strata need 7): %v", err)
	}
	if _, err := ScaleToBudget(inputs, cfg, 7); err == nil {
		t.Error("budget 7 = the rate-1 strata: want an error")
	}
}
