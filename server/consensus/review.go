package consensus

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Review with feedback (issue 25). A researcher's review of an annotator's
// judgment is its own row (store.AddReview); the judgment is never
// changed. An acceptance leaves the consensus as it is. A correction is
// also an adjudication of the item with the corrected grade, recorded in
// the same transaction: like every adjudication it overrides the item's
// votes (status "adjudicated", the item leaves the adjudication queue)
// until a later adjudication or correction replaces it. So a correction
// says "this item's label is N", not "this annotator's vote is N": the
// other annotators' votes stay as they were, and agreement figures, which
// compare the annotators' own judgments, do not change.

// Review records a review of a judgment by reviewerID and, for a
// correction, refreshes the item's consensus and tells the listeners. The
// caller has checked the reviewer's access to the judgment's project.
func (s *Service) Review(ctx context.Context, reviewerID, judgmentID int64, req ReviewRequest) (ReviewResult, error) {
	note := strings.TrimSpace(req.Note)
	if len(note) > vocab.MaxReviewNote {
		return ReviewResult{}, apperr.Invalidf("note", "longer than %d bytes", vocab.MaxReviewNote)
	}
	n := store.NewReview{JudgmentID: judgmentID, ReviewerID: reviewerID, Note: note}
	switch req.Verdict {
	case vocab.ReviewAccept:
		if req.Relevance != nil {
			return ReviewResult{}, apperr.Invalidf("relevance", "an acceptance takes no grade (send verdict %q to change it)", vocab.ReviewCorrect)
		}
		n.Verdict = store.VerdictAccept
	case vocab.ReviewCorrect:
		if req.Relevance == nil {
			return ReviewResult{}, apperr.Invalidf("relevance", "required for a correction (0-3)")
		}
		if *req.Relevance < 0 || *req.Relevance > 3 {
			return ReviewResult{}, apperr.Invalidf("relevance", "must be 0, 1, 2 or 3")
		}
		if note == "" {
			return ReviewResult{}, apperr.Invalidf("note", "required for a correction: the annotator reads it")
		}
		rel := int16(*req.Relevance)
		n.Verdict, n.Relevance = store.VerdictCorrect, &rel
		n.AdjudicationNote = fmt.Sprintf("Correction of judgment %d: %s", judgmentID, note)
	default:
		return ReviewResult{}, apperr.Invalidf("verdict", "must be %q or %q", vocab.ReviewAccept, vocab.ReviewCorrect)
	}
	_, itemID, err := s.st.JudgmentProject(ctx, judgmentID)
	if err != nil {
		return ReviewResult{}, err
	}
	// The item's lock orders this refresh with the worker's and with
	// adjudications, as Adjudicate does.
	mu := s.itemLock(itemID)
	mu.Lock()
	defer mu.Unlock()
	r, err := s.st.AddReview(ctx, n)
	if err != nil {
		return ReviewResult{}, err
	}
	out := ReviewResult{Review: ReviewView(r)}
	if r.Verdict == store.VerdictCorrect {
		ref, err := s.Refresh(ctx, itemID)
		if err != nil {
			return out, err
		}
		s.notify(ctx, ref.Row.ProjectID, itemID, ref)
		out.Consensus = View(ref.Row)
		return out, nil
	}
	row, err := s.st.ConsensusOf(ctx, itemID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return out, err
	}
	out.Consensus = View(row)
	return out, nil
}

// ReviewView is the wire form of a stored review.
func ReviewView(r store.ReviewRow) Review {
	v := Review{ID: r.ID, JudgmentID: r.JudgmentID, ItemID: r.ItemID, Annotator: r.Annotator, Reviewer: r.Reviewer,
		Verdict: r.Verdict, Original: int(r.Original), Note: r.Note, AdjudicationID: r.AdjudicationID, CreatedAt: r.CreatedAt,
		Current: r.Current}
	if r.Relevance != nil {
		rel := int(*r.Relevance)
		v.Relevance = &rel
	}
	return v
}

// Detail is any item as the item browser opens it: the adjudication view
// (its consensus, if any, every current judgment and the adjudications),
// the annotators' earlier judgments that their current ones replaced, and
// the reviews.
func (s *Service) Detail(ctx context.Context, itemID int64) (ItemDetail, error) {
	it, err := s.st.ItemByID(ctx, itemID)
	if err != nil {
		return ItemDetail{}, err
	}
	out := ItemDetail{Kind: it.Kind, Judged: true, Superseded: []JudgmentView{}, Reviews: []Review{}}
	row, err := s.st.ConsensusOf(ctx, itemID)
	if errors.Is(err, store.ErrNotFound) {
		row, out.Judged, err = store.ConsensusRow{ItemID: itemID, ProjectID: it.ProjectID, QueryID: it.QueryID}, false, nil
	}
	if err != nil {
		return ItemDetail{}, err
	}
	names, err := s.st.Usernames(ctx)
	if err != nil {
		return ItemDetail{}, err
	}
	if out.AdjudicationItem, err = s.item(ctx, row, names); err != nil {
		return ItemDetail{}, err
	}
	current := map[int64]bool{}
	for _, j := range out.Judgments {
		current[j.ID] = true
	}
	all, err := s.st.JudgmentsByItem(ctx, itemID)
	if err != nil {
		return ItemDetail{}, err
	}
	for _, j := range all {
		if current[j.ID] || j.Relevance == nil {
			continue
		}
		jv := judgmentView(j, names)
		out.Superseded = append(out.Superseded, jv)
	}
	rs, err := s.st.ReviewsOfItem(ctx, itemID)
	if err != nil {
		return ItemDetail{}, err
	}
	for _, r := range rs {
		out.Reviews = append(out.Reviews, ReviewView(r))
	}
	return out, nil
}
