package jobs

import (
	"boolpool/server/estimate"
	"boolpool/server/pooling"
)

// sampleParams translates the pool builder's sample spec (nil: none).
func sampleParams(s *SampleSpec) *pooling.SampleParams {
	if s == nil {
		return nil
	}
	p := &pooling.SampleParams{Budget: s.Budget, Seed: s.Seed, Proxy: s.Proxy}
	p.Strata = append(p.Strata, s.Strata...)
	if c := s.Corpus; c != nil {
		p.Corpus = &estimate.CorpusStratum{Bounds: c.Bounds, Rates: c.Rates, Rest: c.Rest, RestRate: c.RestRate}
	}
	return p
}

// sampleDrawn is the wire form of a sampled pool's report (nil: none).
func sampleDrawn(r *pooling.SampleReport) *SampleDrawn {
	if r == nil {
		return nil
	}
	out := &SampleDrawn{Units: r.Units, New: r.New, JudgedBefore: r.JudgedBefore, Expected: r.Expected,
		Strata: make([]SampleStratumSum, len(r.Strata)), Drawn: SampleSpec{Seed: r.Config.Seed}}
	for i, s := range r.Strata {
		out.Strata[i] = SampleStratumSum{Name: s.Name, Population: s.Population, Sampled: s.Sampled}
	}
	out.Drawn.Strata = append(out.Drawn.Strata, r.Config.Strata...)
	if c := r.Config.Corpus; c != nil {
		out.Drawn.Corpus = &SampleCorpus{Bounds: c.Bounds, Rates: c.Rates, Rest: c.Rest, RestRate: c.RestRate}
	}
	return out
}
