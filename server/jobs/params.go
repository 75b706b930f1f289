package jobs

// The parameters and results of the jobs, stored as JSON in the jobs table
// (jobs.params, jobs.result): their field names are the wire's (PoolRequest,
// PoolPublished, RetrieveParams, …), so a job queued by an older
// server still runs, and the HTTP edge converts between the two
// (server/httpapi/convert_jobs.go).

import (
	"boolpool/server/estimate"
	"boolpool/server/pooling"
)

// PoolRequest chooses a pool: runs, depth, strategy, logic probes, and (when
// publishing) the raters per item, which is a project setting.
type PoolRequest struct {
	Name          string   `json:"name"`
	Runs          []string `json:"runs"`
	Depth         int      `json:"depth"`
	Strategy      string   `json:"strategy"`
	Probes        bool     `json:"probes"`
	ProbeDepth    int      `json:"probe_depth,omitempty"`
	Split         string   `json:"split,omitempty"`
	JudgedK       []int    `json:"judged_k,omitempty"`
	RatersPerItem int      `json:"raters_per_item,omitempty"` // 0 = keep the project's
	// Strategy cal: the first batch per query, the stopping rule (knee,
	// paper-knee, none), the judgments per query at most, and how many of
	// the runs' fused top documents start the first batch (0 = defaults).
	CALBatch    int    `json:"cal_batch,omitempty"`
	CALStop     string `json:"cal_stop,omitempty"`
	CALMax      int    `json:"cal_max,omitempty"`
	CALSeedRuns int    `json:"cal_seed_runs,omitempty"`
	// Strategy atoms (live constraint pooling): constraint items per batch
	// and in all (0 = defaults, 50 and 100000).
	AtomsBatch int `json:"atoms_batch,omitempty"`
	AtomsMax   int `json:"atoms_max,omitempty"`
	// AtomsCandidates: "runs" (default: the runs' top depth) or "corpus"
	// (every document, ranked by an active learner per atom).
	AtomsCandidates string `json:"atoms_candidates,omitempty"`
	// Sample configures strategy sample (sample.go).
	Sample *SampleSpec `json:"sample,omitempty"`
}

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

// SampleStratum: documents of best rank From..To drawn at Rate in (0, 1];
// the design's own type, whose JSON is the same.
type SampleStratum = estimate.RankStratum

// SampleCorpus: whole-corpus strata by proxy rank.
type SampleCorpus struct {
	Bounds   []int     `json:"bounds"`
	Rates    []float64 `json:"rates"`
	Rest     bool      `json:"rest,omitempty"`
	RestRate float64   `json:"rest_rate,omitempty"`
}

// PoolPublished is a saved and published pool.
type PoolPublished struct {
	PoolID        int64       `json:"pool_id"`
	ItemsCreated  int         `json:"items_created"` // relevance items; strategy atoms: the first batch's constraint items
	Gold          int         `json:"gold"`
	NoDocText     int         `json:"no_doc_text"` // entries skipped: document not stored
	RatersPerItem int         `json:"raters_per_item"`
	Preview       PoolPreview `json:"preview"`
}

// PoolPreview is what a pool would contain. Items is the number of
// (query, document) entries, an upper bound on the relevance items that
// publishing creates (entries that already have an item are kept).
type PoolPreview struct {
	Name        string                     `json:"name"`
	Strategy    string                     `json:"strategy"`
	Depth       int                        `json:"depth"`
	Items       int                        `json:"items"`
	Composition PoolComposition            `json:"composition"`
	JudgedAtK   map[string]map[int]float64 `json:"judged_at_k"` // run → k → share of its top k in the pool
	// Sample sums a sampled pool's design (strategy sample).
	Sample *SampleDrawn `json:"sample,omitempty"`
}

// PoolComposition summarises a pool; Overlap[i][j] counts entries found by
// both Runs[i] and Runs[j] (the diagonal is Contributed). It is the
// pool builder's own type, whose JSON is the same.
type PoolComposition = pooling.Composition

// PoolRunStats is one run's share of a pool.
type PoolRunStats = pooling.RunStats

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

// RetrieveParams are the parameters of a retrieve job (as `boolpool
// retrieve`): Depth defaults to 1000, Name to the method with its
// non-default parameters, Encoder (dense methods) to minilm-static.
type RetrieveParams struct {
	Method  string            `json:"method"`
	Params  map[string]string `json:"params,omitempty"`
	Depth   int               `json:"depth,omitempty"`
	Split   string            `json:"split,omitempty"`
	Name    string            `json:"name,omitempty"`
	Encoder string            `json:"encoder,omitempty"`
}

// IndexParams are the parameters of an index job (as `boolpool
// index`): the lexical (BM25) index with k1 and b (0: the defaults), and,
// with Encoder, the HNSW index of that dense encoder's vectors.
type IndexParams struct {
	K1      float64 `json:"k1,omitempty"`
	B       float64 `json:"b,omitempty"`
	Encoder string  `json:"encoder,omitempty"`
}
