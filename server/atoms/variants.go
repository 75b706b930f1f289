package atoms

import (
	"fmt"
	"strings"

	"boolpool/server/boolexpr"
)

// Variant is one Boolean variant of a query: another QUEST template over
// the same atoms (e.g. A AND NOT B beside A AND B), with its text.
type Variant struct {
	Template string `json:"template"`
	// Slots gives, for each "_" of the template in order, the source
	// query's atom index placed there.
	Slots []int `json:"slots"`
	// Expr is the variant's expression over the source's atom indices.
	Expr *boolexpr.Expr `json:"expression"`
	// Text is the template filled with the atom texts; Marked the same
	// with every atom in <mark>…</mark> (QUEST's original_query).
	Text   string `json:"text"`
	Marked string `json:"original_query"`
}

// Code is a short stable name of the variant's expression, e.g. "B&!A".
func (v Variant) Code() string { return code(v.Expr) }

func code(e *boolexpr.Expr) string {
	switch e.Op {
	case boolexpr.OpAtom:
		return boolexpr.AtomName(e.Atom)
	case boolexpr.OpNot:
		return "!" + code(e.Args[0])
	}
	sep := "&"
	if e.Op == boolexpr.OpOr {
		sep = "|"
	}
	parts := make([]string, len(e.Args))
	for i, a := range e.Args {
		parts[i] = code(a)
		if a.Op == boolexpr.OpAnd || a.Op == boolexpr.OpOr {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, sep)
}

// Variants returns the Boolean variants of the expression e over atoms with
// the given texts: every QUEST template that takes all of its atoms, with
// the atoms in every order, minus the expressions equivalent to e or to an
// earlier variant (truth tables are compared, so "A OR B" and "B OR A" are
// one variant). For A AND B they are A OR B, A AND NOT B and B AND NOT A;
// for A AND B AND C: A OR B OR C and the three (X AND Y) AND NOT Z. A
// single atom has none (NOT A is no QUEST template). The order is stable:
// templates in boolexpr.Templates order, then atom orders lexicographically.
func Variants(e *boolexpr.Expr, texts []string) ([]Variant, error) {
	n := len(texts)
	if err := e.Validate(n); err != nil {
		return nil, fmt.Errorf("atoms: variants: %w", err)
	}
	if got := len(e.AtomIndices()); got != n {
		return nil, fmt.Errorf("atoms: variants: expression uses %d of its %d atoms", got, n)
	}
	if n > 3 {
		return nil, nil // QUEST templates take at most three atoms
	}
	seen := map[uint]bool{truthTable(e, n): true}
	var out []Variant
	for _, t := range boolexpr.Templates() {
		k, _ := boolexpr.TemplateAtoms(t)
		if k != n {
			continue
		}
		base, err := boolexpr.FromTemplate(t, n)
		if err != nil {
			return nil, err
		}
		for _, p := range permutations(n) {
			x := remap(base, p)
			tt := truthTable(x, n)
			if seen[tt] {
				continue
			}
			seen[tt] = true
			text, marked := Render(t, p, texts)
			out = append(out, Variant{Template: t, Slots: p, Expr: x, Text: text, Marked: marked})
		}
	}
	return out, nil
}

// Render fills a QUEST template's "_" slots in order with texts[slots[i]]:
// the query text and the same with each atom in <mark>…</mark>.
func Render(template string, slots []int, texts []string) (text, marked string) {
	parts := strings.Split(template, "_")
	var t, m strings.Builder
	for i, p := range parts {
		t.WriteString(p)
		m.WriteString(p)
		if i < len(parts)-1 && i < len(slots) {
			t.WriteString(texts[slots[i]])
			m.WriteString("<mark>" + texts[slots[i]] + "</mark>")
		}
	}
	return t.String(), m.String()
}

// remap renames atom i of e to p[i].
func remap(e *boolexpr.Expr, p []int) *boolexpr.Expr {
	c := e.Clone()
	var walk func(x *boolexpr.Expr)
	walk = func(x *boolexpr.Expr) {
		if x.Op == boolexpr.OpAtom {
			x.Atom = p[x.Atom]
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(c)
	return c
}

// truthTable packs e's value on each of the 2^n atom assignments into bits.
func truthTable(e *boolexpr.Expr, n int) uint {
	var tt uint
	vals := make([]bool, n)
	for row := 0; row < 1<<n; row++ {
		for i := range vals {
			vals[i] = row&(1<<i) != 0
		}
		if e.EvalBool(vals) {
			tt |= 1 << row
		}
	}
	return tt
}

// permutations returns every order of 0..n-1, lexicographically.
func permutations(n int) [][]int {
	var out [][]int
	var rec func(prefix []int, used []bool)
	rec = func(prefix []int, used []bool) {
		if len(prefix) == n {
			out = append(out, append([]int(nil), prefix...))
			return
		}
		for i := 0; i < n; i++ {
			if !used[i] {
				used[i] = true
				rec(append(prefix, i), used)
				used[i] = false
			}
		}
	}
	rec(nil, make([]bool, n))
	return out
}
