package judging

import (
	"boolpool/server/boolexpr"
	"time"
)

// The judging service's own types: what a rater leases, submits and is
// told. The HTTP edge turns them into the wire types of api and back
// (server/httpapi/convert_judging.go). Those stored as JSON (attributions,
// answers, instructions) keep their field names.

// Instructions are a project's instructions per task kind.
type Instructions struct {
	Text     string    `json:"text"`
	Examples []Example `json:"examples"`
}

// Example is one good or bad example in the instructions.
type Example struct {
	Query       string `json:"query"`
	Document    string `json:"document"`
	Label       string `json:"label"`
	Explanation string `json:"explanation"`
	Good        bool   `json:"good"`
}

// Queue is the answer to a QueueRequest. An empty Tasks means nothing is
// left; CompletionCode is then the project's crowd-platform completion code
// (set only once the rater has done some work).
//
// Paused is set when the project's gold accuracy check holds the rater
// back (their accuracy on gold items is below the researcher's threshold
// and the project pauses such raters): Tasks then holds only the items
// already leased to them, no new ones, and PauseReason says why.
// Judgments of items already assigned are still accepted.
//
// Completed is set for a crowd participant who reached the project's quota
// (items judged or active minutes): Tasks is empty and stays so, and the
// page shows CompletionCode and sends them back to CompletionURL (the crowd
// platform's, when the researcher set one).
type Queue struct {
	Tasks          []Task
	Progress       Progress
	Completed      bool
	CompletionCode string
	CompletionURL  string
	Paused         bool
	PauseReason    string
}

// Task is one leased item for the signed-in rater.
type Task struct {
	AssignmentID   int64
	ItemID         int64
	Kind           string
	Project        string
	Query          QueryView
	Document       *DocumentView
	Paraphrase     string          // validation: the text to validate
	Constraint     *ConstraintView // constraint: the atom asked about
	LeaseExpiresAt time.Time
}

// ProjectStats is a researcher's overview of a project's judging.
type ProjectStats struct {
	Project        string
	Items          int
	Judgments      int
	Contradictions int
	Annotators     int
}

// Progress counts a rater's work in one project and task kind.
type Progress struct {
	Done      int
	Skipped   int
	Leased    int
	Available int   // items the rater could still get
	ActiveMs  int64 // logged active time today
}

// QueryView is a query prepared for judging.
type QueryView struct {
	ID         int64
	Text       string
	Template   string
	Atoms      []AtomView
	Expression *boolexpr.Expr
}

// DocumentView is a document split into sentences.
type DocumentView struct {
	ID        int64
	ExtID     string
	Title     string
	Sentences []string
}

// AtomView is one atom of a query as the judging view shows it.
type AtomView struct {
	Index   int
	Text    string
	Start   int // byte span in QueryView.Text
	End     int
	Negated bool
}

// ConstraintView is what a constraint task asks about: one shared atom.
type ConstraintView struct {
	AtomID int64
	Text   string
}

// MyProjects is the answer of GET /api/me/projects: the signed-in user's
// own projects (their memberships), by name.
type MyProjects struct {
	Projects []MyProject
}

// MyProject is one of the signed-in user's projects with their progress in
// each task kind the project has items of.
type MyProject struct {
	Name  string
	Title string
	Kinds []KindProgress
}

// KindProgress is the signed-in rater's work of one task kind in a project
// (as the judging page's progress bar counts it).
type KindProgress struct {
	Kind     string
	Progress Progress
}

// JudgmentResponse acknowledges a stored judgment. Duplicate is true when
// the client id had been stored before (a retry).
type JudgmentResponse struct {
	ID            int64
	ClientID      string
	ItemID        int64
	Contradiction bool
	Supersedes    *int64
	Duplicate     bool
	CreatedAt     time.Time
}

// QueueRequest is the body of POST /api/projects/:project/queue: lease up to
// N tasks of Kind (current leases first).
type QueueRequest struct {
	Kind string
	N    int
}

// JudgmentRequest is the body of POST /api/judgments. ClientID (a UUID made
// by the client) makes the write idempotent: an identical resend is
// acknowledged again, a different body under a stored client id is a 409.
// AuthorID is the user id of whoever made the judgment in the browser; it is
// required and must be the session's user (403 otherwise), so a judgment
// queued under one sign-in is never stored as another user's.
type JudgmentRequest struct {
	ClientID     string
	AuthorID     int64
	ItemID       int64
	Kind         string
	Relevance    *int
	Evidence     string
	Attributions []Attribution
	Paraphrase   *ParaphraseAnswer
	Validation   *ValidationAnswer
	Constraint   *ConstraintAnswer
	Comment      string
	SkipReason   string
	TimeSpentMs  int64
}

// ValidationAnswer is a stage-2 validation of a paraphrase.
type ValidationAnswer struct {
	Fluent      string `json:"fluent"`      // yes | no
	Meaning     string `json:"meaning"`     // same | different | ambiguous
	Naturalness string `json:"naturalness"` // yes | maybe | no
}

// Attribution is one atom's part of a relevance judgment.
type Attribution struct {
	Atom      int    `json:"atom"`
	Sentences []int  `json:"sentences"`
	Counter   bool   `json:"counter"` // sentences are counter-evidence (negated atom); set by the server
	Satisfied string `json:"satisfied"`
}

// ConstraintAnswer is a constraint judgment: Satisfied is yes, no or
// unsure; Sentences are the sentence ids given as evidence (supporting a
// yes, counter-evidence for a no).
type ConstraintAnswer struct {
	Satisfied string `json:"satisfied"`
	Sentences []int  `json:"sentences"`
}

// ParaphraseAnswer is a stage-1 paraphrase.
type ParaphraseAnswer struct {
	Text        string `json:"text"`
	Nonsensical bool   `json:"nonsensical"`
}
