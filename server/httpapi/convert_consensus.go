package httpapi

import (
	"boolpool/api"
	"boolpool/server/consensus"
)

func toAPIReviewResult(d consensus.ReviewResult) api.ReviewResult {
	return api.ReviewResult{Review: toAPIReview(d.Review), Consensus: toAPIConsensusView(d.Consensus)}
}

func toAPIItemDetail(d consensus.ItemDetail) api.ItemDetail {
	return api.ItemDetail{AdjudicationItem: toAPIAdjudicationItem(d.AdjudicationItem), Kind: d.Kind, Judged: d.Judged,
		Superseded: convSlice(d.Superseded, toAPIJudgmentView), Reviews: convSlice(d.Reviews, toAPIReview)}
}

func toAPIReview(d consensus.Review) api.Review { return api.Review(d) }

func toAPIJudgmentView(d consensus.JudgmentView) api.JudgmentView {
	return api.JudgmentView{ID: d.ID, RaterID: d.RaterID, Rater: d.Rater, Relevance: d.Relevance,
		Evidence: d.Evidence, Attributions: convSlice(d.Attributions, toAPIAttribution),
		Contradiction: d.Contradiction, Comment: d.Comment, TimeSpentMs: d.TimeSpentMs, Supersedes: d.Supersedes,
		CreatedAt: d.CreatedAt}
}

func toConsensusReviewRequest(w api.ReviewRequest) consensus.ReviewRequest {
	return consensus.ReviewRequest(w)
}

func toAPIAdjudicationItem(d consensus.AdjudicationItem) api.AdjudicationItem {
	return api.AdjudicationItem{ItemID: d.ItemID, IsGold: d.IsGold, Query: toAPIQueryView(d.Query),
		QueryExtID: d.QueryExtID, Document: convPtr(d.Document, toAPIDocumentView),
		Consensus: toAPIConsensusView(d.Consensus), Judgments: convSlice(d.Judgments, toAPIJudgmentView),
		Adjudications: convSlice(d.Adjudications, toAPIAdjudicationView)}
}

func toAPIAdjudicationResult(d consensus.AdjudicationResult) api.AdjudicationResult {
	return api.AdjudicationResult{Adjudication: toAPIAdjudicationView(d.Adjudication),
		Consensus: toAPIConsensusView(d.Consensus)}
}

func toAPIAdjudicationQueue(d consensus.AdjudicationQueue) api.AdjudicationQueue {
	return api.AdjudicationQueue{Total: d.Total, Items: convSlice(d.Items, toAPIAdjudicationItem)}
}

func toAPIAdjudicationView(d consensus.AdjudicationView) api.AdjudicationView {
	return api.AdjudicationView(d)
}
func toAPIConsensusView(d consensus.ConsensusView) api.ConsensusView { return api.ConsensusView(d) }

func toConsensusAdjudicationRequest(w api.AdjudicationRequest) consensus.AdjudicationRequest {
	return consensus.AdjudicationRequest(w)
}

func toAPIReviewQueue(d consensus.ReviewQueue) api.ReviewQueue {
	return api.ReviewQueue{Annotators: convSlice(d.Annotators, toAPIAnnotatorReviews), Annotator: d.Annotator,
		Total: d.Total, Entries: convSlice(d.Entries, toAPIReviewEntry)}
}

func toAPIAnnotatorReviews(d consensus.AnnotatorReviews) api.AnnotatorReviews {
	return api.AnnotatorReviews(d)
}
func toAPIReviewEntry(d consensus.ReviewEntry) api.ReviewEntry { return api.ReviewEntry(d) }

func toAPIFeedback(d consensus.Feedback) api.Feedback {
	return api.Feedback{Project: d.Project, Total: d.Total, Corrections: d.Corrections,
		Entries: convSlice(d.Entries, toAPIFeedbackEntry)}
}

func toAPIFeedbackEntry(d consensus.FeedbackEntry) api.FeedbackEntry {
	return api.FeedbackEntry{Judgment: toAPIReviewEntry(d.Judgment), Review: toAPIReview(d.Review)}
}

func toAPIBrowseItems(d consensus.BrowseItems) api.BrowseItems {
	return api.BrowseItems{Total: d.Total, Offset: d.Offset, Limit: d.Limit,
		Items: convSlice(d.Items, toAPIBrowseItem)}
}

func toAPIBrowseItem(d consensus.BrowseItem) api.BrowseItem {
	return api.BrowseItem{ItemID: d.ItemID, Kind: d.Kind, QueryID: d.QueryID, QueryExtID: d.QueryExtID,
		QueryText: d.QueryText, DocExtID: d.DocExtID, DocTitle: d.DocTitle, IsGold: d.IsGold,
		Votes: convSlice(d.Votes, toAPIBrowseVote), Consensus: convPtr(d.Consensus, toAPIConsensusView),
		LastJudged: d.LastJudged, Disagreeing: d.Disagreeing}
}

func toAPIBrowseVote(d consensus.BrowseVote) api.BrowseVote { return api.BrowseVote(d) }

func toAPIBrowseQueries(d consensus.BrowseQueries) api.BrowseQueries {
	return api.BrowseQueries{Total: d.Total, Offset: d.Offset, Limit: d.Limit,
		Queries: convSlice(d.Queries, toAPIBrowseQuery)}
}

func toAPIBrowseQuery(d consensus.BrowseQuery) api.BrowseQuery { return api.BrowseQuery(d) }
