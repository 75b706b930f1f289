package pooling

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"

	"boolpool/server/apperr"
	"boolpool/server/estimate"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// A pool with strategy "sample" is a stratified random sample (issue 24)
// over the union of the chosen runs' rankings — strata by a document's best
// rank over the runs, e.g. ranks 1–10 all, 11–100 at rate p1, 101–1000 at
// rate p2 — optionally plus whole-corpus strata by a proxy ranking (BM25 of
// the query text) so that relevant documents no run retrieved are
// estimated too: the designs of statAP (Aslam, Pavlu & Yilmaz 2006) and
// infAP / infNDCG (Yilmaz, Kanoulas & Aslam 2008); Voorhees 2014 compares
// such sampling strategies. server/estimate draws each query's sample
// (estimate.Draw) and scales the rates to a judgment budget
// (estimate.ScaleToBudget); every item of the pool records its inclusion
// probability and stratum, and the pool its strata (store.PoolDesign), so
// that the estimators can weight each judgment.
//
// Documents the project has judged already for a query (a current relevance
// judgment by any rater) form the design's "judged before" stratum, a
// certainty stratum (π = 1): they count in the estimates and are not
// published again.

// Sample is the stratified-sampling strategy.
const Sample = vocab.StrategySample

// OriginSample is the origin of a sampled pool's items.
const OriginSample = vocab.StrategySample

// ProxyBM25 ranks the corpus strata by BM25 of the query text over the
// project's lexical index.
const ProxyBM25 = "bm25"

// Bounds of a sampled pool.
const (
	MaxSampleBudget = 10_000_000 // new judgments over all queries
	MaxCorpusBound  = 1_000_000  // proxy ranks of the corpus strata
)

// SampleParams configure a sampled pool (Spec.Sample). JSON:
//
//	{"strata": [{"from": 1, "to": 10, "rate": 1}, {"from": 11, "to": 100, "rate": 0.2}],
//	 "corpus": {"bounds": [1000, 10000], "rates": [0.02, 0.005], "rest": true, "rest_rate": 0.001},
//	 "budget": 2000, "seed": 7, "proxy": "bm25"}
//
// Strata are ranges of a document's best rank over the chosen runs (from 1,
// contiguous; no strata: estimate.DefaultConfig's); corpus, optional, are
// strata of the proxy ranking (ranks 1..bounds[0] at rates[0], then up to
// bounds[1] at rates[1], …, and with rest every other document at
// rest_rate) over the documents no rank stratum holds. Budget > 0 scales
// the rates so that the pool asks for about that many new judgments over
// all its queries (estimate.ScaleToBudget). Seed 0 is derived from the
// pool's name, so a retry of the pool job draws the same sample.
type SampleParams struct {
	Strata []estimate.RankStratum  `json:"strata,omitempty"`
	Corpus *estimate.CorpusStratum `json:"corpus,omitempty"`
	Budget int                     `json:"budget,omitempty"`
	Seed   uint64                  `json:"seed,omitempty"`
	Proxy  string                  `json:"proxy,omitempty"`
}

// SampleReport is what a sampled pool drew, over all its queries.
type SampleReport struct {
	Units        int     `json:"units"`         // documents drawn, judged before included
	New          int     `json:"new"`           // of which not judged before: the judgments the pool asks for
	JudgedBefore int     `json:"judged_before"` // the certainty stratum of documents judged already
	Expected     float64 `json:"expected"`      // expected new judgments: Σ over strata of rate × population (estimate.ExpectedNew)
	// Strata sums each stratum (by name) over the queries.
	Strata []SampleStratumTotal `json:"strata"`
	// Config is the design drawn: the rates after scaling to the budget.
	Config estimate.SampleConfig `json:"config"`
}

// SampleStratumTotal is one stratum (by name) summed over a pool's
// queries.
type SampleStratumTotal struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
	Sampled    int    `json:"sampled"`
}

// checkSample fills the defaults of a sampled pool's spec and checks it;
// errors name the field (sample.strata[1].rate, sample.budget, …). The
// pool's depth becomes the deepest rank stratum's end.
func checkSample(spec Spec) (Spec, error) {
	if spec.Probes {
		return spec, apperr.Invalidf("probes", "logic probes do not apply to strategy sample (their documents would have no inclusion probability)")
	}
	var p SampleParams
	if spec.Sample != nil {
		p = *spec.Sample
		p.Strata = append([]estimate.RankStratum(nil), p.Strata...)
		if p.Corpus != nil {
			c := *p.Corpus
			c.Bounds = append([]int(nil), c.Bounds...)
			c.Rates = append([]float64(nil), c.Rates...)
			p.Corpus = &c
		}
	}
	if len(p.Strata) == 0 {
		p.Strata = estimate.DefaultConfig().Strata
	}
	next := 1
	for i, s := range p.Strata {
		f := fmt.Sprintf("sample.strata[%d]", i)
		if s.From != next {
			if i == 0 {
				return spec, apperr.Invalidf(f+".from", "must be 1: the rank strata start at rank 1")
			}
			return spec, apperr.Invalidf(f+".from", "must be %d: the rank strata are contiguous (the previous one ends at %d)", next, next-1)
		}
		if s.To < s.From || s.To > MaxDepth {
			return spec, apperr.Invalidf(f+".to", "must be between %d and %d", s.From, MaxDepth)
		}
		if !(s.Rate > 0 && s.Rate <= 1) {
			return spec, apperr.Invalidf(f+".rate", "must be in (0, 1]")
		}
		next = s.To + 1
	}
	if c := p.Corpus; c != nil {
		if len(c.Bounds) == 0 && !c.Rest {
			return spec, apperr.Invalidf("sample.corpus.bounds", "give at least one bound (or rest)")
		}
		if len(c.Rates) != len(c.Bounds) {
			return spec, apperr.Invalidf("sample.corpus.rates", "must have one rate per bound (%d bounds, %d rates)", len(c.Bounds), len(c.Rates))
		}
		prev := 0
		for i, b := range c.Bounds {
			if b <= prev || b > MaxCorpusBound {
				return spec, apperr.Invalidf(fmt.Sprintf("sample.corpus.bounds[%d]", i), "must be above %d and at most %d (ascending proxy ranks)", prev, MaxCorpusBound)
			}
			prev = b
		}
		for i, r := range c.Rates {
			if !(r > 0 && r <= 1) {
				return spec, apperr.Invalidf(fmt.Sprintf("sample.corpus.rates[%d]", i), "must be in (0, 1]")
			}
		}
		if c.Rest && !(c.RestRate > 0 && c.RestRate <= 1) {
			return spec, apperr.Invalidf("sample.corpus.rest_rate", "must be in (0, 1] with rest")
		}
		if !c.Rest && c.RestRate != 0 {
			return spec, apperr.Invalidf("sample.corpus.rest_rate", "applies only with rest")
		}
		if p.Proxy == "" {
			p.Proxy = ProxyBM25
		}
	}
	if p.Proxy != "" && p.Proxy != ProxyBM25 {
		return spec, apperr.Invalidf("sample.proxy", "must be %s", ProxyBM25)
	}
	if p.Corpus == nil && p.Proxy != "" {
		return spec, apperr.Invalidf("sample.proxy", "applies only with corpus strata")
	}
	if p.Budget < 0 || p.Budget > MaxSampleBudget {
		return spec, apperr.Invalidf("sample.budget", "must be between 0 (the rates as given) and %d", MaxSampleBudget)
	}
	if p.Seed == 0 {
		p.Seed = nameSeed(spec.Name)
	}
	if err := sampleConfig(p).Check(); err != nil {
		return spec, sampleInvalid(err)
	}
	spec.Sample = &p
	spec.Depth = p.Strata[len(p.Strata)-1].To
	return spec, nil
}

// sampleConfig is the estimate package's configuration of p.
func sampleConfig(p SampleParams) estimate.SampleConfig {
	return estimate.SampleConfig{Strata: p.Strata, Corpus: p.Corpus, Seed: p.Seed}
}

// sampleInvalid turns an error of estimate.SampleConfig.Check, an
// *estimate.FieldError naming the configuration's field (strata[1].rate),
// into an apperr.Invalid naming the spec's field (sample.strata[1].rate).
func sampleInvalid(err error) error {
	var fe *estimate.FieldError
	if errors.As(err, &fe) {
		return apperr.Invalidf("sample."+fe.Field, "%s", fe.Reason)
	}
	return apperr.Invalidf("sample", "%v", err)
}

// nameSeed is the seed of a pool whose spec gives none: a hash of its
// name (never 0).
func nameSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// SampleRNG is the random stream a sampled pool draws query qid's sample
// from (estimate.Draw): PCG seeded with the pool's seed and a hash of the
// query id, so each query's draw depends on neither the other queries nor
// their order, and a recorded design can be drawn again (pool simulate
// draws as a pool does).
func SampleRNG(seed uint64, qid string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(qid))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// SampleDesign is the configuration a sampled pool draws with (p checked
// by Check): p's strata, corpus strata and seed, the rates scaled to p's
// budget over inputs (every query's input) when it has one; a budget the
// rate-1 strata alone exceed is an apperr.Invalid naming sample.budget.
// Draw each query with estimate.Draw(input, cfg, SampleRNG(cfg.Seed, id)).
func SampleDesign(inputs []estimate.QueryInput, p SampleParams) (estimate.SampleConfig, error) {
	cfg := sampleConfig(p)
	if p.Budget <= 0 {
		return cfg, nil
	}
	scaled, err := estimate.ScaleToBudget(inputs, cfg, p.Budget)
	if err != nil {
		return cfg, apperr.Invalidf("sample.budget", "%v", err)
	}
	return scaled, nil
}

// sampleBuild draws a sampled pool (spec checked by Check) query by query:
// the chosen runs' rankings within the depth, the proxy ranking and the
// corpus when the design has corpus strata, and the documents judged
// before; with a budget the rates are scaled first. Nothing is saved.
func sampleBuild(ctx context.Context, st *store.Store, projectID int64, spec Spec, runs []Run, log *slog.Logger, built func(done, total int)) ([]queryPool, error) {
	p := *spec.Sample
	queries, err := retrieval.LoadQueries(ctx, st, projectID, spec.Split)
	if err != nil {
		return nil, err
	}
	judged, err := st.JudgedDocuments(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var (
		ix     *lexical.Index
		corpus []string
		depth  int // of the proxy ranking
	)
	if c := p.Corpus; c != nil {
		if ix, err = retrieval.LoadLexical(ctx, st, projectID, log); err != nil {
			return nil, err
		}
		if len(c.Bounds) > 0 {
			depth = c.Bounds[len(c.Bounds)-1]
		}
		if c.Rest {
			corpus = make([]string, ix.NumDocs())
			for d := range corpus {
				corpus[d] = ix.DocID(uint32(d))
			}
		}
	}
	inputs := make([]estimate.QueryInput, len(queries))
	lists := make([][][]string, len(queries))
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		lists[i] = topLists(q.ID, runs, spec.Depth)
		in := estimate.QueryInput{Query: q.ID, Lists: lists[i], Corpus: corpus, Judged: judged[q.RowID]}
		if ix != nil && depth > 0 {
			hits := ix.Search(ix.QueryVector(lexical.NewAnalyzer(), q.Text), depth)
			in.Proxy = make([]string, len(hits))
			for j, h := range hits {
				in.Proxy[j] = ix.DocID(h.Doc)
			}
		}
		inputs[i] = in
	}
	cfg, err := SampleDesign(inputs, p)
	if err != nil {
		return nil, err
	}
	pool := make([]queryPool, 0, len(queries))
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		built(i, len(queries))
		d := estimate.Draw(inputs[i], cfg, SampleRNG(cfg.Seed, q.ID))
		before := 0
		for _, u := range d.Units {
			if inputs[i].Judged[u.Doc] {
				before++
			}
		}
		pool = append(pool, queryPool{query: q, items: sampleItems(q.ID, d, runs, lists[i]), design: &d, judgedBefore: before})
	}
	built(len(queries), len(queries))
	if len(pool) > 0 {
		pool[0].drawn = &sampleDrawn{config: cfg, expected: estimate.ExpectedNew(inputs, cfg)}
	}
	return pool, nil
}

// sampleItems are the pool items of a query's design, in its units' order:
// each with its inclusion probability and stratum, and the runs' ranks of
// the document within the depth (lists: the runs' top depth, in run order).
func sampleItems(qid string, d estimate.QueryDesign, runs []Run, lists [][]string) []Item {
	rank := make([]map[string]int, len(lists))
	for i, l := range lists {
		rank[i] = make(map[string]int, len(l))
		for r, doc := range l {
			rank[i][doc] = r + 1
		}
	}
	items := make([]Item, len(d.Units))
	for j, u := range d.Units {
		it := Item{QueryID: qid, DocID: u.Doc, Priority: j, Sources: map[string]int{}, Origin: OriginSample, Inclusion: u.Pi, Stratum: u.Stratum}
		for i := range lists {
			if r, ok := rank[i][u.Doc]; ok {
				it.Sources[runs[i].Name] = r
			}
		}
		items[j] = it
	}
	return items
}

// JudgedBeforeStratum is the name estimate.Draw gives the certainty
// stratum of documents judged before the pool was drawn.
const JudgedBeforeStratum = "judged before"

// sampleDrawn is what drawing a sampled pool decided for all its queries.
type sampleDrawn struct {
	config   estimate.SampleConfig // after scaling to the budget
	expected float64               // new judgments expected (estimate.ExpectedNew)
}

// sampleReport sums a sampled pool's designs over its queries.
func sampleReport(pool []queryPool) *SampleReport {
	rep := &SampleReport{}
	at := map[string]int{}
	for _, qp := range pool {
		if qp.drawn != nil {
			rep.Config, rep.Expected = qp.drawn.config, qp.drawn.expected
		}
		d := qp.design
		if d == nil {
			continue
		}
		for _, s := range d.Strata {
			j, ok := at[s.Name]
			if !ok {
				j = len(rep.Strata)
				at[s.Name] = j
				rep.Strata = append(rep.Strata, SampleStratumTotal{Name: s.Name})
			}
			rep.Strata[j].Population += s.Population
			rep.Strata[j].Sampled += s.Sampled
		}
		rep.Units += len(d.Units)
		rep.JudgedBefore += qp.judgedBefore
	}
	rep.New = rep.Units - rep.JudgedBefore
	return rep
}
