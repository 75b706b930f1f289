package atompool

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"boolpool/server/agreement"
	"boolpool/server/apperr"
	"boolpool/server/atoms"
	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Constraint judging (issue 13): Pool creates constraint items
// (judged in the judging page like relevance items), their consensus
// becomes atom labels (consensus.ConstraintJudged), and Summary derives
// every query's qrels from those labels as they arrive.

// MaxPoolLimit bounds the constraint items one Pool call creates.
const MaxPoolLimit = 100000

// Pool syncs the project's atoms and creates constraint items for up to
// req.Limit (atom, document) pairs that have neither an item nor a label:
// with req.Runs, every atom of each query with the query's top req.Depth
// documents of each run; otherwise every atom of each query with the
// documents pooled for it (its relevance items). Pairs are ordered by
// their best rank (or item priority), then by how many queries share the
// atom (one label serves them all), so the first judgments complete the
// most derived qrels. req.Gold more pairs with an imported label become
// gold items with that label as the reference answer.
func Pool(ctx context.Context, st *store.Store, projectID int64, req ConstraintPoolRequest) (ConstraintPoolResult, error) {
	var res ConstraintPoolResult
	switch {
	case req.Limit < 0 || req.Limit > MaxPoolLimit:
		return res, apperr.Invalidf("limit", "must be between 1 and %d (0 = 1000)", MaxPoolLimit)
	case req.Depth < 0:
		return res, apperr.Invalidf("depth", "must not be negative")
	case req.Gold < 0:
		return res, apperr.Invalidf("gold", "must not be negative")
	}
	if req.Limit == 0 {
		req.Limit = 1000
	}
	if req.Depth == 0 {
		req.Depth = 20
	}
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return res, err
	}
	var pairs []store.ConstraintPair
	var err error
	if len(req.Runs) == 0 {
		pairs, err = st.ConstraintPairsFromItems(ctx, projectID)
	} else {
		pairs, err = runPairs(ctx, st, projectID, req.Runs, req.Depth)
	}
	if err != nil {
		return res, err
	}
	res.Candidates = len(pairs)
	if len(pairs) > req.Limit {
		pairs = pairs[:req.Limit]
	}
	items := make([]store.NewConstraintItem, 0, len(pairs)+req.Gold)
	for i, p := range pairs {
		items = append(items, store.NewConstraintItem{AtomID: p.AtomID, DocExtID: p.DocExtID, Priority: i})
	}
	if req.Gold > 0 {
		gold, err := goldPairs(ctx, st, projectID, req.Gold)
		if err != nil {
			return res, err
		}
		for _, g := range gold {
			g.Priority = len(items)
			items = append(items, g)
		}
		res.Gold = len(gold)
	}
	res.Created, err = st.InsertConstraintItems(ctx, projectID, items)
	return res, err
}

// runPairs are the (atom, document) pairs of the runs' top depth
// documents of each query, without an item or a label.
func runPairs(ctx context.Context, st *store.Store, projectID int64, runs []string, depth int) ([]store.ConstraintPair, error) {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	byQuery := map[string][]store.AtomLink{}
	uses := map[int64]int{}
	for _, l := range links {
		byQuery[l.QueryExtID] = append(byQuery[l.QueryExtID], l)
		uses[l.AtomID]++
	}
	have, err := st.ConstraintItemPairs(ctx, projectID)
	if err != nil {
		return nil, err
	}
	labels, err := st.AtomLabels(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for _, l := range labels {
		if have[l.AtomID] == nil {
			have[l.AtomID] = map[string]bool{}
		}
		have[l.AtomID][l.DocExtID] = true
	}
	best := map[[2]string]*store.ConstraintPair{}
	for _, name := range runs {
		res, err := retrieval.LoadRun(ctx, st, projectID, name)
		if err != nil {
			return nil, fmt.Errorf("atoms: run %q: %w", name, err)
		}
		for q, rs := range res {
			for rank, r := range rs {
				if rank >= depth {
					break
				}
				for _, l := range byQuery[q] {
					if have[l.AtomID][r.DocID] {
						continue
					}
					k := [2]string{l.Key, r.DocID}
					if p, ok := best[k]; ok {
						p.Best = min(p.Best, rank)
						continue
					}
					best[k] = &store.ConstraintPair{AtomID: l.AtomID, AtomKey: l.Key, DocExtID: r.DocID, Best: rank, Uses: uses[l.AtomID]}
				}
			}
		}
	}
	out := make([]store.ConstraintPair, 0, len(best))
	for _, p := range best {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Best != b.Best {
			return a.Best < b.Best
		}
		if a.Uses != b.Uses {
			return a.Uses > b.Uses
		}
		if a.AtomKey != b.AtomKey {
			return a.AtomKey < b.AtomKey
		}
		return a.DocExtID < b.DocExtID
	})
	return out, nil
}

// goldPairs are up to n imported atom labels without a constraint item, as
// gold items.
func goldPairs(ctx context.Context, st *store.Store, projectID int64, n int) ([]store.NewConstraintItem, error) {
	labels, err := st.AtomLabels(ctx, projectID)
	if err != nil {
		return nil, err
	}
	have, err := st.ConstraintItemPairs(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []store.NewConstraintItem
	for _, l := range labels {
		if len(out) >= n {
			break
		}
		if l.Source != "import" || have[l.AtomID][l.DocExtID] {
			continue
		}
		out = append(out, store.NewConstraintItem{AtomID: l.AtomID, DocExtID: l.DocExtID, Gold: l.Label})
	}
	return out, nil
}

// Summary syncs the project's atoms and returns each query's derived
// qrels counts beside its direct consensus labels, with the consistency
// flags. It reads the atom labels as the write path left them (a
// constraint judgment updates its label before its request returns); with
// repair, consensus.SyncConstraints first
// recomputes every constraint item's label from the stored judgments (one
// statement per item: the CLI and the exports repair, the dashboard's
// two-second reloads do not).
func Summary(ctx context.Context, st *store.Store, projectID int64, repair bool) (DerivedQrels, error) {
	out := DerivedQrels{Queries: []DerivedQuery{}, Flags: []ConsistencyFlag{}}
	if _, err := atoms.Sync(ctx, st, projectID); err != nil {
		return out, err
	}
	if repair {
		if _, err := consensus.SyncConstraints(ctx, st, projectID); err != nil {
			return out, err
		}
	}
	pa, err := loadProjectAtoms(ctx, st, projectID)
	if err != nil {
		return out, err
	}
	sources, err := st.VariantSources(ctx, projectID)
	if err != nil {
		return out, err
	}
	variant := map[string]bool{}
	for _, q := range pa.all {
		_, variant[q.ExtID] = sources[q.ID]
	}
	out.Atoms = len(pa.atomTexts)
	for _, docs := range pa.labels {
		out.AtomLabels += len(docs)
	}
	for _, q := range pa.queries {
		qr, err := atoms.DeriveQrels(q, pa.labels, pa.direct[q.ID], false)
		if err != nil {
			return out, err
		}
		dq := DerivedQuery{QueryExtID: q.ID, Text: pa.texts[q.ID], Expression: exprText(q, pa.atomTexts), Variant: variant[q.ID]}
		for _, r := range qr {
			switch r.Derived {
			case boolexpr.True:
				dq.Relevant++
			case boolexpr.False:
				dq.NonRelevant++
			default:
				dq.Unknown++
			}
			if r.Source != atoms.Derived {
				dq.Direct++
			}
			if r.Conflict {
				dq.Conflicts++
			}
		}
		out.Relevant += dq.Relevant
		out.NonRelevant += dq.NonRelevant
		out.Unknown += dq.Unknown
		out.Queries = append(out.Queries, dq)
	}
	flags, err := pa.inconsistencies()
	if err != nil {
		return out, err
	}
	for _, f := range flags {
		out.Flags = append(out.Flags, ConsistencyFlag{Doc: f.Doc, Query: f.Query, Other: f.Other, Reason: f.Reason})
	}
	items, judged, judgments, err := st.ConstraintCounts(ctx, projectID)
	if err != nil {
		return out, err
	}
	out.Constraint = ConstraintCounts{Items: items, Judged: judged, Judgments: judgments}
	votes, err := st.ConstraintVotes(ctx, projectID)
	if err != nil {
		return out, err
	}
	constraintAgreement(&out.Constraint, votes)
	return out, nil
}

// constraintAgreement fills in the raters' agreement on constraint items
// (votes: item → answers).
func constraintAgreement(c *ConstraintCounts, votes map[int64][]string) {
	cat := map[string]int{vocab.SatisfiedYes: 0, vocab.SatisfiedNo: 1, vocab.SatisfiedUnsure: 2}
	byN := map[int][][]int{} // votes per item → category counts
	unanimous := 0
	for _, vs := range votes {
		if len(vs) < 2 {
			continue
		}
		c.MultiRated++
		row := make([]int, 3)
		for _, v := range vs {
			if i, ok := cat[v]; ok {
				row[i]++
			}
		}
		if slices.Max(row) == len(vs) {
			unanimous++
		}
		byN[len(vs)] = append(byN[len(vs)], row)
	}
	if c.MultiRated == 0 {
		return
	}
	c.Unanimous = float64(unanimous) / float64(c.MultiRated)
	best := 0
	for n, rows := range byN {
		if len(rows) > len(byN[best]) || (len(rows) == len(byN[best]) && n > best) {
			best = n
		}
	}
	k := agreement.FleissKappaCounts(byN[best])
	c.KappaItems = len(byN[best])
	if !math.IsNaN(k) && !math.IsInf(k, 0) {
		c.Kappa = &k
	}
}

// DirectLabels are the project's direct (majority consensus) labels:
// query ext id → document → relevant.
func DirectLabels(ctx context.Context, st *store.Store, projectID int64) (map[string]map[string]bool, error) {
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, err
	}
	direct := map[string]map[string]bool{}
	err := st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if direct[r.QueryExtID] == nil {
			direct[r.QueryExtID] = map[string]bool{}
		}
		direct[r.QueryExtID][r.DocExtID] = r.Relevance >= consensus.RelevantThreshold
		return nil
	})
	if err != nil {
		return nil, err
	}
	return direct, nil
}

// exprText is the query's expression with atom texts for indices.
func exprText(q atoms.Query, atomTexts map[string]string) string {
	names := make([]string, len(q.Atoms))
	for i, k := range q.Atoms {
		names[i] = atomTexts[k]
		if names[i] == "" {
			names[i] = k
		}
	}
	return q.Expr.Format(names)
}
