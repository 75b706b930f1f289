package consensus

import (
	"time"

	"boolpool/server/judging"
	"boolpool/server/store"
)

// The consensus service's own types: adjudication queues, reviews, an
// item's detail. The HTTP edge turns them into the wire types of api and
// back (server/httpapi/convert_consensus.go).

// ReviewResult answers a review: the review and the item's consensus after it.
type ReviewResult struct {
	Review    Review
	Consensus ConsensusView
}

// ItemDetail is GET /api/items/:id/detail: any item of the project with
// its query and document, consensus (Judged false: none yet), every
// current judgment, the annotators' earlier judgments it replaced, the
// adjudications and the reviews.
type ItemDetail struct {
	AdjudicationItem
	Kind       string
	Judged     bool
	Superseded []JudgmentView
	Reviews    []Review
}

// Review is one stored review of a judgment.
type Review struct {
	ID             int64
	JudgmentID     int64
	ItemID         int64
	Annotator      string
	Reviewer       string
	Verdict        string
	Original       int  // the annotator's grade
	Relevance      *int // the corrected grade
	Note           string
	AdjudicationID *int64
	CreatedAt      time.Time
	// Current is false when the annotator has judged the item again since.
	Current bool
}

// JudgmentView is one rater's current judgment, as the adjudicator sees it.
type JudgmentView struct {
	ID            int64
	RaterID       int64
	Rater         string
	Relevance     int
	Evidence      string
	Attributions  []judging.Attribution
	Contradiction bool
	Comment       string
	TimeSpentMs   int
	Supersedes    *int64
	CreatedAt     time.Time
}

// judgmentView is the view of j, a relevance judgment (Relevance set), its
// rater named by names; Attributions are left empty for the caller.
func judgmentView(j store.Judgment, names map[int64]string) JudgmentView {
	jv := JudgmentView{ID: j.ID, RaterID: j.UserID, Rater: names[j.UserID], Relevance: int(*j.Relevance),
		Contradiction: j.Contradiction, Comment: j.Comment, TimeSpentMs: j.TimeSpentMs, Supersedes: j.Supersedes,
		CreatedAt: j.CreatedAt, Attributions: []judging.Attribution{}}
	if j.Evidence != nil {
		jv.Evidence = *j.Evidence
	}
	return jv
}

// ReviewRequest is the body of POST /api/judgments/:id/review.
type ReviewRequest struct {
	Verdict   string // accept | correct
	Relevance *int   // correct: the corrected grade 0–3
	Note      string // correct: required; accept: optional
}

// AdjudicationItem is one entry of the queue: the query with its atoms and
// expression, the document's sentences, and every current judgment side by
// side.
type AdjudicationItem struct {
	ItemID        int64
	IsGold        bool
	Query         judging.QueryView
	QueryExtID    string
	Document      *judging.DocumentView
	Consensus     ConsensusView
	Judgments     []JudgmentView
	Adjudications []AdjudicationView
}

// AdjudicationResult answers an AdjudicationRequest.
type AdjudicationResult struct {
	Adjudication AdjudicationView
	Consensus    ConsensusView
}

// AdjudicationQueue is GET /api/projects/:project/adjudication.
type AdjudicationQueue struct {
	Total int
	Items []AdjudicationItem
}

// AdjudicationView is a researcher's decision.
type AdjudicationView struct {
	ID          int64
	ItemID      int64
	Adjudicator string
	Relevance   int
	Note        string
	CreatedAt   time.Time
}

// ConsensusView is the consensus of one relevance item.
type ConsensusView struct {
	Relevance         int
	Status            string // unanimous | majority | tie | adjudicated
	Votes             int
	RelevantVotes     int
	Contradictions    int
	NeedsAdjudication bool
}

// AdjudicationRequest is the body of POST /api/items/:id/adjudication.
type AdjudicationRequest struct {
	Relevance *int
	Note      string
}

// ReviewQueue is GET /api/projects/:project/reviews: every annotator's
// counts and, for the chosen annotator (?annotator=NAME), one page of
// their current judgments not yet reviewed, oldest first.
type ReviewQueue struct {
	Annotators []AnnotatorReviews
	Annotator  string
	Total      int
	Entries    []ReviewEntry
}

// AnnotatorReviews is one annotator's line of the review overview.
type AnnotatorReviews struct {
	AnnotatorID int64
	Annotator   string
	Judged      int // current relevance judgments
	Unreviewed  int // of which not yet reviewed
	Accepted    int // latest review: accept
	Corrected   int // latest review: correct
}

// ReviewEntry is one judgment as the review queue, the feedback list and
// the item view show it: what was judged, the grade, and its reviews.
type ReviewEntry struct {
	JudgmentID int64
	ItemID     int64
	Annotator  string
	QueryExtID string
	QueryText  string
	DocExtID   string
	DocTitle   string
	Relevance  int
	Evidence   string
	Comment    string
	JudgedAt   time.Time
}

// Feedback is GET /api/me/feedback?project=NAME: the reviews of the
// signed-in user's own judgments in a project, newest first.
type Feedback struct {
	Project     string
	Total       int // reviews received
	Corrections int // of which corrections
	Entries     []FeedbackEntry
}

// FeedbackEntry is one review of the signed-in annotator's judgment.
type FeedbackEntry struct {
	Judgment ReviewEntry
	Review   Review
}

// Review is one stored review of a judgment.
// BrowseItems is one page of the item browser.
type BrowseItems struct {
	Total  int
	Offset int
	Limit  int
	Items  []BrowseItem
}

// BrowseItem is one row of the item browser.
type BrowseItem struct {
	ItemID     int64
	Kind       string
	QueryID    int64
	QueryExtID string
	QueryText  string
	DocExtID   string
	DocTitle   string
	IsGold     bool
	Votes      []BrowseVote
	// Consensus is nil while the item has none (no relevance vote).
	Consensus   *ConsensusView
	LastJudged  *time.Time
	Disagreeing bool
}

// BrowseVote is one annotator's current grade of an item.
type BrowseVote struct {
	Annotator string
	Relevance int
}

// ConsensusView is the consensus of one relevance item.
// BrowseQueries is one page of the searchable query list.
type BrowseQueries struct {
	Total   int
	Offset  int
	Limit   int
	Queries []BrowseQuery
}

// BrowseQuery is one row of the searchable query list.
type BrowseQuery struct {
	ID          int64
	ExtID       string
	Text        string
	Items       int
	Judged      int // items with a consensus
	Disagreeing int // items whose votes disagree
}
