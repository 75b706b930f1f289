package api

import (
	"boolpool/server/vocab"
	"time"
)

// Wire types of review with feedback and the item browser (issue 25).
//
// A researcher reviews an annotator's current relevance judgment: accept
// it, or correct it to another grade with a note. The review is stored as
// its own row (the judgment is never changed); a correction is also an
// adjudication of the item, so it becomes the item's consensus. The
// annotator reads the reviews of their own judgments (Feedback).

// Review verdicts.
const (
	ReviewAccept  = vocab.ReviewAccept
	ReviewCorrect = vocab.ReviewCorrect
)

// MaxReviewNote bounds a review note (bytes), like an adjudication note.
const MaxReviewNote = vocab.MaxReviewNote

// ReviewRequest is the body of POST /api/judgments/:id/review.
type ReviewRequest struct {
	Verdict   string `json:"verdict"`             // accept | correct
	Relevance *int   `json:"relevance,omitempty"` // correct: the corrected grade 0–3
	Note      string `json:"note"`                // correct: required; accept: optional
}

// Review is one stored review of a judgment.
type Review struct {
	ID             int64     `json:"id"`
	JudgmentID     int64     `json:"judgment_id"`
	ItemID         int64     `json:"item_id"`
	Annotator      string    `json:"annotator"`
	Reviewer       string    `json:"reviewer"`
	Verdict        string    `json:"verdict"`
	Original       int       `json:"original"`            // the annotator's grade
	Relevance      *int      `json:"relevance,omitempty"` // the corrected grade
	Note           string    `json:"note,omitempty"`
	AdjudicationID *int64    `json:"adjudication_id,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
	// Current is false when the annotator has judged the item again since.
	Current bool `json:"current"`
}

// ReviewResult answers a review: the review and the item's consensus after it.
type ReviewResult struct {
	Review    Review        `json:"review"`
	Consensus ConsensusView `json:"consensus"`
}

// AnnotatorReviews is one annotator's line of the review overview.
type AnnotatorReviews struct {
	AnnotatorID int64  `json:"annotator_id"`
	Annotator   string `json:"annotator"`
	Judged      int    `json:"judged"`     // current relevance judgments
	Unreviewed  int    `json:"unreviewed"` // of which not yet reviewed
	Accepted    int    `json:"accepted"`   // latest review: accept
	Corrected   int    `json:"corrected"`  // latest review: correct
}

// ReviewEntry is one judgment as the review queue, the feedback list and
// the item view show it: what was judged, the grade, and its reviews.
type ReviewEntry struct {
	JudgmentID int64     `json:"judgment_id"`
	ItemID     int64     `json:"item_id"`
	Annotator  string    `json:"annotator"`
	QueryExtID string    `json:"query_ext_id"`
	QueryText  string    `json:"query_text"`
	DocExtID   string    `json:"doc_ext_id,omitempty"`
	DocTitle   string    `json:"doc_title,omitempty"`
	Relevance  int       `json:"relevance"`
	Evidence   string    `json:"evidence,omitempty"`
	Comment    string    `json:"comment,omitempty"`
	JudgedAt   time.Time `json:"judged_at"`
}

// ReviewQueue is GET /api/projects/:project/reviews: every annotator's
// counts and, for the chosen annotator (?annotator=NAME), one page of
// their current judgments not yet reviewed, oldest first.
type ReviewQueue struct {
	Annotators []AnnotatorReviews `json:"annotators"`
	Annotator  string             `json:"annotator,omitempty"`
	Total      int                `json:"total"`
	Entries    []ReviewEntry      `json:"entries"`
}

// FeedbackEntry is one review of the signed-in annotator's judgment.
type FeedbackEntry struct {
	Judgment ReviewEntry `json:"judgment"`
	Review   Review      `json:"review"`
}

// Feedback is GET /api/me/feedback?project=NAME: the reviews of the
// signed-in user's own judgments in a project, newest first.
type Feedback struct {
	Project     string          `json:"project"`
	Total       int             `json:"total"`       // reviews received
	Corrections int             `json:"corrections"` // of which corrections
	Entries     []FeedbackEntry `json:"entries"`
}

// Item browser filters (GET /api/projects/:project/browse/items).
const (
	AgreementAgree       = "agree"       // two or more votes, all on one side
	AgreementDisagree    = "disagree"    // votes on both sides (relevant or not)
	AgreementSingle      = "single"      // exactly one vote
	AgreementAdjudicated = "adjudicated" // a researcher decided (adjudication or correction)
	AgreementUnjudged    = "unjudged"    // no current judgment
)

// MaxBrowsePage bounds the page size of the browser's lists.
const MaxBrowsePage = 200

// BrowseVote is one annotator's current grade of an item.
type BrowseVote struct {
	Annotator string `json:"annotator"`
	Relevance int    `json:"relevance"`
}

// BrowseItem is one row of the item browser.
type BrowseItem struct {
	ItemID     int64        `json:"item_id"`
	Kind       string       `json:"kind"`
	QueryID    int64        `json:"query_id"`
	QueryExtID string       `json:"query_ext_id"`
	QueryText  string       `json:"query_text"`
	DocExtID   string       `json:"doc_ext_id,omitempty"`
	DocTitle   string       `json:"doc_title,omitempty"`
	IsGold     bool         `json:"is_gold"`
	Votes      []BrowseVote `json:"votes"`
	// Consensus is nil while the item has none (no relevance vote).
	Consensus   *ConsensusView `json:"consensus,omitempty"`
	LastJudged  *time.Time     `json:"last_judged,omitempty"`
	Disagreeing bool           `json:"disagreeing"`
}

// BrowseItems is one page of the item browser.
type BrowseItems struct {
	Total  int          `json:"total"`
	Offset int          `json:"offset"`
	Limit  int          `json:"limit"`
	Items  []BrowseItem `json:"items"`
}

// BrowseQuery is one row of the searchable query list.
type BrowseQuery struct {
	ID          int64  `json:"id"`
	ExtID       string `json:"ext_id"`
	Text        string `json:"text"`
	Items       int    `json:"items"`
	Judged      int    `json:"judged"`      // items with a consensus
	Disagreeing int    `json:"disagreeing"` // items whose votes disagree
}

// BrowseQueries is one page of the searchable query list.
type BrowseQueries struct {
	Total   int           `json:"total"`
	Offset  int           `json:"offset"`
	Limit   int           `json:"limit"`
	Queries []BrowseQuery `json:"queries"`
}

// ItemDetail is GET /api/items/:id/detail: any item of the project with
// its query and document, consensus (Judged false: none yet), every
// current judgment, the annotators' earlier judgments it replaced, the
// adjudications and the reviews.
type ItemDetail struct {
	AdjudicationItem
	Kind       string         `json:"kind"`
	Judged     bool           `json:"judged"`
	Superseded []JudgmentView `json:"superseded"`
	Reviews    []Review       `json:"reviews"`
}
