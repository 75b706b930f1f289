package consensus

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"boolpool/server/apperr"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/web/api"
)

// Service keeps the stored consensus of items current and serves the
// adjudication queue.
type Service struct {
	st *store.Store
}

// NewService builds the service.
func NewService(st *store.Store) *Service { return &Service{st: st} }

// Refreshed is the outcome of recomputing one item.
type Refreshed struct {
	Row     store.ConsensusRow
	OK      bool // the item has a consensus (some vote or an adjudication)
	Changed bool
	Votes   []Vote // the current votes it was computed from
	Adj     *int   // the adjudicated relevance, if any
}

// Refresh recomputes an item's consensus from its current judgments and
// latest adjudication and stores it (audited when it changes).
func (s *Service) Refresh(ctx context.Context, itemID int64) (Refreshed, error) {
	var out Refreshed
	row, ok, changed, err := s.st.RefreshConsensus(ctx, itemID, func(current []store.Judgment, adj *store.Adjudication) (store.ConsensusRow, bool) {
		out.Votes = VotesOf(current)
		if adj != nil {
			rel := int(adj.Relevance)
			out.Adj = &rel
		}
		d, ok := Decide(out.Votes, out.Adj)
		return RowOf(d), ok
	})
	if err != nil {
		return out, fmt.Errorf("consensus: refresh item %d: %w", itemID, err)
	}
	out.Row, out.OK, out.Changed = row, ok, changed
	return out, nil
}

// VotesOf turns current judgments into votes (non-relevance ones skipped).
func VotesOf(js []store.Judgment) []Vote {
	out := make([]Vote, 0, len(js))
	for _, j := range js {
		if j.Relevance == nil || j.SkipReason != "" {
			continue
		}
		out = append(out, Vote{Rater: j.UserID, Label: int(*j.Relevance), Contradiction: j.Contradiction})
	}
	return out
}

// RowOf converts a decision into a consensus row (item fields left zero).
func RowOf(d Decision) store.ConsensusRow {
	return store.ConsensusRow{Relevance: int16(d.Relevance), Status: d.Status, Votes: d.Votes, RelevantVotes: d.RelevantVotes,
		Contradictions: d.Contradictions, NeedsAdjudication: d.NeedsAdjudication}
}

// View is the wire form of a stored consensus.
func View(r store.ConsensusRow) api.ConsensusView {
	return api.ConsensusView{Relevance: int(r.Relevance), Status: r.Status, Votes: r.Votes, RelevantVotes: r.RelevantVotes,
		Contradictions: r.Contradictions, NeedsAdjudication: r.NeedsAdjudication}
}

// Adjudicate records a researcher's decision on a relevance item and
// refreshes its consensus; both the decision and the consensus change are
// audited.
func (s *Service) Adjudicate(ctx context.Context, userID, itemID int64, req api.AdjudicationRequest) (api.AdjudicationResult, Refreshed, error) {
	if req.Relevance == nil {
		return api.AdjudicationResult{}, Refreshed{}, apperr.Invalidf("relevance", "required (0-3)")
	}
	if *req.Relevance < 0 || *req.Relevance > 3 {
		return api.AdjudicationResult{}, Refreshed{}, apperr.Invalidf("relevance", "must be 0, 1, 2 or 3")
	}
	note := strings.TrimSpace(req.Note)
	if len(note) > 4000 {
		return api.AdjudicationResult{}, Refreshed{}, apperr.Invalidf("note", "longer than 4000 bytes")
	}
	a, err := s.st.AddAdjudication(ctx, itemID, userID, int16(*req.Relevance), note)
	if err != nil {
		return api.AdjudicationResult{}, Refreshed{}, err
	}
	ref, err := s.Refresh(ctx, itemID)
	if err != nil {
		return api.AdjudicationResult{}, ref, err
	}
	u, err := s.st.UserByID(ctx, userID)
	if err != nil {
		return api.AdjudicationResult{}, ref, err
	}
	return api.AdjudicationResult{
		Adjudication: api.AdjudicationView{ID: a.ID, ItemID: itemID, Adjudicator: u.Username, Relevance: int(a.Relevance), Note: a.Note, CreatedAt: a.CreatedAt},
		Consensus:    View(ref.Row),
	}, ref, nil
}

// Queue lists the items of a project awaiting adjudication with everything
// the adjudicator compares side by side.
func (s *Service) Queue(ctx context.Context, projectID int64, limit, offset int) (api.AdjudicationQueue, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	offset = max(offset, 0)
	rows, total, err := s.st.AdjudicationQueue(ctx, projectID, limit, offset)
	if err != nil {
		return api.AdjudicationQueue{}, err
	}
	names, err := s.st.Usernames(ctx)
	if err != nil {
		return api.AdjudicationQueue{}, err
	}
	out := api.AdjudicationQueue{Total: total, Items: make([]api.AdjudicationItem, 0, len(rows))}
	for _, r := range rows {
		it, err := s.item(ctx, r, names)
		if err != nil {
			return api.AdjudicationQueue{}, err
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}

// Item is one item as the adjudication view shows it (in the queue or not).
func (s *Service) Item(ctx context.Context, itemID int64) (api.AdjudicationItem, error) {
	r, err := s.st.ConsensusOf(ctx, itemID)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	names, err := s.st.Usernames(ctx)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	return s.item(ctx, r, names)
}

func (s *Service) item(ctx context.Context, r store.ConsensusRow, names map[int64]string) (api.AdjudicationItem, error) {
	it, err := s.st.ItemByID(ctx, r.ItemID)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	q, err := s.st.QueryByID(ctx, it.QueryID)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	out := api.AdjudicationItem{ItemID: it.ID, IsGold: it.IsGold, Query: judging.QueryView(q), QueryExtID: q.ExtID,
		Consensus: View(r), Judgments: []api.JudgmentView{}, Adjudications: []api.AdjudicationView{}}
	if it.DocumentID != nil {
		d, err := s.st.DocumentByID(ctx, *it.DocumentID)
		if err != nil {
			return api.AdjudicationItem{}, err
		}
		dv := judging.DocumentView(d)
		out.Document = &dv
	}
	current, err := s.st.CurrentJudgments(ctx, it.ID)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	for _, j := range current {
		if j.Relevance == nil {
			continue
		}
		jv := api.JudgmentView{ID: j.ID, RaterID: j.UserID, Rater: names[j.UserID], Relevance: int(*j.Relevance),
			Contradiction: j.Contradiction, Comment: j.Comment, TimeSpentMs: j.TimeSpentMs, Supersedes: j.Supersedes,
			CreatedAt: j.CreatedAt, Attributions: []api.Attribution{}}
		if j.Evidence != nil {
			jv.Evidence = *j.Evidence
		}
		if len(j.Attributions) > 0 {
			if err := json.Unmarshal(j.Attributions, &jv.Attributions); err != nil {
				return api.AdjudicationItem{}, fmt.Errorf("consensus: attributions of judgment %d: %w", j.ID, err)
			}
		}
		out.Judgments = append(out.Judgments, jv)
	}
	adjs, err := s.st.AdjudicationsOf(ctx, it.ID)
	if err != nil {
		return api.AdjudicationItem{}, err
	}
	for _, a := range adjs {
		out.Adjudications = append(out.Adjudications, api.AdjudicationView{ID: a.ID, ItemID: a.ItemID, Adjudicator: names[a.UserID],
			Relevance: int(a.Relevance), Note: a.Note, CreatedAt: a.CreatedAt})
	}
	return out, nil
}

// Sync recomputes the consensus of every relevance item of a project from
// the stored judgments and adjudications and writes the rows that differ
// (one transaction, one audit entry). Exports (through SyncIfStale) and
// live loads run it so that they never miss a judgment whose per-item
// refresh was lost (say, the process stopped between storing the judgment
// and refreshing its item).
func (s *Service) Sync(ctx context.Context, projectID int64) (changed int, err error) {
	changed, err = s.st.SyncConsensus(ctx, projectID, func(current []store.Judgment, adj *store.Adjudication) (store.ConsensusRow, bool) {
		var a *int
		if adj != nil {
			rel := int(adj.Relevance)
			a = &rel
		}
		d, ok := Decide(VotesOf(current), a)
		return RowOf(d), ok
	})
	if err != nil {
		return 0, fmt.Errorf("consensus: sync project %d: %w", projectID, err)
	}
	return changed, nil
}

// SyncIfStale runs Sync only when some judgment or adjudication is newer
// than its item's stored consensus (the usual case is that per-item
// refreshes kept it current and nothing needs doing).
func (s *Service) SyncIfStale(ctx context.Context, projectID int64) (changed int, err error) {
	stale, err := s.st.ConsensusStale(ctx, projectID)
	if err != nil || !stale {
		return 0, err
	}
	return s.Sync(ctx, projectID)
}
