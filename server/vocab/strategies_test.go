package vocab

import (
	"slices"
	"testing"
)

// TestStrategies: each use lists its strategies in report order, as the
// lists that the registry replaced did (pooling.Strategies, GoldStrategies,
// evalsim.Strategies, the atom simulations of `pool simulate`, and the
// strategies the pool builder publishes); every strategy appears once.
func TestStrategies(t *testing.T) {
	tests := []struct {
		use  Use
		want []string
	}{
		{Order, []string{StrategyDocID, StrategyDepth, StrategyMTF, StrategyBandit}},
		{Gold, []string{StrategyDocID, StrategyDepth, StrategyMTF, StrategyBandit, StrategyCAL}},
		{Estimate, []string{StrategyDocID, StrategyDepth, StrategyMTF, StrategyBandit, StrategyCAL, StrategySample}},
		{AtomSim, []string{StrategyAtoms, StrategyAtomsPools, StrategyCALFull, StrategyCALBound}},
		{Publish, []string{StrategyDepth, StrategyMTF, StrategyBandit, StrategyCAL, StrategyAtoms, StrategySample}},
	}
	for _, tt := range tests {
		if got := Strategies(tt.use); !slices.Equal(got, tt.want) {
			t.Errorf("Strategies(%d) = %q, want %q", tt.use, got, tt.want)
		}
	}
	seen := map[string]bool{}
	for _, s := range registry {
		if seen[s.name] {
			t.Errorf("%q is registered twice", s.name)
		}
		seen[s.name] = true
	}
	// A caller's append must not write into the registry's lists.
	a := Strategies(Order)
	_ = append(a[:1], "x")
	if got := Strategies(Order); got[1] != StrategyDepth {
		t.Errorf("Strategies(Order) after an append to a returned list = %q", got)
	}
}

func TestJobFinished(t *testing.T) {
	for _, s := range []string{JobDone, JobFailed, JobInterrupted, JobCancelled} {
		if !JobFinished(s) {
			t.Errorf("JobFinished(%q) = false", s)
		}
	}
	for _, s := range []string{JobQueued, JobRunning} {
		if JobFinished(s) {
			t.Errorf("JobFinished(%q) = true", s)
		}
	}
}

// TestCheckStrategies: names all of the use pass; an empty list, or a name
// of another use, is refused naming it and the use's strategies.
func TestCheckStrategies(t *testing.T) {
	if err := CheckStrategies(Estimate, []string{StrategyDepth, StrategySample}); err != nil {
		t.Fatal(err)
	}
	if err := CheckStrategies(Gold, nil); err == nil || err.Error() != "no strategy given" {
		t.Fatalf("no names: %v", err)
	}
	err := CheckStrategies(Gold, []string{StrategyCAL, StrategySample})
	if want := `unknown strategy "sample" (want one of docid, depth, mtf, bandit, cal)`; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
