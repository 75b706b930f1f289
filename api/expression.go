package api

import (
	"fmt"
	"strings"

	"boolpool/server/boolexpr"
)

// MaxAtoms bounds the atoms of a corrected query expression.
const MaxAtoms = 26

// MaxAtomBytes bounds one atom's text, and MaxExpressionBytes the
// expression's (a constraint is a phrase of the query, not a document).
const (
	MaxAtomBytes       = 500
	MaxExpressionBytes = 4000
)

// ExpressionError names the request field that is wrong and why.
type ExpressionError struct {
	Field  string
	Reason string
}

func (e *ExpressionError) Error() string { return e.Field + ": " + e.Reason }

func exprErr(field, format string, args ...any) *ExpressionError {
	return &ExpressionError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// ParseExpressionRequest validates a corrected decomposition and returns
// the expression and its atom texts (trimmed). The server and the editor's
// live validation share it, so both report the same field and reason.
// Every atom must be used by the expression.
func ParseExpressionRequest(r ExpressionRequest) (*boolexpr.Expr, []string, *ExpressionError) {
	hasTree := len(r.Tree) > 0 && strings.TrimSpace(string(r.Tree)) != "null"
	text := strings.TrimSpace(r.Expression)
	var e *boolexpr.Expr
	atoms := make([]string, len(r.Atoms))
	for i, a := range r.Atoms {
		atoms[i] = strings.TrimSpace(a)
	}
	if len(text) > MaxExpressionBytes {
		return nil, nil, exprErr("expression", "%d bytes; at most %d", len(text), MaxExpressionBytes)
	}
	for i, a := range atoms {
		if len(a) > MaxAtomBytes {
			return nil, nil, exprErr(fmt.Sprintf("atoms[%d]", i), "%d bytes; a constraint is at most %d", len(a), MaxAtomBytes)
		}
	}
	switch {
	case hasTree && text != "":
		return nil, nil, exprErr("tree", "give either expression or tree, not both")
	case !hasTree && text == "":
		return nil, nil, exprErr("expression", "required, e.g. (A AND B) AND NOT C")
	case hasTree:
		if len(atoms) == 0 {
			return nil, nil, exprErr("atoms", "required with tree: one text per atom index")
		}
		x, err := boolexpr.ParseJSON(r.Tree, len(atoms))
		if err != nil {
			return nil, nil, exprErr("tree", "%s", reason(err))
		}
		e = x
	case strings.Contains(text, `"`):
		if len(atoms) > 0 {
			return nil, nil, exprErr("atoms", "must be empty when the expression quotes its atoms")
		}
		x, quoted, err := boolexpr.ParseWithAtoms(text)
		if err != nil {
			return nil, nil, exprErr("expression", "%s", reason(err))
		}
		e = x
		atoms = make([]string, len(quoted))
		for i, a := range quoted {
			atoms[i] = strings.TrimSpace(a)
		}
	default:
		x, err := boolexpr.Parse(text)
		if err != nil {
			return nil, nil, exprErr("expression", "%s", reason(err))
		}
		if len(atoms) == 0 {
			return nil, nil, exprErr("atoms", "required: one text for each letter A, B, … of the expression")
		}
		if err := x.Validate(len(atoms)); err != nil {
			max := 0
			for _, i := range x.AtomIndices() {
				if i > max {
					max = i
				}
			}
			return nil, nil, exprErr("expression", "uses atom %s but only %d atom texts are given", boolexpr.AtomName(max), len(atoms))
		}
		e = x
	}
	if len(atoms) > MaxAtoms {
		return nil, nil, exprErr("atoms", "%d atoms; at most %d", len(atoms), MaxAtoms)
	}
	used := map[int]bool{}
	for _, i := range e.AtomIndices() {
		used[i] = true
	}
	seen := map[string]int{}
	for i, a := range atoms {
		field := fmt.Sprintf("atoms[%d]", i)
		if a == "" {
			return nil, nil, exprErr(field, "empty text for atom %s", boolexpr.AtomName(i))
		}
		if len(a) > MaxAtomBytes {
			return nil, nil, exprErr(field, "%d bytes; a constraint is at most %d", len(a), MaxAtomBytes)
		}
		if j, ok := seen[strings.ToLower(a)]; ok {
			return nil, nil, exprErr(field, "same text as atom %s", boolexpr.AtomName(j))
		}
		seen[strings.ToLower(a)] = i
		if !used[i] {
			return nil, nil, exprErr(field, "atom %s (%q) is not used by the expression", boolexpr.AtomName(i), a)
		}
	}
	return e, atoms, nil
}

// reason drops the package prefix of a boolexpr error.
func reason(err error) string {
	return strings.TrimPrefix(err.Error(), "boolexpr: ")
}
