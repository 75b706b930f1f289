package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// Stratum of one query's design: N_h documents, n_h drawn.
type Stratum struct {
	Name       string `json:"name"`       // "rank 1-10", "rank 11-100", "corpus proxy 1-1000", "corpus rest", "judged before"
	Population int    `json:"population"` // N_h
	Sampled    int    `json:"sampled"`    // n_h drawn (0..N_h)
}

// Unit is one drawn document of a query.
type Unit struct {
	Doc     string  `json:"doc"`
	Stratum int     `json:"stratum"` // index into QueryDesign.Strata
	Pi      float64 `json:"pi"`      // inclusion probability n_h/N_h
}

// QueryDesign is the stratified sample of one query.
type QueryDesign struct {
	Query  string    `json:"query"`
	Strata []Stratum `json:"strata"`
	Units  []Unit    `json:"units"` // in judging order: shuffled within each stratum
}

// RankStratum: documents whose BEST rank over the runs is in [From, To] are
// drawn at Rate (1 = all).
type RankStratum struct {
	From int     `json:"from"`
	To   int     `json:"to"`
	Rate float64 `json:"rate"`
}

// CorpusStratum: documents of the whole corpus not in any rank stratum,
// stratified by their rank in a cheap proxy ranking (BM25 of the query text
// or the cal learner's score): proxy ranks 1..Bounds[0],
// Bounds[0]+1..Bounds[1], …, and (if Rest) every remaining corpus document.
// Proxy ranks are positions in QueryInput.Proxy as given (1-based),
// counting the documents that are skipped because a rank stratum or the
// judged-before stratum already holds them.
type CorpusStratum struct {
	Bounds   []int     `json:"bounds"`
	Rates    []float64 `json:"rates"`
	Rest     bool      `json:"rest"`
	RestRate float64   `json:"rest_rate"`
}

// SampleConfig is a sampling design for every query of a pool.
type SampleConfig struct {
	Strata []RankStratum  `json:"strata"`
	Corpus *CorpusStratum `json:"corpus,omitempty"`
	Seed   uint64         `json:"seed"`
}

// DefaultConfig is the design used when the researcher sets no rates:
// ranks 1–10 whole, 11–100 at 0.2 and 101–1000 at 0.05, no corpus stratum.
// The top ten are taken whole because P@10 and nDCG@10 then need no
// estimate at all and because that is where the runs' relevant documents
// (and the weight of AP) concentrate; below, the rate falls with depth as
// the density of relevant documents does, the shape of the statAP and
// infAP designs (Aslam, Pavlu & Yilmaz 2006; Yilmaz, Kanoulas & Aslam 2008)
// and of the strategies Voorhees (2014) found to estimate best. Use
// ScaleToBudget to fit the rates to a number of judgments.
func DefaultConfig() SampleConfig {
	return SampleConfig{
		Strata: []RankStratum{
			{From: 1, To: 10, Rate: 1},
			{From: 11, To: 100, Rate: 0.2},
			{From: 101, To: 1000, Rate: 0.05},
		},
		Seed: 1,
	}
}

// FieldError is an invalid SampleConfig field; Field is its JSON path
// ("strata[1].rate", "corpus.bounds[0]").
type FieldError struct {
	Field  string
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func validRate(r float64) bool { return r > 0 && r <= 1 && !math.IsNaN(r) }

// Check validates a config: rank strata contiguous from rank 1 (From of
// each is the previous To + 1), rates in (0, 1], corpus bounds increasing
// and one rate per bound. The error is a *FieldError naming the field.
func (c SampleConfig) Check() error {
	if len(c.Strata) == 0 && c.Corpus == nil {
		return fieldErr("strata", "no strata and no corpus stratum")
	}
	next := 1
	for i, s := range c.Strata {
		f := "strata[" + strconv.Itoa(i) + "]"
		if s.From != next {
			return fieldErr(f+".from", "is %d, want %d (strata must be contiguous from rank 1)", s.From, next)
		}
		if s.To < s.From {
			return fieldErr(f+".to", "%d is below from %d", s.To, s.From)
		}
		if !validRate(s.Rate) {
			return fieldErr(f+".rate", "%v is not in (0, 1]", s.Rate)
		}
		next = s.To + 1
	}
	if c.Corpus == nil {
		return nil
	}
	cs := c.Corpus
	if len(cs.Bounds) == 0 && !cs.Rest {
		return fieldErr("corpus", "no bounds and no rest: the stratum would be empty")
	}
	if len(cs.Rates) != len(cs.Bounds) {
		return fieldErr("corpus.rates", "%d rates for %d bounds", len(cs.Rates), len(cs.Bounds))
	}
	prev := 0
	for i, b := range cs.Bounds {
		if b <= prev {
			return fieldErr("corpus.bounds["+strconv.Itoa(i)+"]", "%d is not above %d (bounds must increase from 1)", b, prev)
		}
		prev = b
		if !validRate(cs.Rates[i]) {
			return fieldErr("corpus.rates["+strconv.Itoa(i)+"]", "%v is not in (0, 1]", cs.Rates[i])
		}
	}
	if cs.Rest && !validRate(cs.RestRate) {
		return fieldErr("corpus.rest_rate", "%v is not in (0, 1]", cs.RestRate)
	}
	return nil
}

// QueryInput is the input of one query's draw.
type QueryInput struct {
	Query  string
	Lists  [][]string      // each contributing run's ranking, best first
	Proxy  []string        // proxy ranking of corpus documents (may include run docs; they are skipped), nil without a corpus stratum
	Corpus []string        // every corpus document id (needed only for CorpusStratum.Rest)
	Judged map[string]bool // documents already judged for this query: they form a certainty stratum "judged before" (π=1) and are never drawn again
}

// population is one stratum before the draw: its documents in a fixed
// order and its rate; slot says which config rate it came from (rank
// stratum i, corpus bound len(Strata)+b, rest len(Strata)+len(Bounds),
// judged before -1).
type population struct {
	name string
	docs []string
	rate float64
	slot int
}

// populations partitions one query's documents into the strata of cfg
// (which must pass Check). Empty strata are left out.
func populations(in QueryInput, cfg SampleConfig) []population {
	judged := make(map[string]bool, len(in.Judged))
	for d, ok := range in.Judged {
		if ok {
			judged[d] = true
		}
	}
	maxRank := 0
	if n := len(cfg.Strata); n > 0 {
		maxRank = cfg.Strata[n-1].To
	}
	// Walk the lists depth by depth, so documents come out ordered by
	// best rank (ties in list order) without a sort.
	size := 0
	for _, list := range in.Lists {
		size += min(len(list), maxRank)
	}
	best := make(map[string]int, size)
	ranked := make([]string, 0, size)
	for i := range maxRank {
		more := false
		for _, list := range in.Lists {
			if i >= len(list) {
				continue
			}
			more = true
			d := list[i]
			if judged[d] {
				continue
			}
			if _, seen := best[d]; !seen {
				best[d] = i + 1
				ranked = append(ranked, d)
			}
		}
		if !more {
			break
		}
	}
	var out []population
	pos := 0
	for i, s := range cfg.Strata {
		start := pos
		for pos < len(ranked) && best[ranked[pos]] <= s.To {
			pos++
		}
		if pos > start {
			out = append(out, population{
				name: fmt.Sprintf("rank %d-%d", s.From, s.To),
				docs: ranked[start:pos:pos],
				rate: s.Rate,
				slot: i,
			})
		}
	}
	if cs := cfg.Corpus; cs != nil {
		taken := func(d string) bool {
			_, inRank := best[d]
			return inRank || judged[d]
		}
		bins := make([][]string, len(cs.Bounds))
		inProxy := make(map[string]bool, len(in.Proxy))
		var rest []string
		for i, d := range in.Proxy {
			if taken(d) || inProxy[d] {
				continue
			}
			inProxy[d] = true
			b := sort.SearchInts(cs.Bounds, i+1) // first bound >= proxy rank
			switch {
			case b < len(cs.Bounds):
				bins[b] = append(bins[b], d)
			case cs.Rest:
				rest = append(rest, d)
			}
		}
		prev := 0
		for b, docs := range bins {
			if len(docs) > 0 {
				out = append(out, population{
					name: fmt.Sprintf("corpus proxy %d-%d", prev+1, cs.Bounds[b]),
					docs: docs,
					rate: cs.Rates[b],
					slot: len(cfg.Strata) + b,
				})
			}
			prev = cs.Bounds[b]
		}
		if cs.Rest {
			for _, d := range in.Corpus {
				if !taken(d) && !inProxy[d] {
					inProxy[d] = true // also drops repeats in Corpus
					rest = append(rest, d)
				}
			}
			if len(rest) > 0 {
				out = append(out, population{name: "corpus rest", docs: rest, rate: cs.RestRate, slot: len(cfg.Strata) + len(cs.Bounds)})
			}
		}
	}
	if len(judged) > 0 {
		docs := make([]string, 0, len(judged))
		for d := range judged {
			docs = append(docs, d)
		}
		sort.Strings(docs)
		out = append(out, population{name: "judged before", docs: docs, rate: 1, slot: -1})
	}
	return out
}

// sampleSize is the randomized rounding of rate·n: ⌊rate·n⌋, plus one
// with probability equal to the fractional part, so E[size] = rate·n.
func sampleSize(rate float64, n int, rng *rand.Rand) int {
	if rate >= 1 {
		return n
	}
	x := rate * float64(n)
	k := math.Floor(x)
	size := int(k)
	if frac := x - k; frac > 0 && rng.Float64() < frac {
		size++
	}
	return min(size, n)
}

// Draw draws one query's stratified sample without replacement.
//
// The strata, in this order and each only if it holds a document: the
// rank strata of cfg, by every document's best rank over in.Lists (ranks
// below the last stratum's To are not in any rank stratum); the corpus
// strata by proxy rank, then "corpus rest"; last the documents of
// in.Judged, the certainty stratum "judged before" (π = 1, never drawn
// again, so an existing project's judgments count). A document that is in
// no stratum (below the rank strata and without a corpus stratum that
// holds it) is outside the design: estimates then cover the documents the
// design can reach, not the whole corpus.
//
// In a stratum of N_h documents drawn at rate p_h, n_h is the randomized
// rounding of p_h·N_h (⌊p_h·N_h⌋, plus one with probability equal to the
// fraction), so the expected sample size is exactly p_h·N_h. The n_h
// documents are a simple random sample without replacement, π = n_h/N_h
// for each, listed in random order (a partial Fisher–Yates shuffle), so
// judging a stratum's units in the listed order and stopping anywhere
// leaves a simple random sample of it. Conditional on n_h the
// Horvitz–Thompson estimators are unbiased; a stratum with p_h·N_h < 1 is
// left empty with probability 1 − p_h·N_h and then contributes nothing to
// the estimates, so keep p_h·N_h ≥ 1 where that matters.
//
// The same inputs, cfg and rng state give the same design.
func Draw(in QueryInput, cfg SampleConfig, rng *rand.Rand) QueryDesign {
	d := QueryDesign{Query: in.Query}
	for _, p := range populations(in, cfg) {
		n := len(p.docs)
		size := sampleSize(p.rate, n, rng)
		docs := p.docs // owned here: populations builds fresh slices
		// Partial Fisher–Yates: the first size entries become a random
		// sample in random order. The certainty stratum keeps its order.
		if p.slot >= 0 {
			for i := range size {
				j := i + rng.IntN(n-i)
				docs[i], docs[j] = docs[j], docs[i]
			}
		}
		h := len(d.Strata)
		d.Strata = append(d.Strata, Stratum{Name: p.name, Population: n, Sampled: size})
		pi := float64(size) / float64(n)
		for _, doc := range docs[:size] {
			d.Units = append(d.Units, Unit{Doc: doc, Stratum: h, Pi: pi})
		}
	}
	return d
}

// ScaleToBudget returns cfg with every rate < 1 multiplied by one factor s
// (each capped at 1) so that the expected total number of new judgments
// over all queries equals budget; s is found by bisection. The rate-1
// strata are taken whole and count against the budget first. The
// documents judged before cost nothing (they are not judged again) and are
// outside every stratum, so they do not count. If the budget covers every
// stratum whole, every rate becomes 1 and the expected total is below the
// budget. It errors if the rate-1 strata alone reach the budget.
func ScaleToBudget(inputs []QueryInput, cfg SampleConfig, budget int) (SampleConfig, error) {
	if err := cfg.Check(); err != nil {
		return cfg, err
	}
	slots := len(cfg.Strata)
	if cfg.Corpus != nil {
		slots += len(cfg.Corpus.Bounds) + 1
	}
	sizes := make([]float64, slots)
	for _, in := range inputs {
		for _, p := range populations(in, cfg) {
			if p.slot >= 0 {
				sizes[p.slot] += float64(len(p.docs))
			}
		}
	}
	rates := cfgRates(cfg)
	fixed, variable, minRate := 0.0, 0.0, 1.0
	for i, r := range rates {
		if r >= 1 {
			fixed += sizes[i]
		} else if sizes[i] > 0 {
			variable += sizes[i]
			minRate = min(minRate, r)
		}
	}
	b := float64(budget)
	if fixed > b {
		return cfg, fmt.Errorf("budget %d: the rate-1 strata alone need %.0f new judgments, %.0f more than the budget", budget, fixed, fixed-b)
	}
	if variable == 0 {
		return cfg, nil
	}
	if fixed == b {
		return cfg, fmt.Errorf("budget %d: the rate-1 strata take all of it and leave nothing for the sampled strata", budget)
	}
	expected := func(s float64) float64 {
		e := fixed
		for i, r := range rates {
			if r < 1 {
				e += min(1, s*r) * sizes[i]
			}
		}
		return e
	}
	hi := 1 / minRate
	s := hi
	if expected(hi) > b {
		lo := 0.0
		for range 200 {
			mid := (lo + hi) / 2
			if expected(mid) > b {
				hi = mid
			} else {
				lo = mid
			}
			if hi-lo <= 1e-15*hi {
				break
			}
		}
		s = (lo + hi) / 2
	}
	out := cfg
	out.Strata = append([]RankStratum(nil), cfg.Strata...)
	for i := range out.Strata {
		if out.Strata[i].Rate < 1 {
			out.Strata[i].Rate = min(1, s*out.Strata[i].Rate)
		}
	}
	if cfg.Corpus != nil {
		cs := *cfg.Corpus
		cs.Bounds = append([]int(nil), cs.Bounds...)
		cs.Rates = append([]float64(nil), cs.Rates...)
		for i := range cs.Rates {
			if cs.Rates[i] < 1 {
				cs.Rates[i] = min(1, s*cs.Rates[i])
			}
		}
		if cs.Rest && cs.RestRate < 1 {
			cs.RestRate = min(1, s*cs.RestRate)
		}
		out.Corpus = &cs
	}
	return out, nil
}

// cfgRates lists the rates by population slot (see population).
func cfgRates(cfg SampleConfig) []float64 {
	var r []float64
	for _, s := range cfg.Strata {
		r = append(r, s.Rate)
	}
	if cs := cfg.Corpus; cs != nil {
		r = append(r, cs.Rates...)
		rest := cs.RestRate
		if !cs.Rest {
			rest = 1 // no documents in the slot
		}
		r = append(r, rest)
	}
	return r
}

// ExpectedNew is the expected number of new judgments the design cfg draws
// over inputs (every stratum's rate·N_h, the judged-before documents left
// out).
func ExpectedNew(inputs []QueryInput, cfg SampleConfig) float64 {
	rates := cfgRates(cfg)
	e := 0.0
	for _, in := range inputs {
		for _, p := range populations(in, cfg) {
			if p.slot >= 0 {
				e += rates[p.slot] * float64(len(p.docs))
			}
		}
	}
	return e
}
