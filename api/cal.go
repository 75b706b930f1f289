package api

import "boolpool/server/vocab"

// Wire types of live continuous active learning (pools with strategy cal):
//
//	GET  /api/projects/:project/cal                              []CALPool (every cal pool of the project)
//	POST /api/projects/:project/pools/:pool/cal/:query/stop      → CALQueryStatus (the review of that query ends)
//	POST /api/projects/:project/pools/:pool/cal/:query/extend    CALExtendRequest → CALQueryStatus

// StrategyCAL is continuous active learning: a pool that grows as
// judgments arrive.
const StrategyCAL = vocab.StrategyCAL

// CALQueryStatus is one query of a cal pool.
type CALQueryStatus struct {
	PoolID    int64  `json:"pool_id"`
	QueryID   int64  `json:"query_id"`
	Query     string `json:"query"` // external id
	Text      string `json:"text"`
	Round     int    `json:"round"`      // the last batch served (0: the first)
	BatchSize int    `json:"batch_size"` // its size
	State     string `json:"state"`      // active | stopped
	Reason    string `json:"reason,omitempty"`
	Pending   int    `json:"pending"` // items of the last batch not fully judged
	Judged    int    `json:"judged"`  // judged items of the pool
	Found     int    `json:"found"`   // relevant documents known for the query
	// The stopping rule: whether it fired, the estimated recall and how it
	// was obtained.
	Fired    bool    `json:"fired"`
	Recall   float64 `json:"recall"`
	Basis    string  `json:"basis"`
	ExtendTo int     `json:"extend_to,omitempty"` // the rule waits for this many judgments
	Items    int     `json:"items"`               // pool items
	FromRuns int     `json:"from_runs"`           // of which a chosen run has within the depth
	FromCAL  int     `json:"from_cal"`            // of which active learning alone found
}

// CALPool is a cal pool with its queries.
type CALPool struct {
	PoolID  int64            `json:"pool_id"`
	Name    string           `json:"name"`
	Status  string           `json:"status"` // draft | published
	Stop    string           `json:"stop"`   // the stopping rule
	Queries []CALQueryStatus `json:"queries"`
}

// CALExtendRequest lets a query's review go on for Judgments more
// judgments whatever the stopping rule says (a stopped query resumes).
type CALExtendRequest struct {
	Judgments int `json:"judgments"`
}
