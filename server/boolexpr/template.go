package boolexpr

import "fmt"

// QUEST's seven query templates, spelled exactly as in QUEST's
// metadata.template field.
const (
	TemplateSingle = "_"
	TemplateOr2    = "_ or _"
	TemplateOr3    = "_ or _ or _"
	TemplateAnd2   = "_ that are also _"
	TemplateAnd3   = "_ that are also both _ and _"
	TemplateNot    = "_ that are not _"
	TemplateAndNot = "_ that are also _ but not _"
)

// Templates returns QUEST's templates in a stable order (simplest first).
func Templates() []string {
	return []string{TemplateSingle, TemplateOr2, TemplateOr3, TemplateAnd2, TemplateAnd3, TemplateNot, TemplateAndNot}
}

// TemplateAtoms returns the number of atoms a QUEST template takes.
func TemplateAtoms(template string) (int, error) {
	switch template {
	case TemplateSingle:
		return 1, nil
	case TemplateOr2, TemplateAnd2, TemplateNot:
		return 2, nil
	case TemplateOr3, TemplateAnd3, TemplateAndNot:
		return 3, nil
	}
	return 0, fmt.Errorf("boolexpr: unknown template %q", template)
}

// FromTemplate builds the expression of a QUEST template over atoms 0..n-1,
// with the shapes DebQUEST's expression_tree uses: "_ that are also both _
// and _" is a flat A AND B AND C, and "_ that are also _ but not _" is
// (A AND B) AND NOT C.
func FromTemplate(template string, nAtoms int) (*Expr, error) {
	want, err := TemplateAtoms(template)
	if err != nil {
		return nil, err
	}
	if nAtoms != want {
		return nil, fmt.Errorf("boolexpr: template %q takes %d atoms, got %d", template, want, nAtoms)
	}
	a, b, c := Atom(0), Atom(1), Atom(2)
	switch template {
	case TemplateSingle:
		return a, nil
	case TemplateOr2:
		return Or(a, b), nil
	case TemplateOr3:
		return Or(a, b, c), nil
	case TemplateAnd2:
		return And(a, b), nil
	case TemplateAnd3:
		return And(a, b, c), nil
	case TemplateNot:
		return And(a, Not(b)), nil
	default: // TemplateAndNot
		return And(And(a, b), Not(c)), nil
	}
}

// TemplateOf returns the QUEST template whose expression is e, the inverse
// of FromTemplate. Only the exact shapes FromTemplate builds match (atoms in
// order 0, 1, 2); anything else returns ok == false.
func TemplateOf(e *Expr) (template string, ok bool) {
	for _, t := range Templates() {
		n, _ := TemplateAtoms(t)
		x, _ := FromTemplate(t, n)
		if Equal(x, e) {
			return t, true
		}
	}
	return "", false
}

// Template is TemplateOf as a method.
func (e *Expr) Template() (string, bool) { return TemplateOf(e) }
