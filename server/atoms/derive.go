package atoms

import (
	"fmt"
	"sort"

	"boolpool/server/boolexpr"
	"boolpool/server/vocab"
)

// Labels holds atom labels: atom key → document → truth (True = satisfies,
// False = does not, Unknown = judged unsure). A document missing for an atom
// is unjudged, which Derive treats as Unknown (or False under ClosedWorld).
type Labels map[string]map[string]boolexpr.Truth

// Set records one label.
func (l Labels) Set(atom, doc string, t boolexpr.Truth) {
	m := l[atom]
	if m == nil {
		m = map[string]boolexpr.Truth{}
		l[atom] = m
	}
	m[doc] = t
}

// Get returns the label of (atom, doc) and whether one is recorded.
func (l Labels) Get(atom, doc string) (boolexpr.Truth, bool) {
	t, ok := l[atom][doc]
	return t, ok
}

// Query is one query as the derivation sees it: its expression over atom
// indices and, for each index, the key of its shared atom.
type Query struct {
	ID    string
	Expr  *boolexpr.Expr
	Atoms []string // atom keys by index
}

// Validate checks that the expression uses exactly the atom indices given.
func (q Query) Validate() error {
	if q.Expr == nil {
		return fmt.Errorf("atoms: query %q has no expression", q.ID)
	}
	if err := q.Expr.Validate(len(q.Atoms)); err != nil {
		return fmt.Errorf("atoms: query %q: %w", q.ID, err)
	}
	return nil
}

// Derive returns the query's three-valued label for doc from its atoms'
// labels under the expression (Kleene logic: an unsure or unjudged atom
// makes the result Unknown only when it could change it). With closedWorld
// an unjudged atom counts as False (an oracle file that lists only the
// satisfied pairs); an explicit Unknown label stays Unknown.
func Derive(q Query, l Labels, doc string, closedWorld bool) boolexpr.Truth {
	vals := make([]boolexpr.Truth, len(q.Atoms))
	for i, a := range q.Atoms {
		t, ok := l.Get(a, doc)
		if !ok && closedWorld {
			t = boolexpr.False
		}
		vals[i] = t
	}
	return q.Expr.Eval3(vals)
}

// Source says where a qrel's label comes from.
type Source string

// Sources of a qrel.
const (
	Derived Source = vocab.QrelsDerived // only from the atoms' labels
	Direct  Source = vocab.QrelsDirect  // only from a judgment of the whole (query, document)
	Both    Source = vocab.QrelsBoth    // both known and they agree
)

// Qrel is one query's label for one document with its provenance.
type Qrel struct {
	Query   string         `json:"query"`
	Doc     string         `json:"doc"`
	Label   boolexpr.Truth `json:"-"`
	Source  Source         `json:"source"`
	Derived boolexpr.Truth `json:"-"`
	// Conflict: the direct judgment and the derived label are both known
	// and disagree; Label then follows the direct judgment.
	Conflict bool `json:"conflict,omitempty"`
}

// Relevant reports whether the label is True.
func (q Qrel) Relevant() bool { return q.Label == boolexpr.True }

// DeriveQrels returns the query's qrels over every document that has a
// label for one of its atoms or a direct judgment (direct: doc → relevant),
// sorted by document. A direct judgment decides the label; a derived label
// fills in documents without one; Unknown derived labels are kept (Label
// Unknown) so callers can count what is still open.
func DeriveQrels(q Query, l Labels, direct map[string]bool, closedWorld bool) ([]Qrel, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	docs := map[string]bool{}
	for _, a := range q.Atoms {
		for d := range l[a] {
			docs[d] = true
		}
	}
	for d := range direct {
		docs[d] = true
	}
	ids := make([]string, 0, len(docs))
	for d := range docs {
		ids = append(ids, d)
	}
	sort.Strings(ids)
	out := make([]Qrel, 0, len(ids))
	for _, d := range ids {
		der := Derive(q, l, d, closedWorld)
		r := Qrel{Query: q.ID, Doc: d, Derived: der, Label: der, Source: Derived}
		if rel, ok := direct[d]; ok {
			dt := boolexpr.False
			if rel {
				dt = boolexpr.True
			}
			r.Label = dt
			r.Source = Direct
			switch {
			case der == dt:
				r.Source = Both
			case der != boolexpr.Unknown:
				r.Conflict = true
			}
		}
		out = append(out, r)
	}
	return out, nil
}
