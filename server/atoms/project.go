package atoms

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"boolpool/server/boolexpr"
	"boolpool/server/consensus"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// SyncReport counts what Sync did.
type SyncReport struct {
	Queries int `json:"queries"` // queries with atoms
	Uses    int `json:"uses"`    // atom uses in those queries
	Linked  int `json:"linked"`  // uses (re)linked now (new or changed text)
	Created int `json:"created"` // atoms created
}

// Sync links every atom of the project's queries to a shared atom by
// normalised text. Links whose query text is unchanged are kept, so a
// researcher's merges and splits survive; new or edited atoms are linked
// by key (Normalise of their text).
func Sync(ctx context.Context, st *store.Store, projectID int64) (SyncReport, error) {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return SyncReport{}, err
	}
	have := map[[2]int64]string{}
	for _, l := range links {
		have[[2]int64{l.QueryID, int64(l.AtomIndex)}] = l.UseText
	}
	qs, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return SyncReport{}, err
	}
	var rep SyncReport
	var add []store.NewAtomLink
	keep := map[int64]int{}
	for _, q := range qs {
		keep[q.ID] = len(q.Atoms)
		if len(q.Atoms) == 0 {
			continue
		}
		rep.Queries++
		for i, a := range q.Atoms {
			rep.Uses++
			if t, ok := have[[2]int64{q.ID, int64(i)}]; ok && t == a.Text {
				continue
			}
			k := Normalise(a.Text)
			if k == "" {
				return SyncReport{}, fmt.Errorf("atoms: query %q atom %d: empty text", q.ExtID, i)
			}
			add = append(add, store.NewAtomLink{QueryID: q.ID, AtomIndex: i, Key: k, Text: a.Text})
		}
	}
	rep.Linked = len(add)
	rep.Created, err = st.LinkAtoms(ctx, projectID, add, keep)
	return rep, err
}

// LoadQueries returns the project's queries with an expression as the
// derivation sees them (atom keys from the stored links; run Sync first).
func LoadQueries(ctx context.Context, st *store.Store, projectID int64) ([]Query, error) {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	keys := map[int64][]string{}
	for _, l := range links {
		ks := keys[l.QueryID]
		for len(ks) <= l.AtomIndex {
			ks = append(ks, "")
		}
		ks[l.AtomIndex] = l.Key
		keys[l.QueryID] = ks
	}
	qs, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return nil, err
	}
	var out []Query
	for _, q := range qs {
		if len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
			continue
		}
		var e boolexpr.Expr
		if err := json.Unmarshal(q.Expression, &e); err != nil {
			return nil, fmt.Errorf("atoms: query %q expression: %w", q.ExtID, err)
		}
		ks := keys[q.ID]
		if len(ks) != len(q.Atoms) {
			return nil, fmt.Errorf("atoms: query %q has %d atoms but %d links (run the atom sync)", q.ExtID, len(q.Atoms), len(ks))
		}
		out = append(out, Query{ID: q.ExtID, Expr: &e, Atoms: ks})
	}
	return out, nil
}

// LoadLabels returns the project's atom labels.
func LoadLabels(ctx context.Context, st *store.Store, projectID int64) (Labels, error) {
	ls, err := st.AtomLabels(ctx, projectID)
	if err != nil {
		return nil, err
	}
	out := Labels{}
	for _, l := range ls {
		t, err := boolexpr.TruthFromLabel(l.Label)
		if err != nil {
			return nil, err
		}
		out.Set(l.Key, l.DocExtID, t)
	}
	return out, nil
}

// GenerateVariants stores the Boolean variants of every non-variant query
// with an expression as new queries (ext id "<source>~<code>", e.g.
// "q7~B&!A"), marked variant_of their source and linked to the source's
// atoms, so their qrels derive from the same atom labels. Re-running
// updates them in place. It returns how many variants were written.
func GenerateVariants(ctx context.Context, st *store.Store, projectID int64) (int, error) {
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return 0, err
	}
	atomIDs := map[int64][]int64{}
	for _, l := range links {
		ids := atomIDs[l.QueryID]
		for len(ids) <= l.AtomIndex {
			ids = append(ids, 0)
		}
		ids[l.AtomIndex] = l.AtomID
		atomIDs[l.QueryID] = ids
	}
	sources, err := st.VariantSources(ctx, projectID)
	if err != nil {
		return 0, err
	}
	qs, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return 0, err
	}
	var out []store.VariantIn
	for _, q := range qs {
		if _, isVariant := sources[q.ID]; isVariant || len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
			continue
		}
		var e boolexpr.Expr
		if err := json.Unmarshal(q.Expression, &e); err != nil {
			return 0, fmt.Errorf("atoms: query %q expression: %w", q.ExtID, err)
		}
		if len(atomIDs[q.ID]) != len(q.Atoms) {
			return 0, fmt.Errorf("atoms: query %q has %d atoms but %d links (run the atom sync)", q.ExtID, len(q.Atoms), len(atomIDs[q.ID]))
		}
		texts := make([]string, len(q.Atoms))
		for i, a := range q.Atoms {
			texts[i] = a.Text
		}
		vs, err := Variants(&e, texts)
		if err != nil {
			return 0, fmt.Errorf("atoms: query %q: %w", q.ExtID, err)
		}
		for _, v := range vs {
			in, err := variantQuery(q, v, texts)
			if err != nil {
				return 0, err
			}
			out = append(out, store.VariantIn{SourceID: q.ID, Query: in, AtomIDs: atomIDs[q.ID]})
		}
	}
	if _, err := st.InsertVariants(ctx, projectID, out); err != nil {
		return 0, err
	}
	return len(out), nil
}

// variantQuery builds the stored form of a variant of q: atoms keep the
// source's indexes (so the expression and the links stay aligned) with
// spans into the variant's marked text.
func variantQuery(q store.Query, v Variant, texts []string) (store.QueryIn, error) {
	expr, err := json.Marshal(v.Expr)
	if err != nil {
		return store.QueryIn{}, err
	}
	atoms := make([]store.Atom, len(texts))
	pos := 0
	parts := strings.Split(v.Template, "_")
	for slot, src := range v.Slots {
		pos += len(parts[slot])
		atoms[src] = store.Atom{Text: texts[src], Start: pos, End: pos + len(texts[src])}
		pos += len(texts[src])
	}
	md, err := json.Marshal(map[string]any{"template": v.Template, "variant_of": q.ExtID, "source_template": q.Template,
		"expression": v.Expr.String(), "domain": q.Domain})
	if err != nil {
		return store.QueryIn{}, err
	}
	return store.QueryIn{ExtID: q.ExtID + "~" + v.Code(), Text: v.Text, OriginalQuery: v.Marked, Template: v.Template,
		Domain: q.Domain, Split: q.Split, Atoms: atoms, Expression: expr, Metadata: md, Seq: q.Seq}, nil
}

// SimulateProject runs SimulateAtoms over a project's queries (of split, ""
// = all) with stored runs as candidates and oracle as the atom judge.
// Atoms are matched to the oracle by Normalise of their text (nothing is
// written). Gold is the project's positive qrels (relevance >= 1) where a
// query has any, else the oracle's set algebra.
func SimulateProject(ctx context.Context, st *store.Store, projectID int64, runNames []string, depth int, split string, oracle Oracle, budget int) (SimResult, error) {
	qs, err := st.ListQueries(ctx, projectID, split)
	if err != nil {
		return SimResult{}, err
	}
	var queries []Query
	for _, q := range qs {
		if len(q.Expression) == 0 || string(q.Expression) == "null" || len(q.Atoms) == 0 {
			continue
		}
		var e boolexpr.Expr
		if err := json.Unmarshal(q.Expression, &e); err != nil {
			return SimResult{}, fmt.Errorf("atoms: query %q expression: %w", q.ExtID, err)
		}
		keys := make([]string, len(q.Atoms))
		for i, a := range q.Atoms {
			keys[i] = Normalise(a.Text)
		}
		queries = append(queries, Query{ID: q.ExtID, Expr: &e, Atoms: keys})
	}
	if len(queries) == 0 {
		return SimResult{}, fmt.Errorf("atoms: no query with an expression and atoms in the project (split %q)", split)
	}
	gold, err := GoldFromOracle(queries, oracle)
	if err != nil {
		return SimResult{}, err
	}
	stored := map[string]bool{} // queries whose gold comes from the qrels
	err = st.EachQrel(ctx, projectID, "positive", "", func(r store.Qrel) error {
		if _, ok := gold[r.QueryExtID]; !ok || r.Relevance < 1 {
			return nil
		}
		if !stored[r.QueryExtID] {
			stored[r.QueryExtID] = true
			gold[r.QueryExtID] = map[string]bool{}
		}
		gold[r.QueryExtID][r.DocExtID] = true
		return nil
	})
	if err != nil {
		return SimResult{}, err
	}
	runs := make([]pooling.Run, len(runNames))
	for i, n := range runNames {
		res, err := retrieval.LoadRun(ctx, st, projectID, n)
		if err != nil {
			return SimResult{}, err
		}
		lists := make(map[string][]string, len(res))
		for q, rs := range res {
			docs := make([]string, len(rs))
			for j, r := range rs {
				docs[j] = r.DocID
			}
			lists[q] = docs
		}
		runs[i] = pooling.Run{Name: n, Lists: lists}
	}
	return SimulateAtoms(SimInput{Queries: queries, Runs: runs, Depth: depth, Oracle: oracle, Gold: gold, Budget: budget})
}

// ProjectInconsistencies loads the project's atom queries, atom labels and
// direct (majority consensus) labels and returns the consistency flags.
func ProjectInconsistencies(ctx context.Context, st *store.Store, projectID int64) ([]Flag, error) {
	qs, err := LoadQueries(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	labels, err := LoadLabels(ctx, st, projectID)
	if err != nil {
		return nil, err
	}
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return nil, err
	}
	direct := map[string]map[string]bool{}
	err = st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if direct[r.QueryExtID] == nil {
			direct[r.QueryExtID] = map[string]bool{}
		}
		direct[r.QueryExtID][r.DocExtID] = r.Relevance >= consensus.RelevantThreshold
		return nil
	})
	if err != nil {
		return nil, err
	}
	all, err := st.ListQueries(ctx, projectID, "")
	if err != nil {
		return nil, err
	}
	texts := map[string]string{}
	for _, q := range all {
		texts[q.ExtID] = q.Text
	}
	links, err := st.AtomLinks(ctx, projectID)
	if err != nil {
		return nil, err
	}
	atomTexts := map[string]string{}
	for _, l := range links {
		atomTexts[l.Key] = l.AtomText
	}
	return Inconsistencies(qs, texts, atomTexts, labels, direct)
}
