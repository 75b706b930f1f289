// Package boolexpr is boolpool's Boolean query model: an expression tree over
// atomic constraints (atoms) combined with AND, OR and NOT, as used by QUEST
// and BoolQuestions queries. It imports nothing heavy, so the browser (wasm)
// build can use it too.
package boolexpr

import (
	"fmt"
	"sort"
)

// Op is the operator of an expression node.
type Op string

// Operators. An OpAtom node is a leaf naming one atom of its query by index.
const (
	OpAtom Op = "ATOM"
	OpAnd  Op = "AND"
	OpOr   Op = "OR"
	OpNot  Op = "NOT"
)

// Expr is one node of a Boolean expression tree.
//
// JSON form: a leaf is {"op":"ATOM","atom":0}; an inner node is
// {"op":"AND","args":[...]}. NOT has exactly one argument; AND and OR have two
// or more.
type Expr struct {
	Op   Op      `json:"op"`
	Atom int     `json:"atom"`
	Args []*Expr `json:"args,omitempty"`
}

// Atom returns a leaf for atom index i.
func Atom(i int) *Expr { return &Expr{Op: OpAtom, Atom: i} }

// And returns the conjunction of args.
func And(args ...*Expr) *Expr { return &Expr{Op: OpAnd, Args: args} }

// Or returns the disjunction of args.
func Or(args ...*Expr) *Expr { return &Expr{Op: OpOr, Args: args} }

// Not returns the negation of x.
func Not(x *Expr) *Expr { return &Expr{Op: OpNot, Args: []*Expr{x}} }

// Validate checks the tree's shape: known operators, NOT with exactly one
// argument, AND/OR with at least two, leaves without arguments, and atom
// indices in [0, nAtoms). A negative nAtoms skips the range check (only
// indices < 0 are rejected).
func (e *Expr) Validate(nAtoms int) error {
	return e.validate(nAtoms, "expr")
}

func (e *Expr) validate(nAtoms int, path string) error {
	if e == nil {
		return fmt.Errorf("boolexpr: %s: nil node", path)
	}
	switch e.Op {
	case OpAtom:
		if len(e.Args) != 0 {
			return fmt.Errorf("boolexpr: %s: ATOM node has %d arguments, want none", path, len(e.Args))
		}
		if e.Atom < 0 {
			return fmt.Errorf("boolexpr: %s: atom index %d is negative", path, e.Atom)
		}
		if nAtoms >= 0 && e.Atom >= nAtoms {
			return fmt.Errorf("boolexpr: %s: atom index %d out of range (query has %d atoms)", path, e.Atom, nAtoms)
		}
		return nil
	case OpNot:
		if len(e.Args) != 1 {
			return fmt.Errorf("boolexpr: %s: NOT has %d arguments, want exactly 1", path, len(e.Args))
		}
	case OpAnd, OpOr:
		if len(e.Args) < 2 {
			return fmt.Errorf("boolexpr: %s: %s has %d arguments, want at least 2", path, e.Op, len(e.Args))
		}
	default:
		return fmt.Errorf("boolexpr: %s: unknown operator %q", path, e.Op)
	}
	for i, a := range e.Args {
		if err := a.validate(nAtoms, fmt.Sprintf("%s.args[%d]", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns a deep copy of e.
func (e *Expr) Clone() *Expr {
	if e == nil {
		return nil
	}
	c := &Expr{Op: e.Op, Atom: e.Atom}
	if e.Args != nil {
		c.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = a.Clone()
		}
	}
	return c
}

// Equal reports whether a and b are the same tree (argument order matters).
func Equal(a, b *Expr) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Op != b.Op || len(a.Args) != len(b.Args) {
		return false
	}
	if a.Op == OpAtom {
		return a.Atom == b.Atom
	}
	for i := range a.Args {
		if !Equal(a.Args[i], b.Args[i]) {
			return false
		}
	}
	return true
}

// AtomIndices returns the distinct atom indices used by e, in ascending order.
func (e *Expr) AtomIndices() []int {
	seen := map[int]bool{}
	e.walk(func(n *Expr, _ int) {
		if n.Op == OpAtom {
			seen[n.Atom] = true
		}
	}, 0)
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

// walk visits every node with the number of NOTs above it.
func (e *Expr) walk(f func(n *Expr, nots int), nots int) {
	if e == nil {
		return
	}
	f(e, nots)
	if e.Op == OpNot {
		nots++
	}
	for _, a := range e.Args {
		a.walk(f, nots)
	}
}

// Negated reports whether atom i occurs under an odd number of NOTs, i.e.
// documents carrying it count against the query.
func (e *Expr) Negated(i int) bool {
	neg := false
	e.walk(func(n *Expr, nots int) {
		if n.Op == OpAtom && n.Atom == i && nots%2 == 1 {
			neg = true
		}
	}, 0)
	return neg
}

// NegatedAtoms returns the indices of the negated atoms (see Negated), in
// ascending order.
func (e *Expr) NegatedAtoms() []int {
	var out []int
	for _, i := range e.AtomIndices() {
		if e.Negated(i) {
			out = append(out, i)
		}
	}
	return out
}

// Positive returns the positive part of e: e with every NOT argument of an
// AND removed, so "(A AND B) AND NOT C" gives "A AND B". An AND left with a
// single argument collapses to it. It returns nil when nothing positive is
// left (e.g. a bare "NOT A"). The explicit negatives of a NOT query are the
// documents that satisfy Positive and also carry a negated atom.
func (e *Expr) Positive() *Expr {
	if e == nil {
		return nil
	}
	switch e.Op {
	case OpNot:
		return nil
	case OpAnd:
		var args []*Expr
		for _, a := range e.Args {
			if p := a.Positive(); p != nil {
				args = append(args, p)
			}
		}
		switch len(args) {
		case 0:
			return nil
		case 1:
			return args[0]
		}
		return And(args...)
	}
	return e.Clone()
}

// HasNot reports whether e contains a NOT.
func (e *Expr) HasNot() bool {
	found := false
	e.walk(func(n *Expr, _ int) {
		if n.Op == OpNot {
			found = true
		}
	}, 0)
	return found
}
