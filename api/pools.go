package api

import (
	"encoding/json"

	"boolpool/server/vocab"
)

// Wire types of the pool builder and the query-expression editor:
//
//	GET  /api/projects/:project/runs           []RunSummary
//	POST /api/projects/:project/pools/preview  PoolSpec → PoolPreview (nothing saved)
//	POST /api/projects/:project/pools          PoolSpec → JobView (202): a pool job (JobKindPool) saves and
//	                                           publishes the pool; its result is a PoolPublished
//	GET  /api/projects/:project/queries        []QueryExpression
//	PUT  /api/queries/:id/expression           ExpressionRequest → QueryExpression
//	GET  /api/queries/:id/decompose            ExpressionSuggestion

// Pool strategies a researcher may publish.
const (
	StrategyDepth  = vocab.StrategyDepth
	StrategyMTF    = vocab.StrategyMTF
	StrategyBandit = vocab.StrategyBandit
	StrategyAtoms  = vocab.StrategyAtoms // live constraint pooling: constraint items in batches
)

// RunSummary is one stored run of a project.
type RunSummary struct {
	Name    string `json:"name"`
	Method  string `json:"method"`
	Queries int    `json:"queries"` // queries with at least one result
	Results int    `json:"results"`
}

// PoolSpec chooses a pool: runs, depth, strategy, logic probes, and (when
// publishing) the raters per item, which is a project setting.
type PoolSpec struct {
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

// PoolRunStats is one run's share of a pool.
type PoolRunStats struct {
	Run         string `json:"run"`
	Contributed int    `json:"contributed"` // pool entries the run found within the depth
	Unique      int    `json:"unique"`      // entries no other run nor probe found
}

// PoolComposition summarises a pool; Overlap[i][j] counts entries found by
// both Runs[i] and Runs[j] (the diagonal is Contributed).
type PoolComposition struct {
	Queries    int            `json:"queries"`
	Items      int            `json:"items"`
	ProbeItems int            `json:"probe_items"`
	ProbeOnly  int            `json:"probe_only_items"`
	Runs       []PoolRunStats `json:"runs"`
	Overlap    [][]int        `json:"overlap"`
	FromRuns   int            `json:"from_runs,omitempty"` // cal pools: items a chosen run has within the depth
	FromCAL    int            `json:"from_cal,omitempty"`  // cal pools: items active learning alone found
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

// PoolPublished is a saved and published pool.
type PoolPublished struct {
	PoolID        int64       `json:"pool_id"`
	ItemsCreated  int         `json:"items_created"` // relevance items; strategy atoms: the first batch's constraint items
	Gold          int         `json:"gold"`
	NoDocText     int         `json:"no_doc_text"` // entries skipped: document not stored
	RatersPerItem int         `json:"raters_per_item"`
	Preview       PoolPreview `json:"preview"`
}

// QueryExpression is a query with its atoms and Boolean expression.
type QueryExpression struct {
	ID         int64           `json:"id"`
	ExtID      string          `json:"ext_id"`
	Text       string          `json:"text"`
	Template   string          `json:"template"`
	Atoms      []string        `json:"atoms"`
	Expression string          `json:"expression"` // letter notation, e.g. "(A AND B) AND NOT C"; "" when unknown
	Tree       json.RawMessage `json:"tree,omitempty"`
	// Confidence is the decomposer's confidence (0–1) in the stored
	// expression when it is the decomposer's own reading of the text;
	// absent for corrected or imported expressions.
	Confidence *float64 `json:"confidence,omitempty"`
	// StaleFlags (only in the answer to a correction that changed the
	// logic, e.g. OR → AND) counts the query's judgments with constraint
	// labels: their contradiction flags were computed under the old
	// expression and are not recomputed.
	StaleFlags int `json:"stale_flags,omitempty"`
}

// ExpressionRequest corrects a query's decomposition: either Expression in
// letter notation with Atoms naming A, B, … in order (or in quoted-text
// notation, `"x" AND NOT "y"`, with Atoms empty), or Tree, the JSON form
// ({"op":"AND","args":[…]}, {"op":"ATOM","atom":0}) with Atoms.
type ExpressionRequest struct {
	Expression string          `json:"expression,omitempty"`
	Atoms      []string        `json:"atoms,omitempty"`
	Tree       json.RawMessage `json:"tree,omitempty"`
	// Force accepts atoms that renumber the constraints of a query that
	// already has judgments with attributions (refused with 409 without
	// it). The judgments keep their atom numbers; the old and new atom
	// lists and the mapping between them are recorded in the audit log.
	Force bool `json:"force,omitempty"`
}

// ExpressionSuggestion is the decomposer's reading of a query's text.
type ExpressionSuggestion struct {
	Template   string          `json:"template"`
	Atoms      []string        `json:"atoms"`
	Expression string          `json:"expression"`
	Tree       json.RawMessage `json:"tree"`
	Confidence float64         `json:"confidence"` // 0–1, the decomposer's certainty
	Source     string          `json:"source"`     // "model" (learned) or "rules"
}
