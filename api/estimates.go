package api

// EstimateValue is an estimate with its standard error and 95 % interval.
type EstimateValue struct {
	Est float64 `json:"est"`
	SE  float64 `json:"se"`
	Lo  float64 `json:"lo"`
	Hi  float64 `json:"hi"`
}

// RunEstimate is one run's estimated means (measure → value).
type RunEstimate struct {
	Run   string                   `json:"run"`
	Means map[string]EstimateValue `json:"means"`
}

// PairTest says whether two runs differ on a measure after the Holm
// correction.
type PairTest struct {
	Measure     string  `json:"measure"`
	A           string  `json:"a"`
	B           string  `json:"b"`
	Diff        float64 `json:"diff"`
	P           float64 `json:"p"`
	PHolm       float64 `json:"p_holm"`
	Significant bool    `json:"significant"`
}

// EstimateReport is GET /api/projects/:project/estimates: the runs'
// measures estimated from a sampled pool (issue 24).
type EstimateReport struct {
	Pool           string        `json:"pool"`
	Strategy       string        `json:"strategy"`
	Estimated      bool          `json:"estimated"`
	Note           string        `json:"note,omitempty"`
	Measures       []string      `json:"measures"`
	Runs           []RunEstimate `json:"runs"`
	RelevantTotal  EstimateValue `json:"relevant_total"`
	JudgedRelevant int           `json:"judged_relevant"`
	JudgedRecall   EstimateValue `json:"judged_recall"`
	Pairs          []PairTest    `json:"pairs"`
}
