package api

import "time"

// Wire types of the researcher and admin API: the adjudication queue, the
// live dashboard snapshot (also pushed as server-sent events) and export
// snapshots. Coefficients that are undefined (too few items, no variation)
// are null, never NaN.

// ConsensusView is the consensus of one relevance item.
type ConsensusView struct {
	Relevance         int    `json:"relevance"`
	Status            string `json:"status"` // unanimous | majority | tie | adjudicated
	Votes             int    `json:"votes"`
	RelevantVotes     int    `json:"relevant_votes"`
	Contradictions    int    `json:"contradictions"`
	NeedsAdjudication bool   `json:"needs_adjudication"`
}

// JudgmentView is one rater's current judgment, as the adjudicator sees it.
type JudgmentView struct {
	ID            int64         `json:"id"`
	RaterID       int64         `json:"rater_id"`
	Rater         string        `json:"rater"`
	Relevance     int           `json:"relevance"`
	Evidence      string        `json:"evidence"`
	Attributions  []Attribution `json:"attributions"`
	Contradiction bool          `json:"contradiction"`
	Comment       string        `json:"comment,omitempty"`
	TimeSpentMs   int           `json:"time_spent_ms"`
	Supersedes    *int64        `json:"supersedes,omitempty"`
	CreatedAt     time.Time     `json:"created_at"`
}

// AdjudicationView is a researcher's decision.
type AdjudicationView struct {
	ID          int64     `json:"id"`
	ItemID      int64     `json:"item_id"`
	Adjudicator string    `json:"adjudicator"`
	Relevance   int       `json:"relevance"`
	Note        string    `json:"note,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// AdjudicationItem is one entry of the queue: the query with its atoms and
// expression, the document's sentences, and every current judgment side by
// side.
type AdjudicationItem struct {
	ItemID        int64              `json:"item_id"`
	IsGold        bool               `json:"is_gold"`
	Query         QueryView          `json:"query"`
	QueryExtID    string             `json:"query_ext_id"`
	Document      *DocumentView      `json:"document,omitempty"`
	Consensus     ConsensusView      `json:"consensus"`
	Judgments     []JudgmentView     `json:"judgments"`
	Adjudications []AdjudicationView `json:"adjudications"`
}

// AdjudicationQueue is GET /api/projects/:project/adjudication.
type AdjudicationQueue struct {
	Total int                `json:"total"`
	Items []AdjudicationItem `json:"items"`
}

// AdjudicationRequest is the body of POST /api/items/:id/adjudication.
type AdjudicationRequest struct {
	Relevance *int   `json:"relevance"`
	Note      string `json:"note"`
}

// AdjudicationResult answers an AdjudicationRequest.
type AdjudicationResult struct {
	Adjudication AdjudicationView `json:"adjudication"`
	Consensus    ConsensusView    `json:"consensus"`
}

// LiveSnapshot is the dashboard state of a project (GET
// /api/projects/:project/dashboard, and each "snapshot" event of
// /api/projects/:project/live). Version grows by one per applied change.
type LiveSnapshot struct {
	Project        string              `json:"project"`
	Version        uint64              `json:"version"`
	At             time.Time           `json:"at"`
	Consensus      ConsensusSummary    `json:"consensus"`
	Agreement      AgreementView       `json:"agreement"`
	Annotators     []AnnotatorView     `json:"annotators"`
	Leaderboard    []RunScores         `json:"leaderboard"`
	Templates      []Breakdown         `json:"templates"`
	Operators      []Breakdown         `json:"operators"`
	Progress       PoolProgress        `json:"progress"`
	Contradictions ContradictionList   `json:"contradictions"`
	Composition    CompositionView     `json:"composition"`
	Bootstrap      BootstrapParameters `json:"bootstrap"`
	Quality        QualityView         `json:"quality"`
}

// ConsensusSummary counts consensus outcomes.
type ConsensusSummary struct {
	Items int `json:"items"` // items with at least one current judgment or an adjudication
	// Unanimous counts items whose two or more votes all agree (binarised);
	// Single the items with one vote so far, which agree with nobody.
	Unanimous   int `json:"unanimous"`
	Single      int `json:"single"`
	Majority    int `json:"majority"`
	Tie         int `json:"tie"`
	Adjudicated int `json:"adjudicated"`
	Queue       int `json:"queue"` // awaiting adjudication
	Relevant    int `json:"relevant"`
}

// AgreementView holds the agreement coefficients over the current
// judgments (relevance 0–3).
type AgreementView struct {
	RatedItems     int      `json:"rated_items"`  // items with >= 1 rating
	PairedItems    int      `json:"paired_items"` // items with >= 2 ratings
	FleissKappa    *float64 `json:"fleiss_kappa"` // over items with exactly raters_per_item ratings
	FleissItems    int      `json:"fleiss_items"`
	AlphaNominal   *float64 `json:"krippendorff_alpha_nominal"`
	AlphaOrdinal   *float64 `json:"krippendorff_alpha_ordinal"`
	GwetAC1        *float64 `json:"gwet_ac1"`
	MeanCohenKappa *float64 `json:"mean_cohen_kappa"`
	Unanimous      *float64 `json:"unanimous_binarised"`
	UnanimousItems int      `json:"unanimous_items"` // items the share is over
	Confusion      [][]int  `json:"confusion"`       // pooled 4×4, rows and columns = labels 0–3
}

// AnnotatorView is one rater's row of the annotator table.
type AnnotatorView struct {
	UserID     int64    `json:"user_id"`
	Username   string   `json:"username"`
	Items      int      `json:"items"`
	Kappa      *float64 `json:"kappa"` // mean Cohen's κ with each other rater sharing items
	Agree      *float64 `json:"agree"` // exact agreement with the others' ratings
	GoldItems  int      `json:"gold_items"`
	GoldExact  *float64 `json:"gold_exact"`
	GoldBinary *float64 `json:"gold_binary"`
	// GoldCorrect counts the gold items judged right after binarising;
	// Flagged is set when the project's gold check fails the annotator
	// (Paused when the project also pauses them).
	GoldCorrect int  `json:"gold_correct"`
	Flagged     bool `json:"flagged"`
	Paused      bool `json:"paused"`
	// Dawid–Skene estimates over binary relevance (QualityView): the
	// expected share of the annotator's votes that are right, and the
	// sensitivity (relevant said relevant) and specificity.
	DSAccuracy    *float64 `json:"ds_accuracy"`
	DSSensitivity *float64 `json:"ds_sensitivity"`
	DSSpecificity *float64 `json:"ds_specificity"`
}

// MetricScore is one measure of one run: the mean over Queries queries
// and its bootstrap interval.
type MetricScore struct {
	Measure string   `json:"measure"`
	Mean    *float64 `json:"mean"`
	Low     *float64 `json:"low"`
	High    *float64 `json:"high"`
	Queries int      `json:"queries"`
}

// RunScores is one row of the leaderboard.
type RunScores struct {
	Run     string        `json:"run"`
	Queries int           `json:"queries"`
	Scores  []MetricScore `json:"scores"`
}

// Breakdown is the leaderboard over the queries with one label: a query
// template ("_ that are not _") or an operator of the query's expression
// (AND, OR, NOT; ATOM for single-constraint queries).
type Breakdown struct {
	Label   string         `json:"label"`
	Queries int            `json:"queries"`
	Runs    []BreakdownRun `json:"runs"`
}

// BreakdownRun is one run's means over one label's queries.
type BreakdownRun struct {
	Run   string             `json:"run"`
	Means map[string]float64 `json:"means"`
}

// BootstrapParameters say how intervals were computed.
type BootstrapParameters struct {
	Method    string  `json:"method"`
	Resamples int     `json:"resamples"`
	Level     float64 `json:"level"`
}

// PoolProgress counts judged and remaining items (an item is judged once
// it has raters_per_item current judgments, or an adjudication).
type PoolProgress struct {
	Items           int             `json:"items"`
	Judged          int             `json:"judged"`
	Remaining       int             `json:"remaining"`
	QueriesTotal    int             `json:"queries_total"`
	QueriesComplete int             `json:"queries_complete"`
	Queries         []QueryProgress `json:"queries"` // the incomplete ones, in import order (at most 200; all: GET …/progress/queries)
	Runs            []RunProgress   `json:"runs"`
}

// QueryProgress is one query's judging progress.
type QueryProgress struct {
	QueryID   int64  `json:"query_id"`
	ExtID     string `json:"ext_id"`
	Text      string `json:"text,omitempty"` // GET …/progress/queries only`
	Items     int    `json:"items"`
	Judged    int    `json:"judged"`
	Remaining int    `json:"remaining"`
}

// RunProgress counts the items a run contributed (pool sources, else its
// top 100) and how many are judged.
type RunProgress struct {
	Run       string `json:"run"`
	Items     int    `json:"items"`
	Judged    int    `json:"judged"`
	Remaining int    `json:"remaining"`
}

// ContradictionList lists items whose current judgments carry the
// constraint-contradiction flag (at most 200, newest item first).
type ContradictionList struct {
	Total int                 `json:"total"`
	Items []ContradictionView `json:"items"`
}

// ContradictionView is one contradicted item.
type ContradictionView struct {
	ItemID     int64    `json:"item_id"`
	QueryExtID string   `json:"query_ext_id"`
	DocExtID   string   `json:"doc_ext_id"`
	Raters     []string `json:"raters"`
}

// CompositionView says which run found which relevant document: per run
// the consensus-relevant documents it found and those only it found, and
// the pairwise overlap of found relevant documents (Overlap[i][j], runs in
// Runs order).
type CompositionView struct {
	Runs    []RunComposition `json:"runs"`
	Overlap [][]int          `json:"overlap"`
	// PoolOverlap[i][j] counts the pooled items (judged or not) that runs
	// i and j both contributed; the diagonal is each run's contribution.
	PoolOverlap [][]int `json:"pool_overlap"`
}

// RunComposition is one run's share of the relevant documents.
type RunComposition struct {
	Run      string `json:"run"`
	Relevant int    `json:"relevant"`
	Unique   int    `json:"unique"`
}

// RelevantFound is one consensus-relevant document and the runs that
// found it (GET /api/projects/:project/composition).
type RelevantFound struct {
	QueryExtID string   `json:"query_ext_id"`
	DocExtID   string   `json:"doc_ext_id"`
	Relevance  int      `json:"relevance"`
	Runs       []string `json:"runs"`
}

// ExportSnapshot is a recorded export: cite its ID to name an exact
// version of the judged data.
type ExportSnapshot struct {
	ID        string         `json:"id"`
	Format    string         `json:"format"`
	Counts    map[string]any `json:"counts"`
	CreatedBy string         `json:"created_by,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	// Failed marks an export that failed (no file; Counts empty) and
	// Error is its reason.
	Failed bool   `json:"failed,omitempty"`
	Error  string `json:"error,omitempty"`
}
