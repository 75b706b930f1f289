// Package boolexpr is boolpool's Boolean query model: an expression tree over
// atomic constraints (atoms) combined with AND, OR and NOT, as used by QUEST
// and BoolQuestions queries. It imports nothing heavy, so the browser (wasm)
// build can use it too.
package boolexpr

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
