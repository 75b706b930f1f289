package export

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

// withStoredExpression makes a QUEST query line follow the query's stored
// decomposition when a researcher (or the decomposer) changed it after
// the import: original_query gets <mark> around the stored atoms that are
// phrases of it, and metadata gets the stored template, atoms and
// expression. An unchanged query is returned as it is, so QUEST files
// still round-trip byte for byte.
func withStoredExpression(q store.Query) (store.Query, error) {
	if len(q.Atoms) == 0 || q.OriginalQuery == "" {
		return q, nil
	}
	_, plain, err := boolexpr.ParseMarked(q.OriginalQuery)
	if err != nil {
		return q, nil // not ours to fix: exported as imported
	}
	marked := markAtoms(plain, q.Atoms)
	var md struct {
		Template *string `json:"template"`
	}
	if len(q.Metadata) > 0 {
		if err := json.Unmarshal(q.Metadata, &md); err != nil {
			return q, fmt.Errorf("export: query %s metadata: %w", q.ExtID, err)
		}
	}
	changed := marked != q.OriginalQuery
	if md.Template != nil {
		// The imported template's expression against the stored one (the
		// stored template can be "" when the expression fits none).
		if x, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms)); err == nil {
			if y, err := boolexpr.FromTemplate(*md.Template, len(q.Atoms)); err != nil || y.String() != x.String() {
				changed = true
			}
		}
	}
	if !changed {
		return q, nil
	}
	texts := make([]string, len(q.Atoms))
	for i, a := range q.Atoms {
		texts[i] = a.Text
	}
	set := map[string][]byte{"template": jsonValue(q.Template), "atoms": jsonValue(texts)}
	order := []string{"template", "atoms"}
	if x, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms)); err == nil {
		set["expression"] = jsonValue(x.String())
		order = append(order, "expression")
	}
	out, err := replaceKeys(q.Metadata, set, order)
	if err != nil {
		return q, fmt.Errorf("export: query %s metadata: %w", q.ExtID, err)
	}
	q.OriginalQuery, q.Metadata = marked, out
	return q, nil
}

// markAtoms puts <mark> around each atom's span in plain: its stored span
// when that still holds its text, else its first case-insensitive
// occurrence. Atoms that are not phrases of plain, and overlapping spans
// after the first, stay unmarked.
func markAtoms(plain string, atoms []store.Atom) string {
	type span struct{ start, end int }
	var spans []span
	lower := strings.ToLower(plain)
	for _, a := range atoms {
		switch {
		case a.Start >= 0 && a.Start < a.End && a.End <= len(plain) && strings.EqualFold(plain[a.Start:a.End], a.Text):
			spans = append(spans, span{a.Start, a.End})
		case a.Text != "" && len(lower) == len(plain):
			if i := strings.Index(lower, strings.ToLower(a.Text)); i >= 0 {
				spans = append(spans, span{i, i + len(a.Text)})
			}
		}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	pos := 0
	for _, s := range spans {
		if s.start < pos {
			continue
		}
		b.WriteString(plain[pos:s.start])
		b.WriteString("<mark>")
		b.WriteString(plain[s.start:s.end])
		b.WriteString("</mark>")
		pos = s.end
	}
	b.WriteString(plain[pos:])
	return b.String()
}
