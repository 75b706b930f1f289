package consensus_test

import (
	"math"
	"reflect"
	"testing"

	"boolpool/server/consensus"
	"boolpool/server/devtools/synth"
)

// simAccuracies are eight raters from 0.95 down to 0.55.
var simAccuracies = []float64{0.95, 0.9, 0.85, 0.8, 0.7, 0.65, 0.6, 0.55}

// TestDawidSkeneRecoversAccuracies simulates noisy labels from raters of
// known accuracy and checks that DS recovers each accuracy within 0.05
// of the true value (and sensitivity and specificity within 0.05 of the
// realised ones), and that its consensus is at least as accurate as the majority.
func TestDawidSkeneRecoversAccuracies(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		sim := synth.Simulate(synth.SimParams{Seed: seed, Items: 2000, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.3})
		res := consensus.DawidSkene(sim.Items, consensus.DSOptions{})
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
	sim := synth.Simulate(synth.SimParams{Seed: 7, Items: 500, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.3})
	res := consensus.DawidSkene(sim.Items, consensus.DSOptions{})
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
	sim := synth.Simulate(synth.SimParams{Seed: 11, Items: 300, Accuracies: simAccuracies, MinLabels: 3, MaxLabels: 5, Prior: 0.4})
	a := consensus.DawidSkene(sim.Items, consensus.DSOptions{})
	b := consensus.DawidSkene(sim.Items, consensus.DSOptions{})
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs over the same items differ")
	}
}
