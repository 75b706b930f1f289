package reuse

// The reports of the reusability and stability analyses. The HTTP edge
// turns them into the wire types of api (server/httpapi/convert_reuse.go);
// their JSON names are those of boolpool eval reusability|stability --json.

// ReusabilityReport is the leave-out report of one pool (Zobel 1998): for each
// run that contributed to the pool, and for each method family, the qrels
// without the documents only it contributed, and what that does to its
// scores and to the ranking of every run.
type ReusabilityReport struct {
	Pool     string   `json:"pool"`
	Queries  int      `json:"queries"`
	Measures []string `json:"measures"`
	// Runs are every stored run scored, in name order, with their means
	// under the full qrels.
	Runs []ReuseRun `json:"runs"`
	// LeaveOneRun has one entry per contributing run; LeaveOneFamily one
	// per method family with a contributing run.
	LeaveOneRun    []LeaveOut `json:"leave_one_run_out"`
	LeaveOneFamily []LeaveOut `json:"leave_one_family_out"`
	// MaxAbsChange is, per measure, the largest |without − with| of a
	// left-out run over LeaveOneRun; MaxAbsChangeFamily the same over the
	// runs of LeaveOneFamily.
	MaxAbsChange       map[string]float64 `json:"max_abs_change"`
	MaxAbsChangeFamily map[string]float64 `json:"max_abs_change_family"`
}

// StabilityReport is how much the ranking of the runs depends on who judged and
// on which queries: per measure, τ and τ_AP between rankings under the
// majority and the Dawid–Skene consensus, under each annotator's own
// labels and the consensus (Voorhees 2000), and over query bootstrap
// resamples.
type StabilityReport struct {
	Pool     string   `json:"pool,omitempty"`
	Queries  int      `json:"queries"`
	Measures []string `json:"measures"`
	Runs     []string `json:"runs"`
	// Consensus compares the majority (the stored consensus, the truth of
	// τ_AP) with Dawid–Skene; Differ counts the items whose relevance
	// (grade >= 2) the two disagree on.
	Consensus  ConsensusStability   `json:"majority_vs_dawid_skene"`
	Annotators []AnnotatorStability `json:"annotators"`
	Bootstrap  BootstrapStability   `json:"bootstrap"`
}

// RankCorr is Kendall's τ (tau-b) and τ_AP of two rankings of the runs.
type RankCorr struct {
	KendallTau *float64 `json:"kendall_tau"`
	TauAP      *float64 `json:"tau_ap"`
}

// LeaveOut is one left-out run or family: the judged documents taken out
// of the qrels (those only its runs contributed to their query's pool),
// the Judged@10 of each of its runs under the reduced qrels, and per
// measure the change of its runs and of the whole ranking.
type LeaveOut struct {
	LeftOut         string                     `json:"left_out"`
	Runs            []string                   `json:"runs"`
	Removed         int                        `json:"removed"`
	RemovedRelevant int                        `json:"removed_relevant"`
	JudgedAt10      map[string]float64         `json:"judged_at_10"`
	Measures        map[string]LeaveOutMeasure `json:"measures"`
}

// RunChange is a left-out run's mean and rank with the full qrels (With)
// and the reduced ones (Without); Change = Without − With.
type RunChange struct {
	Run         string  `json:"run"`
	With        float64 `json:"with"`
	Without     float64 `json:"without"`
	Change      float64 `json:"change"`
	RankWith    int     `json:"rank_with"`
	RankWithout int     `json:"rank_without"`
}

// LeaveOutMeasure is one measure under a leave-out: Kendall's τ (tau-b)
// and τ_AP (Yilmaz, Aslam & Robertson 2008; the full-qrels ranking as the
// truth) between the ranking of all runs with and without the left-out
// documents, and each left-out run's change.
type LeaveOutMeasure struct {
	KendallTau *float64    `json:"kendall_tau"`
	TauAP      *float64    `json:"tau_ap"`
	Runs       []RunChange `json:"runs"`
}

// ReuseRun is one run: its method family, the pool items it contributed
// (Contributed) and those no other run contributed (Unique), and its means
// under the full qrels.
type ReuseRun struct {
	Name        string             `json:"name"`
	Family      string             `json:"family"`
	Contributed int                `json:"contributed"`
	Unique      int                `json:"unique"`
	Mean        map[string]float64 `json:"mean"`
}

// BootstrapTau summarises one measure's bootstrap τ values.
type BootstrapTau struct {
	MeanTau   *float64 `json:"mean_tau"`
	P5Tau     *float64 `json:"p5_tau"`
	MeanTauAP *float64 `json:"mean_tau_ap"`
}

// AnnotatorStability is one annotator: the ranking under their own labels
// alone vs the consensus ranking, both over the queries they judged.
type AnnotatorStability struct {
	Annotator string              `json:"annotator"`
	Judgments int                 `json:"judgments"`
	Queries   int                 `json:"queries"`
	Measures  map[string]RankCorr `json:"measures"`
}

// ConsensusStability is majority vs Dawid–Skene.
type ConsensusStability struct {
	Items    int                 `json:"items"`
	Differ   int                 `json:"differ"`
	Measures map[string]RankCorr `json:"measures"`
}

// BootstrapStability is the query bootstrap: Resamples resamples of the
// queries with replacement (seeded), each ranking compared with the full
// ranking: the mean τ, its 5th percentile and the mean τ_AP.
type BootstrapStability struct {
	Resamples int                     `json:"resamples"`
	Seed      uint64                  `json:"seed"`
	Measures  map[string]BootstrapTau `json:"measures"`
}
