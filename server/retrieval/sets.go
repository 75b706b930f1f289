package retrieval

import (
	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
)

// Sorted document-number sets, for strict Boolean evaluation.

func differenceSorted(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}

// evalSorted evaluates e by set algebra over sorted document numbers; a NOT
// inside an AND is a difference, anywhere else a complement in [0, n).
func evalSorted(e *boolexpr.Expr, sets [][]uint32, n int) []uint32 {
	switch e.Op {
	case boolexpr.OpAtom:
		return sets[e.Atom]
	case boolexpr.OpOr:
		var out []uint32
		for _, a := range e.Args {
			out = lexical.UnionSorted(out, evalSorted(a, sets, n))
		}
		return out
	case boolexpr.OpAnd:
		var out []uint32
		first := true
		var negs []*boolexpr.Expr
		for _, a := range e.Args {
			if a.Op == boolexpr.OpNot {
				negs = append(negs, a.Args[0])
				continue
			}
			s := evalSorted(a, sets, n)
			if first {
				out, first = s, false
			} else {
				out = lexical.IntersectSorted(out, s)
			}
		}
		if first {
			out = universe(n)
		}
		for _, ng := range negs {
			out = differenceSorted(out, evalSorted(ng, sets, n))
		}
		return out
	case boolexpr.OpNot:
		return differenceSorted(universe(n), evalSorted(e.Args[0], sets, n))
	}
	return nil
}

func universe(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}
