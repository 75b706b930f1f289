package live

import (
	"context"
	"sort"

	"boolpool/server/consensus"
)

// Metrics over other qrels (issue 13): the dashboard's leaderboard can be
// computed over labels derived from constraint judgments, or direct and
// derived together, instead of the relevance items' consensus. The caller
// (atompool.QrelsLabels) computes those labels; live scores the runs
// against them with the same measures and bootstrap intervals.

// OverLabels returns d judged by labels (query ext id → document → grade)
// instead of its relevance items: one settled item (as adjudicated) per
// labelled pair of a known query, in query then document order. Queries,
// runs, negatives and NevIR pairs stay.
func OverLabels(d Data, labels map[string]map[string]int) Data {
	out := d
	out.Items = nil
	out.Votes = map[int64][]consensus.Vote{}
	out.Adjudicated = map[int64]int{}
	var id int64
	for _, q := range d.Queries {
		docs := make([]string, 0, len(labels[q.ExtID]))
		for doc := range labels[q.ExtID] {
			docs = append(docs, doc)
		}
		sort.Strings(docs)
		for _, doc := range docs {
			id++
			out.Items = append(out.Items, Item{ID: id, QueryID: q.ID, DocExtID: doc, Gold: -1})
			out.Adjudicated[id] = labels[q.ExtID][doc]
		}
	}
	return out
}

// SnapshotOver returns a project's figures over labels (OverLabels),
// built from the database on each call: the agreement and annotator
// figures are empty (the labels carry no votes), the leaderboard,
// breakdowns and progress are those of the labels.
func (s *Service) SnapshotOver(ctx context.Context, projectID int64, name string, labels map[string]map[string]int) (Snapshot, error) {
	d, err := LoadData(ctx, s.st, projectID)
	if err != nil {
		return Snapshot{}, err
	}
	return Build(OverLabels(d, labels)).Snapshot(name), nil
}
