package api

import "boolpool/server/vocab"

// KindConstraint is a constraint judgment (issue 13): does this document
// satisfy one atom of the project's queries? yes / no / unsure, with
// supporting (or counter-) sentences.
const KindConstraint = vocab.KindConstraint

// ConstraintView is what a constraint task asks about: one shared atom.
type ConstraintView struct {
	AtomID int64  `json:"atom_id"`
	Text   string `json:"text"`
}

// ConstraintAnswer is a constraint judgment: Satisfied is yes, no or
// unsure; Sentences are the sentence ids given as evidence (supporting a
// yes, counter-evidence for a no).
type ConstraintAnswer struct {
	Satisfied string `json:"satisfied"`
	Sentences []int  `json:"sentences"`
}

// ConstraintPoolRequest is the body of POST
// /api/projects/:project/constraints: create constraint items for up to
// Limit (atom, document) pairs chosen from the project's runs (Runs, top
// Depth of each) or, without runs, from its pooled relevance items; Gold
// marks that many of the pairs already labelled by an import as gold items
// (their imported label is the reference answer).
type ConstraintPoolRequest struct {
	Runs  []string `json:"runs,omitempty"`
	Depth int      `json:"depth,omitempty"`
	Limit int      `json:"limit,omitempty"`
	Gold  int      `json:"gold,omitempty"`
}

// ConstraintPoolResult says what a ConstraintPoolRequest created.
type ConstraintPoolResult struct {
	Candidates int `json:"candidates"` // pairs without an item or a label
	Created    int `json:"created"`
	Gold       int `json:"gold"`
}

// Qrels sources of a derived-qrels export or summary.
const (
	QrelsDirect  = vocab.QrelsDirect
	QrelsDerived = vocab.QrelsDerived
	QrelsBoth    = vocab.QrelsBoth
)

// DerivedQuery is one query's derived qrels: documents whose label follows
// from the atoms' labels under the query's expression (Relevant,
// NonRelevant) or not yet (Unknown: an atom that matters is unjudged or
// unsure), beside its direct consensus labels.
type DerivedQuery struct {
	QueryExtID  string `json:"query_ext_id"`
	Text        string `json:"text"`
	Expression  string `json:"expression"`
	Variant     bool   `json:"variant,omitempty"`
	Relevant    int    `json:"relevant"`
	NonRelevant int    `json:"non_relevant"`
	Unknown     int    `json:"unknown"`
	Direct      int    `json:"direct"`    // documents with a direct consensus label
	Conflicts   int    `json:"conflicts"` // direct and derived disagree
}

// ConsistencyFlag is a cross-query contradiction with its logical reason
// (atoms.Inconsistencies).
type ConsistencyFlag struct {
	Doc    string `json:"doc"`
	Query  string `json:"query"`
	Other  string `json:"other,omitempty"` // the related query, for a cross-query flag
	Reason string `json:"reason"`
}

// DerivedQrels is the answer of GET /api/projects/:project/derived.
type DerivedQrels struct {
	Atoms       int               `json:"atoms"`
	AtomLabels  int               `json:"atom_labels"`
	Constraint  ConstraintCounts  `json:"constraint"`
	Queries     []DerivedQuery    `json:"queries"`
	Flags       []ConsistencyFlag `json:"flags"`
	Relevant    int               `json:"relevant"`
	NonRelevant int               `json:"non_relevant"`
	Unknown     int               `json:"unknown"`
}

// ConstraintCounts counts a project's constraint items and judgments, with
// the raters' agreement on them.
type ConstraintCounts struct {
	Items     int `json:"items"`
	Judged    int `json:"judged"` // items with a consensus label
	Judgments int `json:"judgments"`
	// Agreement over items with two or more votes: Unanimous is the share
	// whose votes all agree; Kappa is Fleiss' κ (yes / no / unsure) over
	// the KappaItems items with the most common number of votes (nil when
	// undefined).
	MultiRated int      `json:"multi_rated"`
	Unanimous  float64  `json:"unanimous"`
	Kappa      *float64 `json:"kappa,omitempty"`
	KappaItems int      `json:"kappa_items"`
}

// QrelsLeaderboard is the leaderboard over a qrels mode (GET
// /api/projects/:project/leaderboard?qrels=direct|derived|both, issue 13):
// the runs' measures over the relevance items' consensus (direct), the
// labels derived from constraint judgments (derived), or direct labels and
// derived ones where no direct label exists (both).
type QrelsLeaderboard struct {
	Qrels       string              `json:"qrels"`
	Labels      int                 `json:"labels"`   // labelled (query, document) pairs scored
	Relevant    int                 `json:"relevant"` // of them relevant
	Leaderboard []RunScores         `json:"leaderboard"`
	Templates   []Breakdown         `json:"templates"`
	Operators   []Breakdown         `json:"operators"`
	Bootstrap   BootstrapParameters `json:"bootstrap"`
}
