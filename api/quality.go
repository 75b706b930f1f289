package api

import "boolpool/server/vocab"

// Quality control (issue 11): gold items and reliability-weighted
// consensus.
//
//	GET /api/projects/:project/quality   QualitySettings (researcher)
//	PUT /api/projects/:project/quality   QualitySettings → QualitySettings

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
	GoldRate        float64 `json:"gold_rate"`
	GoldMinAccuracy float64 `json:"gold_min_accuracy"`
	GoldMinJudged   int     `json:"gold_min_judged"`
	GoldPause       bool    `json:"gold_pause"`
	ConsensusMethod string  `json:"consensus_method"`
}

// Consensus methods of qrels exports (?consensus= and --consensus).
const (
	ConsensusMajority   = vocab.ConsensusMajority
	ConsensusDawidSkene = vocab.ConsensusDawidSkene
)

// QualityView is the dashboard's quality panel: the settings, how many
// annotators the gold check flags, and the Dawid–Skene run behind the
// per-annotator estimates (AnnotatorView.DS*).
type QualityView struct {
	Settings QualitySettings `json:"settings"`
	Flagged  int             `json:"flagged"`
	// DSItems are the items with votes the EM ran over; DSDisagree those
	// whose Dawid–Skene verdict differs from the majority's (adjudicated
	// items excluded: both follow the adjudication).
	DSItems      int      `json:"ds_items"`
	DSIterations int      `json:"ds_iterations"`
	DSConverged  bool     `json:"ds_converged"`
	DSPrior      *float64 `json:"ds_prior"` // estimated share of relevant items
	DSDisagree   int      `json:"ds_disagree"`
}
