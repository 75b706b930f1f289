package atoms

import (
	"boolpool/server/apperr"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// The query-expression editor's use case: a researcher's corrected
// decomposition of one query, checked against the query and its judged
// attributions, then saved (audited). The HTTP edge (PUT
// /api/queries/:id/expression) parses the request and calls SetExpression;
// a command can call it the same way.

// ExpressionEdit is a corrected decomposition: the expression over atom
// indices, one text per atom (trimmed), and whether to renumber judged
// attributions anyway.
type ExpressionEdit struct {
	Expr  *boolexpr.Expr
	Atoms []string
	Force bool
}

// SetExpression saves edit as q's decomposition by userID. Every atom must
// be a phrase of the query (an apperr.Invalid naming atoms[i]); atoms that
// would renumber the atoms judged attributions refer to are refused (409
// on atoms) unless edit.Force, and the renumbering is then recorded in the
// audit log. It returns the stored query and, when the expression changed,
// how many judgments carry attributions whose flags may now be stale.
func SetExpression(ctx context.Context, st *store.Store, userID int64, q store.Query, edit ExpressionEdit) (store.Query, int, error) {
	e, texts := edit.Expr, edit.Atoms
	for i, t := range texts {
		if !atomInQuery(q, t) {
			return q, 0, apperr.Invalidf(fmt.Sprintf("atoms[%d]", i), "%q is not a phrase of the query (%q): a constraint must occur in the query text or reuse at least half of its words",
				apperr.Clip(t, 80), apperr.Clip(q.Text, 200))
		}
	}
	template, _ := boolexpr.TemplateOf(e)
	spans := make([]store.Atom, len(texts))
	for i, t := range texts {
		spans[i] = atomSpan(q, t)
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return q, 0, fmt.Errorf("atoms: encode expression: %w", err)
	}
	up := store.ExpressionUpdate{QueryID: q.ID, Template: template, Atoms: spans, Expression: raw}
	attributed := -1 // not counted yet
	countAttributed := func() (int, error) {
		if attributed < 0 {
			n, err := st.AttributedJudgments(ctx, q.ID)
			if err != nil {
				return 0, err
			}
			attributed = n
		}
		return attributed, nil
	}
	staleFlags := 0
	if old := StoredExpression(q); old != "" && old != e.String() {
		if staleFlags, err = countAttributed(); err != nil {
			return q, 0, err
		}
	}
	if renumbers(q.Atoms, texts) {
		n, err := countAttributed()
		if err != nil {
			return q, 0, err
		}
		if n > 0 && !edit.Force {
			return q, 0, apperr.Refusedf(apperr.ErrConflict, "atoms",
				"%s has %d judgments whose constraint labels are numbered by its atoms (%s); these atoms would renumber them. "+
					"Keep the existing atoms in their places and add new ones at the end, or save with force to renumber "+
					"(recorded in the audit log; the judgments keep their numbers)", q.ExtID, n, atomList(q.Atoms))
		}
		if n > 0 {
			up.Renumbered = renumbering(q.Atoms, texts, n)
		}
	}
	if err := st.SetQueryExpression(ctx, userID, up); err != nil {
		return q, 0, err
	}
	q, err = st.QueryByID(ctx, q.ID)
	return q, staleFlags, err
}

// StoredExpression is q's stored expression as text (A AND NOT B), "" when
// it has none or it does not parse over its atoms.
func StoredExpression(q store.Query) string {
	if len(q.Expression) == 0 || string(q.Expression) == "null" {
		return ""
	}
	e, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms))
	if err != nil {
		return ""
	}
	return e.String()
}

// renumbers reports whether the new atom texts move or drop an existing
// atom: judgments' attributions refer to atoms by index, so an index must
// keep its text (new atoms may only be added at the end).
func renumbers(old []store.Atom, texts []string) bool {
	for i, a := range old {
		if i >= len(texts) || !strings.EqualFold(strings.TrimSpace(a.Text), texts[i]) {
			return true
		}
	}
	return false
}

// renumbering maps each old atom index to its new one (-1: dropped).
func renumbering(old []store.Atom, texts []string, judgments int) *store.Renumbering {
	r := &store.Renumbering{Judgments: judgments}
	for _, a := range old {
		r.OldAtoms = append(r.OldAtoms, a.Text)
		to := -1
		for j, t := range texts {
			if strings.EqualFold(strings.TrimSpace(a.Text), t) {
				to = j
				break
			}
		}
		r.NewIndex = append(r.NewIndex, to)
	}
	return r
}

// atomList names a query's atoms as the editor does: A = "…", B = "…".
func atomList(atoms []store.Atom) string {
	parts := make([]string, len(atoms))
	for i, a := range atoms {
		parts[i] = fmt.Sprintf("%s = %q", boolexpr.AtomName(i), apperr.Clip(a.Text, 60))
	}
	return strings.Join(parts, ", ")
}

// atomInQuery reports whether an atom's text is a phrase of the query: it
// occurs in the query text or its marked original (ignoring case), or at
// least half of its words are words of the query (the decomposer shares a
// head noun between conjuncts and writes demonyms: "Serbian horror films"
// for "Horror films from Serbia").
func atomInQuery(q store.Query, text string) bool {
	lt := strings.ToLower(text)
	_, original, _ := boolexpr.ParseMarked(q.OriginalQuery)
	hay := strings.ToLower(q.Text + "\n" + original)
	if strings.Contains(hay, lt) {
		return true
	}
	known := map[string]bool{}
	for _, w := range queryWords(hay) {
		known[w] = true
	}
	words := queryWords(lt)
	hit := 0
	for _, w := range words {
		if known[w] {
			hit++
		}
	}
	return len(words) > 0 && 2*hit >= len(words)
}

// queryWords splits lower-cased text into words (letters and digits).
func queryWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// atomSpan keeps the span of an unchanged atom, else locates the text in
// the query (case-insensitively); an atom not in the text gets an empty
// span at 0.
func atomSpan(q store.Query, text string) store.Atom {
	for _, a := range q.Atoms {
		if a.Text == text {
			return a
		}
	}
	lt, lq := strings.ToLower(text), strings.ToLower(q.Text)
	if i := strings.Index(lq, lt); i >= 0 && len(lq) == len(q.Text) && len(lt) == len(text) {
		return store.Atom{Text: text, Start: i, End: i + len(text)}
	}
	return store.Atom{Text: text}
}
