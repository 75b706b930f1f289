package consensus

import (
	"context"
	"errors"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// The researchers' review and browse lists (GET …/reviews, …/feedback,
// …/browse/items, …/browse/queries): read-only pages over the judgments,
// their reviews and the items' consensus.

// ReviewQueue is every annotator's review counts and, when annotator (a
// username) is given, one page of that annotator's unreviewed judgments.
func (s *Service) ReviewQueue(ctx context.Context, projectID int64, annotator string, limit, offset int) (ReviewQueue, error) {
	counts, err := s.st.ReviewCounts(ctx, projectID)
	if err != nil {
		return ReviewQueue{}, err
	}
	out := ReviewQueue{Annotators: make([]AnnotatorReviews, 0, len(counts)), Entries: []ReviewEntry{}}
	for _, a := range counts {
		out.Annotators = append(out.Annotators, AnnotatorReviews{AnnotatorID: a.AnnotatorID, Annotator: a.Annotator,
			Judged: a.Judged, Unreviewed: a.Unreviewed, Accepted: a.Accepted, Corrected: a.Corrected})
	}
	if annotator == "" {
		return out, nil
	}
	u, err := s.annotator(ctx, annotator)
	if err != nil {
		return ReviewQueue{}, err
	}
	js, total, err := s.st.ReviewQueue(ctx, projectID, u.ID, limit, offset)
	if err != nil {
		return ReviewQueue{}, err
	}
	out.Annotator, out.Total = u.Username, total
	for _, j := range js {
		out.Entries = append(out.Entries, entryOf(j))
	}
	return out, nil
}

// annotator is the user named by an annotator parameter.
func (s *Service) annotator(ctx context.Context, name string) (store.User, error) {
	u, err := s.st.UserByUsername(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return u, apperr.Invalidf("annotator", "no user %q", name)
	}
	return u, err
}

func entryOf(j store.JudgmentSummary) ReviewEntry {
	return ReviewEntry{JudgmentID: j.JudgmentID, ItemID: j.ItemID, Annotator: j.Annotator, QueryExtID: j.QueryExtID,
		QueryText: j.QueryText, DocExtID: j.DocExtID, DocTitle: j.DocTitle, Relevance: int(j.Grade), Evidence: j.Evidence,
		Comment: j.Comment, JudgedAt: j.JudgedAt}
}

// Feedback is one page of the reviews of userID's own judgments in a
// project (the user is the session's, never the request's).
func (s *Service) Feedback(ctx context.Context, userID, projectID int64, project string, limit, offset int) (Feedback, error) {
	rows, counts, err := s.st.Feedback(ctx, userID, projectID, limit, offset)
	if err != nil {
		return Feedback{}, err
	}
	out := Feedback{Project: project, Total: counts.Total, Corrections: counts.Corrections, Entries: make([]FeedbackEntry, 0, len(rows))}
	for _, r := range rows {
		out.Entries = append(out.Entries, FeedbackEntry{Judgment: entryOf(r.JudgmentSummary), Review: ReviewView(r.ReviewRow)})
	}
	return out, nil
}

// BrowseItems is one page of a project's items that pass the filter;
// annotator (a username, "" = anyone) narrows it to the items they judged.
func (s *Service) BrowseItems(ctx context.Context, projectID int64, f store.BrowseFilter, annotator string) (BrowseItems, error) {
	if annotator != "" {
		u, err := s.annotator(ctx, annotator)
		if err != nil {
			return BrowseItems{}, err
		}
		f.AnnotatorID = u.ID
	}
	rows, total, err := s.st.BrowseItems(ctx, projectID, f)
	if err != nil {
		return BrowseItems{}, err
	}
	out := BrowseItems{Total: total, Offset: f.Offset, Limit: f.Limit, Items: make([]BrowseItem, 0, len(rows))}
	for _, r := range rows {
		it := BrowseItem{ItemID: r.ItemID, Kind: r.Kind, QueryID: r.QueryID, QueryExtID: r.QueryExtID, QueryText: r.QueryText,
			DocExtID: r.DocExtID, DocTitle: r.DocTitle, IsGold: r.IsGold, LastJudged: r.LastJudged, Votes: make([]BrowseVote, 0, len(r.Annotators))}
		for i, a := range r.Annotators {
			it.Votes = append(it.Votes, BrowseVote{Annotator: a, Relevance: int(r.Grades[i])})
		}
		if r.Status != nil {
			it.Consensus = &ConsensusView{Relevance: int(*r.Relevance), Status: *r.Status, Votes: *r.Votes,
				RelevantVotes: *r.RelevantVotes, Contradictions: *r.Contradictions, NeedsAdjudication: *r.NeedsAdjudication}
			it.Disagreeing = *r.RelevantVotes > 0 && *r.RelevantVotes < *r.Votes
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// BrowseQueries is one page of a project's queries matching text.
func (s *Service) BrowseQueries(ctx context.Context, projectID int64, text string, limit, offset int) (BrowseQueries, error) {
	rows, total, err := s.st.BrowseQueries(ctx, projectID, text, limit, offset)
	if err != nil {
		return BrowseQueries{}, err
	}
	out := BrowseQueries{Total: total, Offset: offset, Limit: limit, Queries: make([]BrowseQuery, 0, len(rows))}
	for _, r := range rows {
		out.Queries = append(out.Queries, BrowseQuery{ID: r.ID, ExtID: r.ExtID, Text: r.Text, Items: r.Items,
			Judged: r.Judged, Disagreeing: r.Disagreeing})
	}
	return out, nil
}
