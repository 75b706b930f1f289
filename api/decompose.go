package api

// Wire types of "decompose all" on the query-expression editor:
//
//	POST /api/projects/:project/decompose  DecomposeAllRequest → DecomposeSummary

// DecomposeAllRequest asks the server to store the decomposer's
// expression for a project's queries.
type DecomposeAllRequest struct {
	OnlyMissing bool   `json:"only_missing"` // leave queries with an expression alone
	Split       string `json:"split,omitempty"`
	DryRun      bool   `json:"dry_run,omitempty"`
}

// DecomposeTemplateCount is how many queries got one template ("" = none).
type DecomposeTemplateCount struct {
	Template string `json:"template"`
	Queries  int    `json:"queries"`
}

// DecomposeFailure is a query the decomposer gave no usable expression.
type DecomposeFailure struct {
	ExtID  string `json:"ext_id"`
	Text   string `json:"text"`
	Reason string `json:"reason"`
}

// DecomposeSummary says what "decompose all" stored.
type DecomposeSummary struct {
	Queries int  `json:"queries"`
	Stored  int  `json:"stored"`
	Skipped int  `json:"skipped"`
	DryRun  bool `json:"dry_run"`
	// LowConfidence of the stored expressions had a decomposer confidence
	// below ConfidenceThreshold.
	LowConfidence       int                      `json:"low_confidence"`
	ConfidenceThreshold float64                  `json:"confidence_threshold"`
	ByTemplate          []DecomposeTemplateCount `json:"by_template"`
	Failed              []DecomposeFailure       `json:"failed"`
}
