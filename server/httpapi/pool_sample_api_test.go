package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"boolpool/api"
)

// TestPoolSampleAPI: the pool builder's endpoints take a sampled pool
// ("sample" in the spec): the preview sums the design without saving
// anything, publishing stores it, and a bad sample field is a 400 naming
// it (preview and publish alike).
func TestPoolSampleAPI(t *testing.T) {
	e := newPoolEnv(t)
	u := e.login("researcher")
	ctx := context.Background()
	spec := api.PoolSpec{Name: "s", Runs: []string{"bm25", "dense"}, Strategy: api.StrategySample,
		Sample: &api.SampleSpec{Strata: []api.SampleStratum{{From: 1, To: 1, Rate: 1}, {From: 2, To: 3, Rate: 0.5}}, Seed: 3}}
	var pv api.PoolPreview
	if st := u.do("POST", "/api/projects/fixture/pools/preview", spec, &pv); st != 200 {
		t.Fatalf("preview: %d", st)
	}
	// Rank 1: q1 {d1, d6}, q2 {d5, d6}; ranks 2-3 at 0.5: q1 {d5, d2}, q2 {d1, d3}.
	s := pv.Sample
	if pv.Strategy != api.StrategySample || s == nil || s.Expected != 6 || s.Units != pv.Items || s.JudgedBefore != 0 ||
		s.Drawn.Seed != 3 || len(s.Drawn.Strata) != 2 || len(s.Strata) != 2 || s.Strata[0].Population != 4 || s.Strata[0].Sampled != 4 {
		t.Fatalf("preview %+v sample %+v", pv, s)
	}
	if pools, err := e.st.ListPools(ctx, e.fx.Project.ID); err != nil || len(pools) != 0 {
		t.Fatalf("preview saved a pool: %+v %v", pools, err)
	}
	pub := publishPool(t, u, "fixture", spec)
	if pub.Preview.Sample == nil || pub.Preview.Sample.Units != s.Units {
		t.Fatalf("published %+v, preview drew %d units with the same seed", pub, s.Units)
	}
	if d, err := e.st.PoolDesign(ctx, pub.PoolID); err != nil || len(d) != 2 || len(d["q1"].Units)+len(d["q2"].Units) != s.Units {
		t.Fatalf("stored design %+v (%v)", d, err)
	}

	for _, tc := range []struct {
		sample *api.SampleSpec
		probes bool
		field  string
	}{
		{&api.SampleSpec{Strata: []api.SampleStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 20, Rate: 1.5}}}, false, "sample.strata[1].rate"},
		{&api.SampleSpec{Budget: -5}, false, "sample.budget"},
		{&api.SampleSpec{Corpus: &api.SampleCorpus{Bounds: []int{10}, Rates: []float64{0.5, 0.1}}}, false, "sample.corpus.rates"},
		{&api.SampleSpec{Proxy: "dense", Corpus: &api.SampleCorpus{Bounds: []int{10}, Rates: []float64{0.5}}}, false, "sample.proxy"},
		{nil, true, "probes"},
	} {
		bad := api.PoolSpec{Name: "bad", Runs: []string{"bm25"}, Strategy: api.StrategySample, Sample: tc.sample, Probes: tc.probes}
		for _, path := range []string{"/api/projects/fixture/pools/preview", "/api/projects/fixture/pools"} {
			var p api.Problem
			if st := u.do("POST", path, bad, &p); st != http.StatusBadRequest || p.Field != tc.field {
				t.Errorf("%s %+v: %d %+v, want 400 naming %s", path, tc.sample, st, p, tc.field)
			}
		}
	}
}
