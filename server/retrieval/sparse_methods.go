package retrieval

import (
	"context"
	"math"
	"sort"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
)

// The sparse linear-algebra methods (Krasakis, Yates & Kanoulas, "Constructing
// Set-Compositional and Negated Representations for First-Stage Ranking")
// compose one sparse query vector from the atoms' vectors and score it
// against the documents' BM25 weights (a lexical stand-in for a learned sparse
// encoder: with an unaltered query vector the score is exactly BM25).
// Operators: AND = sum (or Combined Pseudo-Terms), OR = sum or MaxPool,
// A AND NOT B = A − λB or Disentangled Negation A − λB*, B* = B − 1_A ⊙ B.
// Each named method changes one operator from that baseline; every operator
// is a parameter of all three.

func sparseParams(union, negation string) []ParamSpec {
	return []ParamSpec{
		{Name: "union", Default: union, Doc: "OR of vectors: sum, or max (MaxPool: element-wise maximum)"},
		{Name: "negation", Default: negation, Doc: "A AND NOT B: plain = A − λB; disentangled = A − λB*, B* = B − 1_A ⊙ B (B without A's terms)"},
		{Name: "neg_weight", Default: "1", Doc: "λ, the weight of the negated vector"},
		qtfParam("an atom's text (the atoms' vectors are then composed by the operators: OR = sum adds a term shared by several atoms, union=max does not)"),
	}
}

var specSparseDN = Spec{
	Name:    "sparse-disentangled-negation",
	Plain:   "bm25",
	Summary: "sparse query algebra with Disentangled Negation A − λB*, B* = B − 1_A ⊙ B (AND = sum, OR = sum)",
	Needs:   NeedsLexical,
	Params:  sparseParams("sum", "disentangled"),
	build:   buildSparse("sparse-disentangled-negation", false),
}

var specSparseMax = Spec{
	Name:    "sparse-maxpool-union",
	Plain:   "bm25",
	Summary: "sparse query algebra with MaxPool union (element-wise max of the atom vectors; AND = sum, NOT = plain subtraction)",
	Needs:   NeedsLexical,
	Params:  sparseParams("max", "plain"),
	build:   buildSparse("sparse-maxpool-union", false),
}

var specSparseCPT = Spec{
	Name:  "sparse-cpt",
	Plain: "bm25",
	Summary: "Combined Pseudo-Terms for intersection: pseudo-terms (i,j) from the outer product of the conjuncts' vectors, " +
		"w = sqrt(wA_i·wB_j), the top ones re-rank the candidates of the summed query (a document has (i,j) when it has both terms, " +
		"weight sqrt(wd_i·wd_j)); OR = sum, NOT = plain subtraction",
	Needs: NeedsLexical,
	Params: append(sparseParams("sum", "plain"),
		ParamSpec{Name: "cpt_terms", Default: "5", Doc: "number of combined pseudo-terms kept (highest w)"},
		ParamSpec{Name: "cpt_weight", Default: "1", Doc: "weight of the pseudo-term score added to the base score"},
		ParamSpec{Name: "rerank_depth", Default: "1000", Doc: "candidates of the base (summed) query that are re-ranked"},
	),
	build: buildSparse("sparse-cpt", true),
}

// SparseOptions selects the operators of the sparse query algebra.
type SparseOptions struct {
	MaxUnion     bool
	Disentangled bool
	NegWeight    float64
}

func buildSparse(name string, cpt bool) func(p Params, d Deps) (Method, error) {
	return func(p Params, d Deps) (Method, error) {
		u, err := p.choice("union", "sum", "max")
		if err != nil {
			return nil, err
		}
		n, err := p.choice("negation", "plain", "disentangled")
		if err != nil {
			return nil, err
		}
		w, err := p.float("neg_weight")
		if err != nil {
			return nil, err
		}
		unique, err := uniqueQTF(p)
		if err != nil {
			return nil, err
		}
		m := &sparseMethod{name: name, ix: d.Lexical, unique: unique, opt: SparseOptions{MaxUnion: u == "max", Disentangled: n == "disentangled", NegWeight: w}}
		if cpt {
			m.cpt = true
			if m.cptTerms, err = p.int("cpt_terms", 1); err != nil {
				return nil, err
			}
			if m.cptWeight, err = p.float("cpt_weight"); err != nil {
				return nil, err
			}
			if m.rerankDepth, err = p.int("rerank_depth", 1); err != nil {
				return nil, err
			}
		}
		return m, nil
	}
}

type sparseMethod struct {
	name        string
	ix          *lexical.Index
	unique      bool // qtf=unique: atom vectors weigh each term once
	opt         SparseOptions
	cpt         bool
	cptTerms    int
	cptWeight   float64
	rerankDepth int
}

func (m *sparseMethod) Name() string { return m.name }

// ComposeSparse builds the query vector of e from the atom vectors.
func ComposeSparse(e *boolexpr.Expr, vecs []lexical.Vec, opt SparseOptions) lexical.Vec {
	switch e.Op {
	case boolexpr.OpAtom:
		return vecs[e.Atom]
	case boolexpr.OpOr:
		out := ComposeSparse(e.Args[0], vecs, opt)
		for _, a := range e.Args[1:] {
			v := ComposeSparse(a, vecs, opt)
			if opt.MaxUnion {
				out = lexical.Max(out, v)
			} else {
				out = lexical.Add(out, v)
			}
		}
		return out
	case boolexpr.OpAnd:
		var pos lexical.Vec
		var negs []*boolexpr.Expr
		for _, a := range e.Args {
			if a.Op == boolexpr.OpNot {
				negs = append(negs, a.Args[0])
				continue
			}
			pos = lexical.Add(pos, ComposeSparse(a, vecs, opt))
		}
		for _, n := range negs {
			b := ComposeSparse(n, vecs, opt)
			if opt.Disentangled {
				b = lexical.Disentangle(b, pos)
			}
			pos = lexical.Sub(pos, lexical.Scale(b, opt.NegWeight))
		}
		return pos
	case boolexpr.OpNot:
		return lexical.Scale(ComposeSparse(e.Args[0], vecs, opt), -opt.NegWeight)
	}
	return nil
}

// PseudoTerm is a Combined Pseudo-Term: the co-occurrence of two terms.
type PseudoTerm struct {
	A, B   lexical.TermID
	Weight float64
}

// CombinedPseudoTerms returns the n heaviest pseudo-terms of the
// intersections in e: for every AND, every pair of its positive conjuncts
// (composed with opt) contributes the outer product of their positive
// weights, w = sqrt(wA_i · wB_j), i ≠ j.
func CombinedPseudoTerms(e *boolexpr.Expr, vecs []lexical.Vec, opt SparseOptions, n int) []PseudoTerm {
	best := map[[2]lexical.TermID]float64{}
	var walk func(x *boolexpr.Expr)
	walk = func(x *boolexpr.Expr) {
		for _, a := range x.Args {
			walk(a)
		}
		if x.Op != boolexpr.OpAnd {
			return
		}
		var parts []lexical.Vec
		for _, a := range x.Args {
			if a.Op != boolexpr.OpNot {
				parts = append(parts, ComposeSparse(a, vecs, opt))
			}
		}
		for i := 0; i < len(parts); i++ {
			for j := i + 1; j < len(parts); j++ {
				for _, ti := range parts[i] {
					for _, tj := range parts[j] {
						if ti.Term == tj.Term || ti.Weight <= 0 || tj.Weight <= 0 {
							continue
						}
						key := [2]lexical.TermID{min(ti.Term, tj.Term), max(ti.Term, tj.Term)}
						best[key] = math.Max(best[key], math.Sqrt(ti.Weight*tj.Weight))
					}
				}
			}
		}
	}
	walk(e)
	out := make([]PseudoTerm, 0, len(best))
	for k, w := range best {
		out = append(out, PseudoTerm{A: k[0], B: k[1], Weight: w})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Weight != out[j].Weight {
			return out[i].Weight > out[j].Weight
		}
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func (m *sparseMethod) Retrieve(_ context.Context, q Query, k int) ([]Result, error) {
	expr, atoms := q.Expression()
	vecs := atomVectors(m.ix, atoms, m.unique)
	v := ComposeSparse(expr, vecs, m.opt)
	if !m.cpt {
		return hitsToResults(m.ix, m.ix.Search(v, k)), nil
	}
	pts := CombinedPseudoTerms(expr, vecs, m.opt, m.cptTerms)
	cands := m.ix.Search(v, max(m.rerankDepth, k))
	if len(pts) == 0 {
		return hitsToResults(m.ix, m.ix.TopK(cands, k)), nil
	}
	for i, h := range cands {
		var extra float64
		for _, pt := range pts {
			wa, wb := m.ix.DocWeight(pt.A, h.Doc), m.ix.DocWeight(pt.B, h.Doc)
			if wa > 0 && wb > 0 {
				extra += pt.Weight * math.Sqrt(wa*wb)
			}
		}
		cands[i].Score += m.cptWeight * extra
	}
	return hitsToResults(m.ix, m.ix.TopK(cands, k)), nil
}
