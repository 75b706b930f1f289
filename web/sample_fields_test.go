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

// TestPublishedMessageSaysWhyNothingIsNew: a cal publish said "0 new
// items" without why.
func TestPublishedMessageSaysWhyNothingIsNew(t *testing.T) {
	cal := api.PoolPublished{PoolID: 4, RatersPerItem: 3, Preview: api.PoolPreview{Strategy: api.StrategyCAL, Items: 40}}
	if got := publishedMessage(cal); !strings.Contains(got, "0 new relevance items") ||
		!strings.Contains(got, "Of the pool's 40 documents, 40 already were items of this project") {
		t.Errorf("all judged before: %q", got)
	}
	cal.ItemsCreated, cal.NoDocText = 30, 4
	if got := publishedMessage(cal); !strings.Contains(got, "6 already were items") || !strings.Contains(got, "4 have no stored text") {
		t.Errorf("some existing, some without text: %q", got)
	}
	empty := api.PoolPublished{PoolID: 5, Preview: api.PoolPreview{Strategy: api.StrategyCAL}}
	if got := publishedMessage(empty); !strings.Contains(got, "active learning chose no document") {
		t.Errorf("empty cal pool: %q", got)
	}
	fresh := api.PoolPublished{PoolID: 6, ItemsCreated: 1, RatersPerItem: 2, Preview: api.PoolPreview{Strategy: api.StrategyDepth, Items: 1}}
	if got := publishedMessage(fresh); got != "Published pool 6: 1 new relevance item, 2 raters per item." {
		t.Errorf("all new: %q", got)
	}
}
