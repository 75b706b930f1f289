package boolexpr

import "fmt"

// Eval evaluates e by set algebra. sets[i] holds the ids of the documents
// that satisfy atom i; universe is the whole collection, needed only where a
// NOT cannot be applied as a difference inside an AND (e.g. a bare "NOT A"
// or "A OR NOT B"); it may be nil otherwise. The result is a new set.
func (e *Expr) Eval(sets []map[string]bool, universe map[string]bool) (map[string]bool, error) {
	if err := e.Validate(len(sets)); err != nil {
		return nil, err
	}
	return e.eval(sets, universe)
}

func (e *Expr) eval(sets []map[string]bool, universe map[string]bool) (map[string]bool, error) {
	switch e.Op {
	case OpAtom:
		return copySet(sets[e.Atom]), nil
	case OpOr:
		out := map[string]bool{}
		for _, a := range e.Args {
			s, err := a.eval(sets, universe)
			if err != nil {
				return nil, err
			}
			for id := range s {
				out[id] = true
			}
		}
		return out, nil
	case OpAnd:
		// Intersect the positive arguments first, then subtract the negated
		// ones, so "A AND NOT B" never needs the universe.
		var out map[string]bool
		var negs []*Expr
		for _, a := range e.Args {
			if a.Op == OpNot {
				negs = append(negs, a.Args[0])
				continue
			}
			s, err := a.eval(sets, universe)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = s
				continue
			}
			for id := range out {
				if !s[id] {
					delete(out, id)
				}
			}
		}
		if out == nil {
			if universe == nil {
				return nil, fmt.Errorf("boolexpr: %s needs the universe (AND of negations only)", e)
			}
			out = copySet(universe)
		}
		for _, n := range negs {
			s, err := n.eval(sets, universe)
			if err != nil {
				return nil, err
			}
			for id := range s {
				delete(out, id)
			}
		}
		return out, nil
	case OpNot:
		if universe == nil {
			return nil, fmt.Errorf("boolexpr: %s needs the universe (NOT outside an AND)", e)
		}
		s, err := e.Args[0].eval(sets, universe)
		if err != nil {
			return nil, err
		}
		out := map[string]bool{}
		for id := range universe {
			if !s[id] {
				out[id] = true
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("boolexpr: unknown operator %q", e.Op)
}

func copySet(s map[string]bool) map[string]bool {
	out := make(map[string]bool, len(s))
	for id, ok := range s {
		if ok {
			out[id] = true
		}
	}
	return out
}

// ExplicitNegatives returns the documents that satisfy the positive part of
// e (see Positive) and also carry at least one negated atom: the documents a
// NOT query must push down (BoolQuestions' NegRecall). It is empty for
// queries without negation.
func (e *Expr) ExplicitNegatives(sets []map[string]bool, universe map[string]bool) (map[string]bool, error) {
	if err := e.Validate(len(sets)); err != nil {
		return nil, err
	}
	neg := e.NegatedAtoms()
	pos := e.Positive()
	if len(neg) == 0 || pos == nil {
		return map[string]bool{}, nil
	}
	p, err := pos.eval(sets, universe)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for id := range p {
		for _, i := range neg {
			if sets[i][id] {
				out[id] = true
				break
			}
		}
	}
	return out, nil
}

// EvalBool evaluates e for one document given whether it satisfies each
// atom. Indices out of range and malformed nodes count as false; call
// Validate first to catch them.
func (e *Expr) EvalBool(atomValues []bool) bool {
	if e == nil {
		return false
	}
	switch e.Op {
	case OpAtom:
		return e.Atom >= 0 && e.Atom < len(atomValues) && atomValues[e.Atom]
	case OpNot:
		return len(e.Args) == 1 && !e.Args[0].EvalBool(atomValues)
	case OpAnd:
		for _, a := range e.Args {
			if !a.EvalBool(atomValues) {
				return false
			}
		}
		return true
	case OpOr:
		for _, a := range e.Args {
			if a.EvalBool(atomValues) {
				return true
			}
		}
	}
	return false
}

// Truth is a three-valued (Kleene) truth value for per-atom judgments that
// may be unsure. The zero value is Unknown.
type Truth int8

// Truth values.
const (
	Unknown Truth = iota
	False
	True
)

func (t Truth) String() string {
	switch t {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

// TruthFromLabel maps a per-atom "satisfied" label (yes / no / unsure, as
// judges give it) to a Truth.
func TruthFromLabel(label string) (Truth, error) {
	switch label {
	case "yes", "Yes", "YES", "true":
		return True, nil
	case "no", "No", "NO", "false":
		return False, nil
	case "unsure", "Unsure", "UNSURE", "unknown", "":
		return Unknown, nil
	}
	return Unknown, fmt.Errorf("boolexpr: unknown satisfied label %q (want yes, no or unsure)", label)
}

func (t Truth) not() Truth {
	switch t {
	case True:
		return False
	case False:
		return True
	}
	return Unknown
}

// Eval3 evaluates e under Kleene's three-valued logic: an unsure atom makes
// the result unknown only when it could change the outcome. Missing indices
// count as Unknown.
func (e *Expr) Eval3(atomValues []Truth) Truth {
	if e == nil {
		return Unknown
	}
	switch e.Op {
	case OpAtom:
		if e.Atom >= 0 && e.Atom < len(atomValues) {
			return atomValues[e.Atom]
		}
		return Unknown
	case OpNot:
		if len(e.Args) != 1 {
			return Unknown
		}
		return e.Args[0].Eval3(atomValues).not()
	case OpAnd:
		return e.eval3Args(atomValues, False)
	case OpOr:
		return e.eval3Args(atomValues, True)
	}
	return Unknown
}

// eval3Args folds e's arguments for AND (decisive = False) or OR
// (decisive = True): one decisive argument decides; otherwise any unknown
// one makes the result unknown, and else it is the opposite of decisive.
func (e *Expr) eval3Args(atomValues []Truth, decisive Truth) Truth {
	out := decisive.not()
	for _, a := range e.Args {
		switch a.Eval3(atomValues) {
		case decisive:
			return decisive
		case Unknown:
			out = Unknown
		}
	}
	return out
}

// Contradicts reports whether a judgment's overall relevance (relevant =
// likely or definitely relevant) contradicts its own per-atom labels: the
// labels decide the expression (not Unknown) and the decision differs.
func (e *Expr) Contradicts(relevant bool, atomValues []Truth) bool {
	v := e.Eval3(atomValues)
	if v == Unknown {
		return false
	}
	return (v == True) != relevant
}
