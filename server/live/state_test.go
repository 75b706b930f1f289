package live

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"boolpool/server/consensus"
	"boolpool/server/store"
)

// randomData builds a project with nq queries, nr runs, pools of judged
// documents (some gold, some with pool sources) and explicit negatives.
func randomData(rng *rand.Rand, nq, nr, raters int) Data {
	d := Data{RatersPerItem: raters, Negatives: map[int64][]string{}, Votes: map[int64][]consensus.Vote{},
		Adjudicated: map[int64]int{}, Users: map[int64]string{}}
	templates := []string{"_", "_ and _", "_ that are not _"}
	for q := range nq {
		d.Queries = append(d.Queries, Query{ID: int64(100 + q), ExtID: fmt.Sprintf("q%02d", q), Template: templates[q%len(templates)],
			Operators: [][]string{{"ATOM"}, {"AND"}, {"AND", "NOT"}}[q%len(templates)]})
	}
	for r := range nr {
		run := Run{Name: fmt.Sprintf("run%d", r), Ranked: map[int64][]string{}}
		for _, q := range d.Queries {
			if rng.IntN(10) == 0 {
				continue // the run has nothing for this query
			}
			perm := rng.Perm(40)
			var docs []string
			for _, x := range perm[:5+rng.IntN(30)] {
				docs = append(docs, fmt.Sprintf("d%02d", x))
			}
			run.Ranked[q.ID] = docs
		}
		d.Runs = append(d.Runs, run)
	}
	id := int64(1000)
	for _, q := range d.Queries {
		for _, x := range rng.Perm(40)[:8+rng.IntN(8)] {
			it := Item{ID: id, QueryID: q.ID, DocExtID: fmt.Sprintf("d%02d", x), Gold: -1}
			id++
			if rng.IntN(8) == 0 {
				it.Gold = rng.IntN(4)
			}
			if rng.IntN(3) == 0 {
				it.Sources = []string{d.Runs[rng.IntN(nr)].Name}
			}
			d.Items = append(d.Items, it)
		}
		if rng.IntN(2) == 0 {
			for _, x := range rng.Perm(40)[:3] {
				d.Negatives[q.ID] = append(d.Negatives[q.ID], fmt.Sprintf("d%02d", x))
			}
		}
	}
	for u := range 7 {
		d.Users[int64(u+1)] = fmt.Sprintf("rater%d", u+1)
	}
	for q := 0; q+1 < nq && q < 8; q += 2 {
		d.NevIRPairs = append(d.NevIRPairs, NevIRPair{Q1: int64(100 + q), Q2: int64(101 + q), Doc1: fmt.Sprintf("d%02d", q), Doc2: fmt.Sprintf("d%02d", q+1)})
	}
	return d
}

// step changes one rater's vote on one item (new vote, correction or
// skip), or adjudicates, and returns the item changed.
func step(rng *rand.Rand, d *Data) int64 {
	it := d.Items[rng.IntN(len(d.Items))]
	if rng.IntN(15) == 0 {
		d.Adjudicated[it.ID] = rng.IntN(4)
		return it.ID
	}
	rater := int64(1 + rng.IntN(len(d.Users)))
	votes := d.Votes[it.ID]
	var kept []consensus.Vote
	for _, v := range votes {
		if v.Rater != rater {
			kept = append(kept, v)
		}
	}
	if rng.IntN(8) != 0 { // otherwise: a skip removes the rater's vote
		// Labels skew towards relevant, as real pools do.
		label := []int{0, 1, 2, 2, 3, 3, 3}[rng.IntN(7)]
		kept = append(kept, consensus.Vote{Rater: rater, Label: label, Contradiction: rng.IntN(12) == 0})
	}
	d.Votes[it.ID] = kept
	return it.ID
}

func TestIncrementalEqualsRecompute(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			d := randomData(rng, 24, 4, 3)
			// A gold check, so flags are compared too.
			d.Quality = store.QualitySettings{GoldMinAccuracy: 0.6, GoldMinJudged: 2, GoldPause: true}
			s := Build(d)
			s.SetDSEvery(0)
			compareSnapshots(t, "empty", s.Snapshot("p"), Recompute("p", d))
			for i := 1; i <= 600; i++ {
				id := step(rng, &d)
				var adj *int
				if a, ok := d.Adjudicated[id]; ok {
					adj = &a
				}
				if !s.SetItem(id, d.Votes[id], adj) {
					t.Fatalf("item %d unknown", id)
				}
				if i%100 == 0 {
					compareSnapshots(t, fmt.Sprint("after ", i, " steps"), s.Snapshot("p"), Recompute("p", d))
				}
			}
			if s.Version() != 600 {
				t.Errorf("version %d, want 600", s.Version())
			}
			// A state built from the final data agrees too.
			compareSnapshots(t, "rebuilt", Build(d).Snapshot("p"), s.Snapshot("p"))
			snap := s.Snapshot("p")
			if snap.Agreement.AlphaOrdinal == nil || snap.Agreement.FleissKappa == nil || snap.Consensus.Queue == 0 || len(snap.Contradictions.Items) == 0 {
				t.Errorf("random data too thin to test: %+v", snap.Agreement)
			}
		})
	}
}

// compareSnapshots compares two snapshots field by field through their
// JSON forms, floats to 1e-9, ignoring the time and version.
func compareSnapshots(t *testing.T, label string, got, want Snapshot) {
	t.Helper()
	norm := func(s Snapshot) any {
		s.At, s.Version = want.At, 0
		sort.Slice(s.Leaderboard, func(i, j int) bool { return s.Leaderboard[i].Run < s.Leaderboard[j].Run })
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: marshal: %v", label, err)
		}
		var v any
		_ = json.Unmarshal(b, &v)
		return v
	}
	var diffs []string
	diff("", norm(got), norm(want), &diffs)
	for i, d := range diffs {
		if i == 10 {
			t.Errorf("%s: … %d more differences", label, len(diffs)-10)
			break
		}
		t.Errorf("%s: %s", label, d)
	}
}

func diff(path string, a, b any, out *[]string) {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: %v vs %v", path, a, b))
			return
		}
		for k := range av {
			diff(path+"."+k, av[k], bv[k], out)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: missing vs %v", path, k, bv[k]))
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, fmt.Sprintf("%s: %v vs %v", path, a, b))
			return
		}
		for i := range av {
			diff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i], out)
		}
	case float64:
		bv, ok := b.(float64)
		if !ok || math.Abs(av-bv) > 1e-9 {
			*out = append(*out, fmt.Sprintf("%s: %v vs %v", path, a, b))
		}
	default:
		if a != b {
			*out = append(*out, fmt.Sprintf("%s: %v vs %v", path, a, b))
		}
	}
}

func TestPoissonWeights(t *testing.T) {
	// Deterministic per query, mean ≈ 1, variance ≈ 1.
	a, b := poissonWeights(42), poissonWeights(42)
	sum, sq := 0.0, 0.0
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("weights not deterministic")
		}
		x := float64(a[i])
		sum += x
		sq += x * x
	}
	mean := sum / Resamples
	variance := sq/Resamples - mean*mean
	if math.Abs(mean-1) > 0.1 || math.Abs(variance-1) > 0.15 {
		t.Errorf("Poisson(1) weights: mean %.3f variance %.3f", mean, variance)
	}
	if fmt.Sprint(poissonWeights(43)[:20]) == fmt.Sprint(a[:20]) {
		t.Error("different queries share weights")
	}
}

func TestOperatorsOf(t *testing.T) {
	tests := []struct{ expr, want string }{
		{``, "[]"},
		{`null`, "[]"},
		{`{"op":"ATOM","atom":0}`, "[ATOM]"},
		{`{"op":"AND","args":[{"op":"ATOM","atom":0},{"op":"NOT","args":[{"op":"ATOM","atom":1}]}]}`, "[AND NOT]"},
		{`{"op":"OR","args":[{"op":"ATOM","atom":0},{"op":"AND","args":[{"op":"ATOM","atom":1},{"op":"ATOM","atom":2}]}]}`, "[AND OR]"},
		{`not json`, "[]"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(OperatorsOf([]byte(tt.expr))); got != tt.want {
			t.Errorf("OperatorsOf(%s) = %s, want %s", tt.expr, got, tt.want)
		}
	}
}

// TestLeaderboardSetAndLogicMeasures pins the measures added to the
// leaderboard on a hand-worked project: set F1 of the top 20, the LogiCoL
// violation rate (queries with relevant documents and negatives only) and
// NevIR pairwise accuracy (undefined without pairs).
func TestLeaderboardSetAndLogicMeasures(t *testing.T) {
	// q1: relevant a; negative n. q2: relevant b; no negatives.
	d := Data{RatersPerItem: 1, Votes: map[int64][]consensus.Vote{}, Users: map[int64]string{1: "r"},
		Queries:   []Query{{ID: 1, ExtID: "p-q1"}, {ID: 2, ExtID: "p-q2"}},
		Negatives: map[int64][]string{1: {"n"}},
		Runs: []Run{
			// good: a above n for q1, b above a for q2.
			{Name: "good", Ranked: map[int64][]string{1: {"a", "n", "x"}, 2: {"b", "a"}}},
			// bad: the negative first for q1, and a above b for q2.
			{Name: "bad", Ranked: map[int64][]string{1: {"n", "a"}, 2: {"a", "b"}}},
		},
		Items: []Item{{ID: 10, QueryID: 1, DocExtID: "a", Gold: -1}, {ID: 11, QueryID: 2, DocExtID: "b", Gold: -1}},
	}
	d.Votes[10] = []consensus.Vote{{Rater: 1, Label: 3}}
	d.Votes[11] = []consensus.Vote{{Rater: 1, Label: 3}}
	score := func(snap Snapshot, run, measure string) *float64 {
		for _, r := range snap.Leaderboard {
			for _, s := range r.Scores {
				if r.Run == run && s.Measure == measure {
					return s.Mean
				}
			}
		}
		t.Fatalf("no %s of %s", measure, run)
		return nil
	}
	want := func(label string, got *float64, w float64) {
		t.Helper()
		if got == nil || math.Abs(*got-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", label, deref(got), w)
		}
	}
	for _, snap := range []Snapshot{Build(d).Snapshot("p"), Recompute("p", d)} {
		// good: q1 F1 = 2·(1/3)·1/(1/3+1) = 0.5, q2 F1 = 2·0.5·1/1.5 = 2/3.
		want("good f1@20", score(snap, "good", "f1@20"), (0.5+2.0/3)/2)
		want("good violation", score(snap, "good", "violation@100"), 0)
		want("bad violation", score(snap, "bad", "violation@100"), 1)
		if v := score(snap, "good", NevIRMeasure); v != nil {
			t.Errorf("nevir without pairs = %v, want n/a", *v)
		}
	}
	d.NevIRPairs = []NevIRPair{{Q1: 1, Q2: 2, Doc1: "a", Doc2: "b"}}
	for _, snap := range []Snapshot{Build(d).Snapshot("p"), Recompute("p", d)} {
		want("good nevir", score(snap, "good", NevIRMeasure), 1)
		want("bad nevir", score(snap, "bad", NevIRMeasure), 0)
	}
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

// TestQualityFlagsInSnapshot: the random data's gold check flags someone
// (else the comparison above proves nothing about flags).
func TestQualityFlagsInSnapshot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	d := randomData(rng, 24, 4, 3)
	for i := 0; i < 600; i++ {
		step(rng, &d)
	}
	d.Quality = store.QualitySettings{GoldMinAccuracy: 0.6, GoldMinJudged: 2, GoldPause: true}
	snap := Build(d).Snapshot("p")
	flagged := 0
	for _, a := range snap.Annotators {
		below := a.GoldItems >= 2 && float64(a.GoldCorrect) < 0.6*float64(a.GoldItems)
		if a.Flagged != below || a.Paused != below {
			t.Errorf("%s: %d of %d gold right, flagged %v paused %v", a.Username, a.GoldCorrect, a.GoldItems, a.Flagged, a.Paused)
		}
		if a.Flagged {
			flagged++
		}
		if a.DSAccuracy == nil {
			t.Errorf("%s: no Dawid–Skene estimate", a.Username)
		}
	}
	if flagged == 0 || snap.Quality.Flagged != flagged {
		t.Errorf("%d annotators flagged, panel says %d; the random data should flag some", flagged, snap.Quality.Flagged)
	}
}

// TestSingleVoteIsNotUnanimous: an item with one rating agrees with nobody,
// so the consensus summary counts it apart, not as unanimous (issue 25:
// "6 items judged: 6 unanimous" after six single ratings).
func TestSingleVoteIsNotUnanimous(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	d := randomData(rng, 4, 2, 3)
	s := Build(d)
	a, b := d.Items[0].ID, d.Items[1].ID
	s.SetItem(a, []consensus.Vote{{Rater: 1, Label: 3}}, nil)
	s.SetItem(b, []consensus.Vote{{Rater: 1, Label: 0}}, nil)
	c := s.Snapshot("p").Consensus
	if c.Items != 2 || c.Single != 2 || c.Unanimous != 0 {
		t.Fatalf("two single votes: %+v, want 2 items, 2 single, 0 unanimous", c)
	}
	s.SetItem(a, []consensus.Vote{{Rater: 1, Label: 3}, {Rater: 2, Label: 2}}, nil)
	c = s.Snapshot("p").Consensus
	if c.Items != 2 || c.Single != 1 || c.Unanimous != 1 {
		t.Errorf("one agreeing pair and one single vote: %+v, want 1 single, 1 unanimous", c)
	}
}
