package consensus

import (
	"math"
	"reflect"
	"testing"
)

// simAccuracies are eight raters from 0.95 down to 0.55.
var simAccuracies = []float64{0.95, 0.9, 0.85, 0.8, 0.7, 0.65, 0.6, 0.55}

// TestDawidSkeneRecoversAccuracies simulates noisy labels from raters of
// known accuracy and checks that DS recovers each accuracy within 0.05
// of the true value (and sensitivity and specificity within 0.05 of the
// realised ones), and that its consensus is at least as accurate as the majority.
func TestDawidSkeneRecoversAccuracies(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		sim := Simulate(SimParams{Seed: seed, Items: 2000, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.3})
		res := DawidSkene(sim.Items, DSOptions{})
		if !res.Converged {
			t.Errorf("seed %d: no convergence in %d iterations", seed, res.Iterations)
		}
		if len(res.Raters) != len(simAccuracies) {
			t.Fatalf("seed %d: %d raters estimated, want %d", seed, len(res.Raters), len(simAccuracies))
		}
		for i, want := range simAccuracies {
			r, ok := res.Rater(int64(i + 1))
			if !ok {
				t.Fatalf("seed %d: rater %d missing", seed, i+1)
			}
			if math.Abs(r.Accuracy-want) > 0.05 {
				t.Errorf("seed %d rater %d: estimated accuracy %.3f, true %.2f", seed, i+1, r.Accuracy, want)
			}
			// Sensitivity rests on the ~30 % relevant items only: it is
			// held to the rater's realised rate on this sample.
			sens, spec := sim.EmpiricalRates(int64(i + 1))
			if math.Abs(r.Sensitivity-sens) > 0.05 || math.Abs(r.Specificity-spec) > 0.05 {
				t.Errorf("seed %d rater %d: sensitivity %.3f / specificity %.3f, realised %.3f / %.3f",
					seed, i+1, r.Sensitivity, r.Specificity, sens, spec)
			}
		}
		if math.Abs(res.Prior-0.3) > 0.05 {
			t.Errorf("seed %d: prior %.3f, want ≈0.3", seed, res.Prior)
		}
		ds, maj := sim.DSAccuracy(res), sim.MajorityAccuracy()
		if ds < maj {
			t.Errorf("seed %d: DS consensus accuracy %.4f < majority %.4f", seed, ds, maj)
		}
		t.Logf("seed %d: DS consensus accuracy %.4f, majority %.4f, %d iterations", seed, ds, maj, res.Iterations)
	}
}

// TestDawidSkeneSmallSample is the brief's size: 500 items. Recovery is
// checked against each rater's realised accuracy on the sample (what any
// estimator can see), within 0.05.
func TestDawidSkeneSmallSample(t *testing.T) {
	sim := Simulate(SimParams{Seed: 7, Items: 500, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.3})
	res := DawidSkene(sim.Items, DSOptions{})
	for i := range simAccuracies {
		id := int64(i + 1)
		r, _ := res.Rater(id)
		if emp := sim.EmpiricalAccuracy(id); math.Abs(r.Accuracy-emp) > 0.05 {
			t.Errorf("rater %d: estimated accuracy %.3f, realised %.3f", id, r.Accuracy, emp)
		}
	}
	if ds, maj := sim.DSAccuracy(res), sim.MajorityAccuracy(); ds < maj {
		t.Errorf("DS consensus accuracy %.4f < majority %.4f", ds, maj)
	}
}

// TestDawidSkeneDeterministic: same input, same output, bit for bit.
func TestDawidSkeneDeterministic(t *testing.T) {
	sim := Simulate(SimParams{Seed: 11, Items: 300, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.4})
	a := DawidSkene(sim.Items, DSOptions{})
	b := DawidSkene(sim.Items, DSOptions{})
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs over the same items differ")
	}
}

// TestDawidSkeneKnownItems: gold answers stay fixed and pull a rater who
// contradicts them down even where the majority agrees with that rater.
func TestDawidSkeneKnownItems(t *testing.T) {
	yes, no := true, false
	var items []DSItem
	// Raters 1 and 2 always say relevant, rater 3 is right: the truth
	// (known on the first 20 items) is "not relevant" throughout.
	for i := range 40 {
		it := DSItem{Votes: []Vote{{Rater: 1, Label: 3}, {Rater: 2, Label: 2}, {Rater: 3, Label: 0}}}
		if i < 20 {
			it.Known = &no
		}
		items = append(items, it)
	}
	items = append(items, DSItem{Votes: []Vote{{Rater: 3, Label: 3}}, Known: &yes})
	res := DawidSkene(items, DSOptions{})
	for i := range 20 {
		if res.Posterior[i] != 0 {
			t.Fatalf("known item %d moved to %v", i, res.Posterior[i])
		}
	}
	if res.Posterior[40] != 1 {
		t.Errorf("known relevant item at %v", res.Posterior[40])
	}
	for i := 20; i < 40; i++ {
		if res.Relevant(i) {
			t.Errorf("item %d: DS says relevant (P=%.3f); the gold-anchored rater 3 says not", i, res.Posterior[i])
		}
		if d, _ := Decide(items[i].Votes, nil); !d.Relevant() {
			t.Fatalf("item %d: the majority should say relevant", i)
		}
	}
	r1, _ := res.Rater(1)
	r3, _ := res.Rater(3)
	if r1.Specificity > 0.2 || r3.Accuracy < 0.9 {
		t.Errorf("rater 1 specificity %.3f (want low), rater 3 accuracy %.3f (want high)", r1.Specificity, r3.Accuracy)
	}
}

func TestDawidSkeneEdgeCases(t *testing.T) {
	if res := DawidSkene(nil, DSOptions{}); len(res.Posterior) != 0 || len(res.Raters) != 0 {
		t.Errorf("empty input: %+v", res)
	}
	// An item without votes stays at the prior's side, never NaN.
	res := DawidSkene([]DSItem{{}, {Votes: []Vote{{Rater: 5, Label: 3}}}}, DSOptions{MaxIter: 3})
	for i, p := range res.Posterior {
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("posterior %d = %v", i, p)
		}
	}
	if res.Iterations > 3 {
		t.Errorf("%d iterations, max 3", res.Iterations)
	}
}

func TestDecideDS(t *testing.T) {
	two := 2
	tests := []struct {
		name     string
		votes    []Vote
		adj      *int
		relevant bool
		want     int
	}{
		{"relevant side median", votes(3, 2, 0), nil, true, 2},
		{"overturned majority", votes(3, 3, 1), nil, false, 1},
		{"overturned to relevant", votes(0, 1, 3), nil, true, 3},
		{"no vote on the relevant side", votes(0, 1), nil, true, 2},
		{"no vote on the not-relevant side", votes(3), nil, false, 1},
		{"adjudication overrides", votes(0, 0), &two, false, 2},
	}
	for _, tt := range tests {
		d, ok := DecideDS(tt.votes, tt.adj, tt.relevant)
		if !ok || d.Relevance != tt.want {
			t.Errorf("%s: relevance %d (ok %v), want %d", tt.name, d.Relevance, ok, tt.want)
		}
	}
}
