// Package api holds the JSON wire types shared by the server and the browser
// (wasm) client. It is a leaf: it imports only the standard library and the
// light boolexpr model, never pgx, Echo or cgo, so it compiles to wasm.
package api

import (
	"time"

	"boolpool/server/boolexpr"
	"boolpool/server/vocab"
)

// The words of the wire that the server shares are defined once, in
// server/vocab; api names them for the browser.

// Roles, from least to most privileged.
const (
	RoleAnnotator  = vocab.RoleAnnotator
	RoleResearcher = vocab.RoleResearcher
	RoleAdmin      = vocab.RoleAdmin
)

// Task kinds (items.kind).
const (
	KindRelevance  = vocab.KindRelevance
	KindParaphrase = vocab.KindParaphrase
	KindValidation = vocab.KindValidation
)

// Evidence labels.
const (
	EvidenceComplete = vocab.EvidenceComplete
	EvidencePartial  = vocab.EvidencePartial
	EvidenceNone     = vocab.EvidenceNone
)

// Per-atom satisfied labels.
const (
	SatisfiedYes    = vocab.SatisfiedYes
	SatisfiedNo     = vocab.SatisfiedNo
	SatisfiedUnsure = vocab.SatisfiedUnsure
)

// CSRFHeader carries the session's CSRF token on every state-changing request.
const CSRFHeader = vocab.CSRFHeader

// LoginRequest is the body of POST /api/auth/login.
type LoginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Me describes the signed-in user (GET /api/me and the login response).
type Me struct {
	UserID      int64    `json:"user_id"`
	Username    string   `json:"username"`
	DisplayName string   `json:"display_name"`
	Role        string   `json:"role"`
	Projects    []string `json:"projects"`
	CSRFToken   string   `json:"csrf_token"`
}

// AtomView is one atom of a query as the judging view shows it.
type AtomView struct {
	Index   int    `json:"index"`
	Text    string `json:"text"`
	Start   int    `json:"start"` // byte span in QueryView.Text
	End     int    `json:"end"`
	Negated bool   `json:"negated"`
}

// QueryView is a query prepared for judging.
type QueryView struct {
	ID         int64          `json:"id"`
	Text       string         `json:"text"`
	Template   string         `json:"template,omitempty"`
	Atoms      []AtomView     `json:"atoms"`
	Expression *boolexpr.Expr `json:"expression,omitempty"`
}

// DocumentView is a document split into sentences.
type DocumentView struct {
	ID        int64    `json:"id"`
	ExtID     string   `json:"ext_id"`
	Title     string   `json:"title"`
	Sentences []string `json:"sentences"`
}

// Task is one leased item for the signed-in rater.
type Task struct {
	AssignmentID   int64           `json:"assignment_id"`
	ItemID         int64           `json:"item_id"`
	Kind           string          `json:"kind"`
	Project        string          `json:"project"`
	Query          QueryView       `json:"query"`
	Document       *DocumentView   `json:"document,omitempty"`
	Paraphrase     string          `json:"paraphrase,omitempty"` // validation: the text to validate
	Constraint     *ConstraintView `json:"constraint,omitempty"` // constraint: the atom asked about
	LeaseExpiresAt time.Time       `json:"lease_expires_at"`
}

// Progress counts a rater's work in one project and task kind.
type Progress struct {
	Done      int   `json:"done"`
	Skipped   int   `json:"skipped"`
	Leased    int   `json:"leased"`
	Available int   `json:"available"` // items the rater could still get
	ActiveMs  int64 `json:"active_ms"` // logged active time today
}

// Total is the size of the rater's whole queue (done, skipped, leased and
// still available).
func (p Progress) Total() int { return p.Done + p.Skipped + p.Leased + p.Available }

// QueueRequest is the body of POST /api/projects/:project/queue: lease up to
// N tasks of Kind (current leases first).
type QueueRequest struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
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
	Tasks          []Task   `json:"tasks"`
	Progress       Progress `json:"progress"`
	Completed      bool     `json:"completed,omitempty"`
	CompletionCode string   `json:"completion_code,omitempty"`
	CompletionURL  string   `json:"completion_url,omitempty"`
	Paused         bool     `json:"paused,omitempty"`
	PauseReason    string   `json:"pause_reason,omitempty"`
}

// Attribution is one atom's part of a relevance judgment.
type Attribution struct {
	Atom      int    `json:"atom"`
	Sentences []int  `json:"sentences"`
	Counter   bool   `json:"counter"` // sentences are counter-evidence (negated atom); set by the server
	Satisfied string `json:"satisfied"`
}

// ParaphraseAnswer is a stage-1 paraphrase.
type ParaphraseAnswer struct {
	Text        string `json:"text"`
	Nonsensical bool   `json:"nonsensical"`
}

// ValidationAnswer is a stage-2 validation of a paraphrase.
type ValidationAnswer struct {
	Fluent      string `json:"fluent"`      // yes | no
	Meaning     string `json:"meaning"`     // same | different | ambiguous
	Naturalness string `json:"naturalness"` // yes | maybe | no
}

// Limits on a judgment's free text, in bytes (UTF-8), shared by the server's
// checks and the browser's fields so both enforce one value.
const (
	MaxComment    = vocab.MaxComment
	MaxSkipReason = vocab.MaxSkipReason
	MaxParaphrase = vocab.MaxParaphrase
)

// JudgmentRequest is the body of POST /api/judgments. ClientID (a UUID made
// by the client) makes the write idempotent: an identical resend is
// acknowledged again, a different body under a stored client id is a 409.
// AuthorID is the user id of whoever made the judgment in the browser; it is
// required and must be the session's user (403 otherwise), so a judgment
// queued under one sign-in is never stored as another user's.
type JudgmentRequest struct {
	ClientID     string            `json:"client_id"`
	AuthorID     int64             `json:"author_id"`
	ItemID       int64             `json:"item_id"`
	Kind         string            `json:"kind"`
	Relevance    *int              `json:"relevance,omitempty"`
	Evidence     string            `json:"evidence,omitempty"`
	Attributions []Attribution     `json:"attributions,omitempty"`
	Paraphrase   *ParaphraseAnswer `json:"paraphrase,omitempty"`
	Validation   *ValidationAnswer `json:"validation,omitempty"`
	Constraint   *ConstraintAnswer `json:"constraint,omitempty"`
	Comment      string            `json:"comment,omitempty"`
	SkipReason   string            `json:"skip_reason,omitempty"`
	TimeSpentMs  int64             `json:"time_spent_ms"`
}

// JudgmentResponse acknowledges a stored judgment. Duplicate is true when
// the client id had been stored before (a retry).
type JudgmentResponse struct {
	ID            int64     `json:"id"`
	ClientID      string    `json:"client_id"`
	ItemID        int64     `json:"item_id"`
	Contradiction bool      `json:"contradiction"`
	Supersedes    *int64    `json:"supersedes,omitempty"`
	Duplicate     bool      `json:"duplicate"`
	CreatedAt     time.Time `json:"created_at"`
}

// Example is one good or bad example in the instructions.
type Example struct {
	Query       string `json:"query"`
	Document    string `json:"document"`
	Label       string `json:"label"`
	Explanation string `json:"explanation"`
	Good        bool   `json:"good"`
}

// Instructions are a project's instructions per task kind.
type Instructions struct {
	Text     string    `json:"text"`
	Examples []Example `json:"examples"`
}

// ProjectStats is a researcher's overview of a project's judging.
type ProjectStats struct {
	Project        string `json:"project"`
	Items          int    `json:"items"`
	Judgments      int    `json:"judgments"`
	Contradictions int    `json:"contradictions"`
	Annotators     int    `json:"annotators"`
}

// UserView is a user as admins see it.
type UserView struct {
	ID          int64    `json:"id"`
	Username    string   `json:"username"`
	DisplayName string   `json:"display_name"`
	Role        string   `json:"role"`
	Disabled    bool     `json:"disabled"`
	Projects    []string `json:"projects"`
}

// NewUserRequest is the body of POST /api/admin/users.
type NewUserRequest struct {
	Username    string `json:"username"`
	DisplayName string `json:"display_name"`
	Role        string `json:"role"`
	Password    string `json:"password"`
	Project     string `json:"project,omitempty"`
}

// Problem is the JSON body of every error response (RFC 9457 shaped):
// the server writes it (server/httpapi, handleError) and the browser reads it.
type Problem struct {
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
	Field  string `json:"field,omitempty"`
}

// ValidRole reports whether r is a known role.
func ValidRole(r string) bool { return vocab.ValidRole(r) }

// RoleAtLeast reports whether role has at least the privileges of min.
func RoleAtLeast(role, min string) bool { return vocab.RoleAtLeast(role, min) }
