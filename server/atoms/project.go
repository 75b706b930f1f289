package atoms

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"boolpool/server/boolexpr"
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
