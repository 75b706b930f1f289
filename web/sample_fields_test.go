package web

import (
	"strings"
	"testing"

	"boolpool/api"
)

// TestSampleChoiceSpec: the pool builder's sample fields become the wire
// spec (the defaults: three rank strata and a seed), and a field that does
// not parse is named.
func TestSampleChoiceSpec(t *testing.T) {
	c := newSampleChoice()
	s, err := c.spec()
	if err != nil || len(s.Strata) != 3 || s.Strata[1].From != 11 || s.Strata[1].Rate != 0.2 || s.Seed == 0 || s.Corpus != nil {
		t.Fatalf("default spec %+v (%v)", s, err)
	}
	c.corpus, c.rest, c.budget = "1000:0.02,10000:0.005", 0.001, 500
	s, err = c.spec()
	if err != nil || s.Budget != 500 || s.Corpus == nil || len(s.Corpus.Bounds) != 2 || s.Corpus.Rates[1] != 0.005 || !s.Corpus.Rest || s.Corpus.RestRate != 0.001 {
		t.Fatalf("corpus spec %+v (%v)", s, err)
	}
	c.strata = "1-10:1,11-100"
	if _, err := c.spec(); err == nil || !strings.Contains(err.Error(), "rank strata") || !strings.Contains(err.Error(), "stratum 2") {
		t.Errorf("bad strata: %v", err)
	}
	c.strata, c.corpus = "", "many"
	if _, err := c.spec(); err == nil || !strings.Contains(err.Error(), "corpus strata") {
		t.Errorf("bad corpus: %v", err)
	}
}

// TestAtomsOverTheCorpusNeedNoRuns: the pool builder asked for runs (and
// previewed their candidates) for constraint items over the corpus.
func TestAtomsOverTheCorpusNeedNoRuns(t *testing.T) {
	tests := []struct {
		spec api.PoolSpec
		want bool
	}{
		{api.PoolSpec{Strategy: api.StrategyAtoms, AtomsCandidates: "corpus"}, false},
		{api.PoolSpec{Strategy: api.StrategyAtoms, AtomsCandidates: "runs"}, true},
		{api.PoolSpec{Strategy: api.StrategyAtoms}, true},
		{api.PoolSpec{Strategy: api.StrategyCAL, AtomsCandidates: "corpus"}, true},
		{api.PoolSpec{Strategy: api.StrategyDepth}, true},
	}
	for _, tc := range tests {
		if got := poolNeedsRuns(tc.spec); got != tc.want {
			t.Errorf("poolNeedsRuns(%s, candidates %q) = %v, want %v", tc.spec.Strategy, tc.spec.AtomsCandidates, got, tc.want)
		}
	}
}
