package api

// Wire types of sampled pools (strategy sample, issue 24): a stratified
// sample over the chosen runs' rankings (and optionally the whole corpus by
// a BM25 proxy ranking) whose items carry their inclusion probability.
// PoolSpec.Sample configures it; PoolPreview.Sample sums what was drawn.

// StrategySample is a stratified sample with inclusion probabilities.
const StrategySample = "sample"

// SampleSpec configures a sampled pool (server/pooling.SampleParams):
//
//	{"strata": [{"from": 1, "to": 10, "rate": 1}, {"from": 11, "to": 100, "rate": 0.2}],
//	 "corpus": {"bounds": [1000, 10000], "rates": [0.02, 0.005], "rest": true, "rest_rate": 0.001},
//	 "budget": 2000, "seed": 7, "proxy": "bm25"}
//
// Strata are ranges of a document's best rank over the runs, from rank 1
// and contiguous (none: the defaults 1-10 all, 11-100 at 0.2, 101-1000 at
// 0.05); Corpus, optional, stratifies the documents no rank stratum holds
// by their BM25 rank (ranks up to bounds[0] at rates[0], …, with rest every
// other document at rest_rate). Budget > 0 scales the rates below 1 so that
// about that many new judgments are asked for over all queries. Seed 0: one
// derived from the pool's name. Errors name the field, e.g.
// sample.strata[1].rate.
type SampleSpec struct {
	Strata []SampleStratum `json:"strata,omitempty"`
	Corpus *SampleCorpus   `json:"corpus,omitempty"`
	Budget int             `json:"budget,omitempty"`
	Seed   uint64          `json:"seed,omitempty"`
	Proxy  string          `json:"proxy,omitempty"` // "bm25" (the default with corpus strata)
}

// SampleStratum: documents of best rank From..To drawn at Rate in (0, 1].
type SampleStratum struct {
	From int     `json:"from"`
	To   int     `json:"to"`
	Rate float64 `json:"rate"`
}

// SampleCorpus: whole-corpus strata by proxy rank.
type SampleCorpus struct {
	Bounds   []int     `json:"bounds"`
	Rates    []float64 `json:"rates"`
	Rest     bool      `json:"rest,omitempty"`
	RestRate float64   `json:"rest_rate,omitempty"`
}

// SampleDrawn is what a sampled pool drew over all its queries.
type SampleDrawn struct {
	Units        int                `json:"units"`         // documents drawn, judged before included
	New          int                `json:"new"`           // of which not judged before: the judgments asked for
	JudgedBefore int                `json:"judged_before"` // the certainty stratum (π = 1; not published again)
	Expected     float64            `json:"expected"`      // new judgments expected by the design
	Strata       []SampleStratumSum `json:"strata"`
	// Drawn is the design drawn: the rates after scaling to the budget,
	// and the seed.
	Drawn SampleSpec `json:"drawn"`
}

// SampleStratumSum is one stratum (by name) over the pool's queries.
type SampleStratumSum struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
	Sampled    int    `json:"sampled"`
}
