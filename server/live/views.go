package live

import "time"

// The dashboard's own types: the snapshot and its parts. The HTTP edge
// turns them into the wire types of api (server/httpapi/convert_live.go),
// for GET …/dashboard and each event of …/live.

// Snapshot is the dashboard state of a project (GET
// /api/projects/:project/dashboard, and each "snapshot" event of
// /api/projects/:project/live). Version grows by one per applied change.
type Snapshot struct {
	Project        string
	Version        uint64
	At             time.Time
	Consensus      ConsensusSummary
	Agreement      AgreementView
	Annotators     []AnnotatorView
	Leaderboard    []RunScores
	Templates      []Breakdown
	Operators      []Breakdown
	Progress       PoolProgress
	Contradictions ContradictionList
	Composition    CompositionView
	Bootstrap      BootstrapParameters
	Quality        QualityView
}

// Breakdown is the leaderboard over the queries with one label: a query
// template ("_ that are not _") or an operator of the query's expression
// (AND, OR, NOT; ATOM for single-constraint queries).
type Breakdown struct {
	Label   string
	Queries int
	Runs    []BreakdownRun
}

// RunScores is one row of the leaderboard.
type RunScores struct {
	Run     string
	Queries int
	Scores  []MetricScore
}

// QueryProgress is one query's judging progress.
type QueryProgress struct {
	QueryID   int64
	ExtID     string
	Text      string // GET …/progress/queries only`
	Items     int
	Judged    int
	Remaining int
}

// AnnotatorView is one rater's row of the annotator table.
type AnnotatorView struct {
	UserID     int64
	Username   string
	Items      int
	Kappa      *float64 // mean Cohen's κ with each other rater sharing items
	Agree      *float64 // exact agreement with the others' ratings
	GoldItems  int
	GoldExact  *float64
	GoldBinary *float64
	// GoldCorrect counts the gold items judged right after binarising;
	// Flagged is set when the project's gold check fails the annotator
	// (Paused when the project also pauses them).
	GoldCorrect int
	Flagged     bool
	Paused      bool
	// Dawid–Skene estimates over binary relevance (QualityView): the
	// expected share of the annotator's votes that are right, and the
	// sensitivity (relevant said relevant) and specificity.
	DSAccuracy    *float64
	DSSensitivity *float64
	DSSpecificity *float64
}

// RelevantFound is one consensus-relevant document and the runs that
// found it (GET /api/projects/:project/composition).
type RelevantFound struct {
	QueryExtID string
	DocExtID   string
	Relevance  int
	Runs       []string
}

// MetricScore is one measure of one run: the mean over Queries queries
// and its bootstrap interval.
type MetricScore struct {
	Measure string
	Mean    *float64
	Low     *float64
	High    *float64
	Queries int
}

// RunProgress counts the items a run contributed (pool sources, else its
// top 100) and how many are judged.
type RunProgress struct {
	Run       string
	Items     int
	Judged    int
	Remaining int
}

// RunComposition is one run's share of the relevant documents.
type RunComposition struct {
	Run      string
	Relevant int
	Unique   int
}

// PoolProgress counts judged and remaining items (an item is judged once
// it has raters_per_item current judgments, or an adjudication).
type PoolProgress struct {
	Items           int
	Judged          int
	Remaining       int
	QueriesTotal    int
	QueriesComplete int
	Queries         []QueryProgress // the incomplete ones, in import order (at most 200; all: GET …/progress/queries)
	Runs            []RunProgress
}

// ContradictionView is one contradicted item.
type ContradictionView struct {
	ItemID     int64
	QueryExtID string
	DocExtID   string
	Raters     []string
}

// ContradictionList lists items whose current judgments carry the
// constraint-contradiction flag (at most 200, newest item first).
type ContradictionList struct {
	Total int
	Items []ContradictionView
}

// CompositionView says which run found which relevant document: per run
// the consensus-relevant documents it found and those only it found, and
// the pairwise overlap of found relevant documents (Overlap[i][j], runs in
// Runs order).
type CompositionView struct {
	Runs    []RunComposition
	Overlap [][]int
	// PoolOverlap[i][j] counts the pooled items (judged or not) that runs
	// i and j both contributed; the diagonal is each run's contribution.
	PoolOverlap [][]int
}

// AgreementView holds the agreement coefficients over the current
// judgments (relevance 0–3).
type AgreementView struct {
	RatedItems     int      // items with >= 1 rating
	PairedItems    int      // items with >= 2 ratings
	FleissKappa    *float64 // over items with exactly raters_per_item ratings
	FleissItems    int
	AlphaNominal   *float64
	AlphaOrdinal   *float64
	GwetAC1        *float64
	MeanCohenKappa *float64
	Unanimous      *float64
	UnanimousItems int     // items the share is over
	Confusion      [][]int // pooled 4×4, rows and columns = labels 0–3
}

// ConsensusSummary counts consensus outcomes.
type ConsensusSummary struct {
	Items int // items with at least one current judgment or an adjudication
	// Unanimous counts items whose two or more votes all agree (binarised);
	// Single the items with one vote so far, which agree with nobody.
	Unanimous   int
	Single      int
	Majority    int
	Tie         int
	Adjudicated int
	Queue       int // awaiting adjudication
	Relevant    int
}

// BreakdownRun is one run's means over one label's queries.
type BreakdownRun struct {
	Run   string
	Means map[string]float64
}

// BootstrapParameters say how intervals were computed.
type BootstrapParameters struct {
	Method    string
	Resamples int
	Level     float64
}

// QualityView is the dashboard's quality panel: the settings, how many
// annotators the gold check flags, and the Dawid–Skene run behind the
// per-annotator estimates (AnnotatorView.DS*).
type QualityView struct {
	Settings QualitySettings
	Flagged  int
	// DSItems are the items with votes the EM ran over; DSDisagree those
	// whose Dawid–Skene verdict differs from the majority's (adjudicated
	// items excluded: both follow the adjudication).
	DSItems      int
	DSIterations int
	DSConverged  bool
	DSPrior      *float64 // estimated share of relevant items
	DSDisagree   int
}

// QualitySettings are a project's gold-item settings. GoldRate is the
// share of gold items in each rater's queue (and of the eligible items
// made gold when a pool is published). An annotator who has judged at
// least GoldMinJudged gold items and agrees with fewer than
// GoldMinAccuracy of them (binarised: relevant = 2 or 3) is flagged on
// the dashboard; with GoldPause they also get no new items.
// GoldMinAccuracy 0 turns the check off. ConsensusMethod (majority or
// dawid-skene) is the consensus of the project's exports when a download
// names none (?consensus=); "" in a PUT keeps it.
type QualitySettings struct {
	GoldRate        float64
	GoldMinAccuracy float64
	GoldMinJudged   int
	GoldPause       bool
	ConsensusMethod string
}
