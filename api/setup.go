package api

import (
	"encoding/json"
	"time"

	"boolpool/server/vocab"
)

// Wire types of the researchers' project setup page and the admins'
// account editing:
//
//	GET   /api/projects                   []ProjectView (researchers: their projects; admins: all)
//	POST  /api/projects                   NewProjectRequest → ProjectView (201; the creator becomes a member)
//	GET   /api/setup/options              SetupOptions
//	POST  /api/projects/:project/imports  multipart/form-data: format, run_name (trec-run), one or
//	                                      more "files" → ImportResult; a bad line is a 400 naming
//	                                      file:line and field, and nothing of that file is kept
//	GET   /api/projects/:project/jobs     []JobView, newest first (?limit=50, at most 10000)
//	POST  /api/projects/:project/jobs     JobRequest → JobView (202, queued)
//	GET   /api/jobs/:id                   JobView
//	POST  /api/jobs/:id/cancel            JobView
//	PATCH /api/admin/users/:id            UserUpdateRequest → UserView

// Job kinds.
const (
	JobKindRetrieve = vocab.JobKindRetrieve
	JobKindEncode   = vocab.JobKindEncode
	JobKindIndex    = vocab.JobKindIndex
	JobKindPool     = vocab.JobKindPool // params: PoolSpec (with a name); result: PoolPublished
)

// Job states (the jobs table's state column; the server's job runner
// writes them, the setup page shows them).
const (
	JobQueued      = vocab.JobQueued
	JobRunning     = vocab.JobRunning
	JobDone        = vocab.JobDone
	JobFailed      = vocab.JobFailed
	JobInterrupted = vocab.JobInterrupted
	JobCancelled   = vocab.JobCancelled
)

// ProjectCounts summarises a project's contents.
type ProjectCounts struct {
	Documents int64 `json:"documents"`
	Queries   int64 `json:"queries"`
	Qrels     int64 `json:"qrels"`
	Runs      int64 `json:"runs"`
	Judgments int64 `json:"judgments"`
}

// ProjectView is one project on the setup page.
type ProjectView struct {
	Name   string        `json:"name"`
	Title  string        `json:"title"`
	Counts ProjectCounts `json:"counts"`
}

// NewProjectRequest creates a project. Name: lowercase letters, digits,
// '-' and '_', starting with a letter or digit (it appears in URLs).
type NewProjectRequest struct {
	Name  string `json:"name"`
	Title string `json:"title"`
}

// ImportedFile is one imported file.
type ImportedFile struct {
	File       string   `json:"file"`
	Kind       string   `json:"kind"` // documents, queries, qrels, run, pairs …
	Documents  int      `json:"documents"`
	Queries    int      `json:"queries"`
	Qrels      int      `json:"qrels"`
	RunResults int      `json:"run_results"`
	Notes      []string `json:"notes"`
	// Ignored counts, per field present in the file and not imported,
	// the records that had it (omitted when nothing was ignored).
	Ignored map[string]int `json:"ignored,omitempty"`
	// Duplicates counts the records that repeated a document, query or
	// qrel given earlier in the file (each row is written once, the last
	// record wins); DuplicateLines are the first of their lines.
	Duplicates     int   `json:"duplicates,omitempty"`
	DuplicateLines []int `json:"duplicate_lines,omitempty"`
}

// ImportResult reports an upload.
type ImportResult struct {
	Format string         `json:"format"`
	Files  []ImportedFile `json:"files"`
}

// MethodParam is one parameter of a retrieval method.
type MethodParam struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Doc     string `json:"doc"`
}

// MethodOption is a retrieval method a job can run.
type MethodOption struct {
	Name    string        `json:"name"`
	Summary string        `json:"summary"`
	Needs   string        `json:"needs"` // lexical, dense or runs
	Params  []MethodParam `json:"params"`
}

// SetupOptions lists what the setup page can choose from.
type SetupOptions struct {
	Formats  []string       `json:"formats"`
	Methods  []MethodOption `json:"methods"`
	Encoders []string       `json:"encoders"`  // accepted by encode jobs (empty: none)
	JobKinds []string       `json:"job_kinds"` // kinds this server runs
}

// RetrieveJobParams are the parameters of a retrieve job (as `boolpool
// retrieve`): Depth defaults to 1000, Name to the method with its
// non-default parameters, Encoder (dense methods) to minilm-static.
type RetrieveJobParams struct {
	Method  string            `json:"method"`
	Params  map[string]string `json:"params,omitempty"`
	Depth   int               `json:"depth,omitempty"`
	Split   string            `json:"split,omitempty"`
	Name    string            `json:"name,omitempty"`
	Encoder string            `json:"encoder,omitempty"`
}

// IndexJobParams are the parameters of an index job (as `boolpool
// index`): the lexical (BM25) index with k1 and b (0: the defaults), and,
// with Encoder, the HNSW index of that dense encoder's vectors.
type IndexJobParams struct {
	K1      float64 `json:"k1,omitempty"`
	B       float64 `json:"b,omitempty"`
	Encoder string  `json:"encoder,omitempty"`
}

// EncodeJobParams are the parameters of an encode job (as `boolpool
// encode`): SkipQueries leaves query texts out, Reset embeds everything
// again, Batch defaults to 64.
type EncodeJobParams struct {
	Encoder     string `json:"encoder"`
	SkipQueries bool   `json:"skip_queries,omitempty"`
	Reset       bool   `json:"reset,omitempty"`
	Batch       int    `json:"batch,omitempty"`
}

// JobRequest starts a job; Params are RetrieveJobParams or EncodeJobParams.
type JobRequest struct {
	Kind   string          `json:"kind"`
	Params json.RawMessage `json:"params"`
}

// JobView is a job and its progress. Rate is units (queries, documents)
// per second in the current phase.
type JobView struct {
	ID         int64           `json:"id"`
	Project    string          `json:"project"`
	Kind       string          `json:"kind"`
	Params     json.RawMessage `json:"params"`
	State      string          `json:"state"`
	Phase      string          `json:"phase"`
	Done       int64           `json:"done"`
	Total      int64           `json:"total"`
	Rate       float64         `json:"rate"`
	Error      string          `json:"error,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	CreatedAt  time.Time       `json:"created_at"`
	StartedAt  *time.Time      `json:"started_at,omitempty"`
	FinishedAt *time.Time      `json:"finished_at,omitempty"`
}

// Finished reports whether the job reached a final state.
func (j JobView) Finished() bool { return JobFinished(j.State) }

// JobFinished reports whether a job state is final (neither queued nor
// running).
func JobFinished(state string) bool { return vocab.JobFinished(state) }

// UserUpdateRequest changes an account; absent fields stay. Projects, when
// present, becomes the user's exact set of project memberships.
type UserUpdateRequest struct {
	Role     *string   `json:"role,omitempty"`
	Disabled *bool     `json:"disabled,omitempty"`
	Projects *[]string `json:"projects,omitempty"`
	// CrowdRebind (true) forgets the browser bound to a crowd participant
	// account: the next entry with its participant id binds its own
	// (docs/crowd.md).
	CrowdRebind *bool `json:"crowd_rebind,omitempty"`
}
