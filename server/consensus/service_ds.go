package consensus

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Methods of turning votes into consensus qrels.
const (
	MethodMajority   = vocab.ConsensusMajority
	MethodDawidSkene = vocab.ConsensusDawidSkene
)

// ValidMethod reports whether m names a consensus method ("" is the
// majority).
func ValidMethod(m string) bool { return m == "" || m == MethodMajority || m == MethodDawidSkene }

// GoldGrade reads a gold answer: a bare grade (2) or an object with one
// ({"relevance": 2}); -1 when there is none in 0–3.
func GoldGrade(raw json.RawMessage) int {
	if len(raw) == 0 {
		return -1
	}
	var grade int
	if json.Unmarshal(raw, &grade) == nil && grade >= 0 && grade <= 3 {
		return grade
	}
	var obj struct {
		Relevance *int `json:"relevance"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Relevance != nil && *obj.Relevance >= 0 && *obj.Relevance <= 3 {
		return *obj.Relevance
	}
	return -1
}

// CurrentVotes reads a project's current relevance votes by item id.
func CurrentVotes(ctx context.Context, st *store.Store, projectID int64) (map[int64][]Vote, error) {
	votes := map[int64][]Vote{}
	err := st.EachCurrentVote(ctx, projectID, func(v store.CurrentVote) error {
		votes[v.ItemID] = append(votes[v.ItemID], Vote{Rater: v.UserID, Label: v.Relevance, Contradiction: v.Contradiction})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return votes, nil
}

// ProjectVotes are what the majority consensus of a project's items is
// decided from, read at once: the current relevance votes and the latest
// adjudication by item id, and the raters' names by user id.
type ProjectVotes struct {
	Votes       map[int64][]Vote
	Adjudicated map[int64]int
	Users       map[int64]string
}

// LoadProjectVotes reads a project's ProjectVotes.
func LoadProjectVotes(ctx context.Context, st *store.Store, projectID int64) (ProjectVotes, error) {
	var pv ProjectVotes
	var err error
	if pv.Votes, err = CurrentVotes(ctx, st, projectID); err != nil {
		return pv, err
	}
	if pv.Adjudicated, err = st.LatestAdjudications(ctx, projectID); err != nil {
		return pv, err
	}
	pv.Users, err = st.Usernames(ctx)
	return pv, err
}

// Decide is the consensus of item id (Decide over its votes and
// adjudication; ok false: none yet).
func (pv ProjectVotes) Decide(id int64) (Decision, bool) {
	var adj *int
	if a, ok := pv.Adjudicated[id]; ok {
		adj = &a
	}
	return Decide(pv.Votes[id], adj)
}

// DawidSkeneDecisions runs Dawid–Skene over a project's current relevance
// votes (gold answers and adjudications as known labels, items by id,
// votes by rater: the live dashboard's run) and returns the DecideDS
// decision of every item with a vote or an adjudication, with the run.
func DawidSkeneDecisions(ctx context.Context, st *store.Store, projectID int64) (map[int64]Decision, DSResult, error) {
	items, err := st.RelevanceItems(ctx, projectID)
	if err != nil {
		return nil, DSResult{}, fmt.Errorf("consensus: dawid-skene: %w", err)
	}
	votes, err := CurrentVotes(ctx, st, projectID)
	if err != nil {
		return nil, DSResult{}, fmt.Errorf("consensus: dawid-skene: %w", err)
	}
	adjudicated, err := st.LatestAdjudications(ctx, projectID)
	if err != nil {
		return nil, DSResult{}, fmt.Errorf("consensus: dawid-skene: %w", err)
	}
	var in []DSItem
	var ids []int64
	for _, it := range items { // by id
		vs := votes[it.ID]
		if len(vs) == 0 {
			continue
		}
		sort.Slice(vs, func(a, b int) bool { return vs[a].Rater < vs[b].Rater })
		var known *bool
		if a, ok := adjudicated[it.ID]; ok {
			k := a >= RelevantThreshold
			known = &k
		} else if g := GoldGrade(it.GoldAnswer); it.IsGold && g >= 0 {
			k := g >= RelevantThreshold
			known = &k
		}
		in = append(in, DSItem{Votes: vs, Known: known})
		ids = append(ids, it.ID)
	}
	res := DawidSkene(in, DSOptions{})
	out := make(map[int64]Decision, len(ids)+len(adjudicated))
	for i, id := range ids {
		var adj *int
		if a, ok := adjudicated[id]; ok {
			adj = &a
		}
		if d, ok := DecideDS(in[i].Votes, adj, res.Relevant(i)); ok {
			out[id] = d
		}
	}
	for id, a := range adjudicated {
		if _, ok := out[id]; !ok {
			out[id] = Decision{Relevance: a, Status: StatusAdjudicated}
		}
	}
	return out, res, nil
}
