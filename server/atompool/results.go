package atompool

// The results of constraint pooling and the derived qrels. The HTTP edge
// turns them into the wire types of api (server/httpapi/convert_atompool.go).

// DerivedQuery is one query's derived qrels: documents whose label follows
// from the atoms' labels under the query's expression (Relevant,
// NonRelevant) or not yet (Unknown: an atom that matters is unjudged or
// unsure), beside its direct consensus labels.
type DerivedQuery struct {
	QueryExtID  string
	Text        string
	Expression  string
	Variant     bool
	Relevant    int
	NonRelevant int
	Unknown     int
	Direct      int // documents with a direct consensus label
	Conflicts   int // direct and derived disagree
}

// DerivedQrels is the answer of GET /api/projects/:project/derived.
type DerivedQrels struct {
	Atoms       int
	AtomLabels  int
	Constraint  ConstraintCounts
	Queries     []DerivedQuery
	Flags       []ConsistencyFlag
	Relevant    int
	NonRelevant int
	Unknown     int
}

// ConstraintPoolResult says what a ConstraintPoolRequest created.
type ConstraintPoolResult struct {
	Candidates int // pairs without an item or a label
	Created    int
	Gold       int
}

// ConstraintCounts counts a project's constraint items and judgments, with
// the raters' agreement on them.
type ConstraintCounts struct {
	Items     int
	Judged    int // items with a consensus label
	Judgments int
	// Agreement over items with two or more votes: Unanimous is the share
	// whose votes all agree; Kappa is Fleiss' κ (yes / no / unsure) over
	// the KappaItems items with the most common number of votes (nil when
	// undefined).
	MultiRated int
	Unanimous  float64
	Kappa      *float64
	KappaItems int
}

// ConsistencyFlag is a cross-query contradiction with its logical reason
// (atoms.Inconsistencies).
type ConsistencyFlag struct {
	Doc    string
	Query  string
	Other  string // the related query, for a cross-query flag
	Reason string
}

// ConstraintPoolRequest is the body of POST
// /api/projects/:project/constraints: create constraint items for up to
// Limit (atom, document) pairs chosen from the project's runs (Runs, top
// Depth of each) or, without runs, from its pooled relevance items; Gold
// marks that many of the pairs already labelled by an import as gold items
// (their imported label is the reference answer).
type ConstraintPoolRequest struct {
	Runs  []string
	Depth int
	Limit int
	Gold  int
}
