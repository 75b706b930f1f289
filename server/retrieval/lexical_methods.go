package retrieval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
	"boolpool/server/topk"
)

var inf = math.Inf(1)

// qtfParam is the query-term weighting parameter of the BM25-based
// methods; scope says what "the query" is for the method.
func qtfParam(scope string) ParamSpec {
	return ParamSpec{Name: "qtf", Default: "count",
		Doc: "query-term weighting: count = a term weighs idf × the number of times it occurs in " + scope +
			" (Anserini's bag-of-words query; a repeated head word such as 'software' in '… software or … software' counts each time); " +
			"unique = idf once per distinct term"}
}

// uniqueQTF reads the qtf parameter: true for "unique".
func uniqueQTF(p Params) (bool, error) {
	v, err := p.choice("qtf", "count", "unique")
	return v == "unique", err
}

var specBM25 = Spec{
	Name:    "bm25",
	Summary: "Okapi BM25 over title + text with English stemming, the whole query text as a bag of words (k1, b fixed when the index is built: Anserini's 0.9 / 0.4)",
	Needs:   NeedsLexical,
	Params:  []ParamSpec{qtfParam("the query text")},
	build: func(p Params, d Deps) (Method, error) {
		unique, err := uniqueQTF(p)
		if err != nil {
			return nil, err
		}
		return &bm25Method{ix: d.Lexical, unique: unique}, nil
	},
}

type bm25Method struct {
	ix     *lexical.Index
	unique bool
}

func (m *bm25Method) Name() string { return "bm25" }

func (m *bm25Method) Retrieve(_ context.Context, q Query, k int) ([]Result, error) {
	v := m.ix.QueryVector(lexical.NewAnalyzer(), q.Text)
	if m.unique {
		v = m.ix.UniqueTerms(v)
	}
	return hitsToResults(m.ix, m.ix.Search(v, k)), nil
}

func hitsToResults(ix *lexical.Index, hits []lexical.Hit) []Result {
	out := make([]Result, len(hits))
	for i, h := range hits {
		out[i] = Result{DocID: ix.DocID(h.Doc), Score: h.Score}
	}
	return out
}

// atomVectors returns the BM25 query vector of every atom text (each
// atom's distinct terms weighted once when unique).
func atomVectors(ix *lexical.Index, atoms []string, unique bool) []lexical.Vec {
	a := lexical.NewAnalyzer()
	out := make([]lexical.Vec, len(atoms))
	for i, t := range atoms {
		out[i] = ix.QueryVector(a, t)
		if unique {
			out[i] = ix.UniqueTerms(out[i])
		}
	}
	return out
}

// positiveVector sums the vectors of the atoms that are not negated.
func positiveVector(e *boolexpr.Expr, vecs []lexical.Vec) lexical.Vec {
	var v lexical.Vec
	for _, i := range e.AtomIndices() {
		if !e.Negated(i) {
			v = lexical.Add(v, vecs[i])
		}
	}
	return v
}

var specStrict = Spec{
	Name:  "bm25-strict-boolean",
	Plain: "bm25 (the whole text as one atom)",
	Summary: "strict Boolean matching over the atoms (AND = all match, OR = any, NOT = exclude), " +
		"matches ranked by BM25 of the non-negated atoms' terms",
	Needs: NeedsLexical,
	Params: []ParamSpec{
		{Name: "atom_match", Default: "content",
			Doc: "when a document matches an atom: all = it contains every (stemmed, non-stop) term of the atom; any = at least one; " +
				"content = every content term, i.e. every term with document frequency <= max_df (generic heads such as 'software' or 'tools' are not required; if all terms are generic, the rarest one is)"},
		{Name: "max_df", Default: "0.02", Doc: "atom_match=content: the largest document frequency (share of the collection) of a required term"},
		qtfParam("the ranking query, the non-negated atoms' texts together"),
	},
	build: func(p Params, d Deps) (Method, error) {
		mode, err := p.choice("atom_match", "all", "any", "content")
		if err != nil {
			return nil, err
		}
		maxDF, err := p.float("max_df")
		if err != nil {
			return nil, err
		}
		unique, err := uniqueQTF(p)
		if err != nil {
			return nil, err
		}
		return &strictMethod{ix: d.Lexical, mode: mode, maxDF: maxDF, unique: unique}, nil
	},
}

type strictMethod struct {
	ix     *lexical.Index
	mode   string
	maxDF  float64
	unique bool // qtf=unique: the ranking vector weighs each term once
}

// required returns the terms of v a document must contain to match.
func (m *strictMethod) required(v lexical.Vec) []lexical.TermID {
	terms := v.Terms()
	if m.mode != "content" || len(terms) == 0 {
		return terms
	}
	limit := m.maxDF * float64(m.ix.NumDocs())
	var out []lexical.TermID
	rarest := terms[0]
	for _, t := range terms {
		if float64(m.ix.DF(t)) <= limit {
			out = append(out, t)
		}
		if m.ix.DF(t) < m.ix.DF(rarest) {
			rarest = t
		}
	}
	if len(out) == 0 {
		out = []lexical.TermID{rarest}
	}
	return out
}

func (m *strictMethod) Name() string { return "bm25-strict-boolean" }

// Matches returns the documents (numbers, ascending) that satisfy q.
func (m *strictMethod) Matches(q Query) ([]uint32, []lexical.Vec, *boolexpr.Expr) {
	expr, atoms := q.Expression()
	vecs := atomVectors(m.ix, atoms, false)
	sets := make([][]uint32, len(vecs))
	for i, v := range vecs {
		if m.mode == "any" {
			sets[i] = m.ix.DocsWithAny(v.Terms())
		} else {
			sets[i] = m.ix.DocsWithAll(m.required(v))
		}
	}
	return evalSorted(expr, sets, m.ix.NumDocs()), vecs, expr
}

func (m *strictMethod) Retrieve(_ context.Context, q Query, k int) ([]Result, error) {
	matched, vecs, expr := m.Matches(q)
	if len(matched) == 0 {
		return []Result{}, nil
	}
	in := make(map[uint32]bool, len(matched))
	for _, d := range matched {
		in[d] = true
	}
	rank := positiveVector(expr, vecs)
	if m.unique {
		rank = m.ix.UniqueTerms(rank)
	}
	hits := make([]lexical.Hit, 0, len(matched))
	for _, h := range m.ix.Match(rank) {
		if in[h.Doc] {
			hits = append(hits, h)
			delete(in, h.Doc)
		}
	}
	// Matches without any positive term (e.g. a bare NOT) score 0.
	for _, d := range matched {
		if in[d] {
			hits = append(hits, lexical.Hit{Doc: d})
		}
	}
	return hitsToResults(m.ix, m.ix.TopK(hits, k)), nil
}

var specPNorm = Spec{
	Name:  "pnorm",
	Plain: "bm25",
	Summary: "p-norm extended Boolean model (Salton, Fox & Wu 1983) over per-atom BM25 scores normalised to [0,1] " +
		"by the atom's best score: OR = (Σx^p/n)^(1/p), AND = 1 − (Σ(1−x)^p/n)^(1/p), NOT = 1 − x; " +
		"candidates are the documents matching a term of a non-negated atom",
	Needs: NeedsLexical,
	Params: []ParamSpec{{Name: "p", Default: "2",
		Doc: "the p of the p-norm, >= 1: 1 is vector-space-like averaging, inf is fuzzy-set min/max (strict Boolean on 0/1 scores)"},
		qtfParam("an atom's text")},
	build: func(p Params, d Deps) (Method, error) {
		pv, err := p.float("p")
		if err != nil {
			return nil, err
		}
		if pv < 1 {
			return nil, errorf("pnorm: p must be >= 1, got %v", pv)
		}
		unique, err := uniqueQTF(p)
		if err != nil {
			return nil, err
		}
		return &pnormMethod{ix: d.Lexical, p: pv, unique: unique}, nil
	},
}

type pnormMethod struct {
	ix      *lexical.Index
	p       float64
	unique  bool
	scratch sync.Pool // *pnormScratch
}

// pnormScratch is one query's working memory, reused: at MS MARCO size a
// query's atoms match millions of documents, and fresh arrays of that size
// per query (and a small one per candidate and operator) kept the
// collector busy scanning the index (issue 27).
type pnormScratch struct {
	matches [][]lexical.Hit // per atom, in document order
	best    []float64       // per atom: its best score
	negated []bool          // per atom
	pos     []int           // per atom: the merge's cursor
	x       []float64       // per atom: the candidate's normalised score
	hits    []lexical.Hit   // every candidate (k <= 0 only)
}

func (m *pnormMethod) Name() string { return "pnorm" }

// Retrieve scores the candidates document by document: each atom's
// matches come in document order (lexical.MatchSortedAppend), and one
// merge of the lists yields each candidate with its atoms' scores, offered
// to a top-k heap as it goes. Nothing the size of the collection is
// touched: before, each atom's postings were added into collection-sized
// arrays and the candidates numbered in another, a cache miss per posting
// at MS MARCO size (350 ms a query at 8.8M documents, session 12). The
// scores and the ranking are the same (TestPNormMatchesTermAtATime).
func (m *pnormMethod) Retrieve(_ context.Context, q Query, k int) ([]Result, error) {
	expr, atoms := q.Expression()
	vecs := atomVectors(m.ix, atoms, m.unique)
	sc, _ := m.scratch.Get().(*pnormScratch)
	if sc == nil {
		sc = &pnormScratch{}
	}
	defer m.scratch.Put(sc)
	na := len(vecs)
	for len(sc.matches) < na {
		sc.matches = append(sc.matches, nil)
	}
	matches := sc.matches[:na]
	sc.best = slices.Grow(sc.best[:0], na)[:na]
	sc.negated = slices.Grow(sc.negated[:0], na)[:na]
	sc.pos = slices.Grow(sc.pos[:0], na)[:na]
	sc.x = slices.Grow(sc.x[:0], na)[:na]
	best, negated, pos, x := sc.best, sc.negated, sc.pos, sc.x
	for i, v := range vecs {
		matches[i] = m.ix.MatchSortedAppend(matches[i][:0], v)
		b := 0.0
		for _, h := range matches[i] {
			if h.Score > b {
				b = h.Score
			}
		}
		best[i], negated[i], pos[i] = b, expr.Negated(i), 0
	}
	var heap *topk.Heap[lexical.Hit]
	if k > 0 {
		heap = topk.New(k, m.ix.Better)
	}
	all := sc.hits[:0]
	for {
		// The candidates are the documents matching a non-negated atom.
		next, found := uint32(0), false
		for i, ms := range matches {
			if p := pos[i]; !negated[i] && p < len(ms) && (!found || ms[p].Doc < next) {
				next, found = ms[p].Doc, true
			}
		}
		if !found {
			break
		}
		for i, ms := range matches {
			p := pos[i]
			for p < len(ms) && ms[p].Doc < next { // a negated atom's non-candidates
				p++
			}
			x[i] = 0
			if p < len(ms) && ms[p].Doc == next {
				if best[i] > 0 {
					x[i] = ms[p].Score / best[i]
				}
				p++
			}
			pos[i] = p
		}
		h := lexical.Hit{Doc: next, Score: PNorm(expr, x, m.p)}
		if heap != nil {
			heap.Offer(h)
		} else {
			all = append(all, h)
		}
	}
	sc.hits = all
	if heap != nil {
		return hitsToResults(m.ix, heap.Best()), nil
	}
	return hitsToResults(m.ix, m.ix.TopK(all, 0)), nil
}

// maxOperands is how many operands of one operator PNorm evaluates
// without allocating (more: one slice per call).
const maxOperands = 16

// PNorm evaluates the unweighted p-norm model of e for atom scores x in
// [0,1]; p = +Inf gives the fuzzy-set (min/max) model. It allocates
// nothing for operators of up to maxOperands operands: it runs once per
// candidate, millions of times per query at MS MARCO size.
func PNorm(e *boolexpr.Expr, x []float64, p float64) float64 {
	switch e.Op {
	case boolexpr.OpAtom:
		return x[e.Atom]
	case boolexpr.OpNot:
		return 1 - PNorm(e.Args[0], x, p)
	case boolexpr.OpOr, boolexpr.OpAnd:
		and := e.Op == boolexpr.OpAnd
		if math.IsInf(p, 1) {
			out := PNorm(e.Args[0], x, p)
			for _, a := range e.Args[1:] {
				v := PNorm(a, x, p)
				if and {
					out = math.Min(out, v)
				} else {
					out = math.Max(out, v)
				}
			}
			return out
		}
		// (Σv^p/n)^(1/p) computed as m·(Σ(v/m)^p/n)^(1/p), m = max v, so
		// that large p does not underflow to 0. Scores are in [0,1] (no
		// NaN), so the max is a plain comparison.
		var buf [maxOperands]float64
		var vs []float64
		if len(e.Args) <= maxOperands {
			vs = buf[:len(e.Args)]
		} else {
			vs = make([]float64, len(e.Args))
		}
		var m float64
		for i, a := range e.Args {
			v := PNorm(a, x, p)
			if and {
				v = 1 - v
			}
			vs[i] = v
			if v > m {
				m = v
			}
		}
		var r float64
		if m > 0 {
			var sum float64
			for _, v := range vs {
				sum += pow(v/m, p)
			}
			r = m * root(sum/float64(len(vs)), p)
		}
		if and {
			return 1 - r
		}
		return r
	}
	return 0
}

// pow is math.Pow(x, p) with p = 1 and p = 2 (the default) done directly:
// for those, math.Pow computes the same product, at many times the cost.
func pow(x, p float64) float64 {
	switch p {
	case 1:
		return x
	case 2:
		return x * x
	}
	return math.Pow(x, p)
}

// root is math.Pow(x, 1/p), with p = 1 and p = 2 done directly (math.Pow
// of 0.5 is math.Sqrt).
func root(x, p float64) float64 {
	switch p {
	case 1:
		return x
	case 2:
		return math.Sqrt(x)
	}
	return math.Pow(x, 1/p)
}

// Probe is a pool-only ranked list: the top documents of one atom.
type Probe struct {
	Label string // "not:<atom>" or "and-atom:<atom>"
	Docs  []string
}

// LogicProbes returns the pool-only probes of q (DESIGN §3): the BM25 top
// `depth` documents of every negated atom (explicit-negative candidates,
// needed for NegRecall) and of every single positive atom of an AND
// (single-constraint false positives).
func LogicProbes(ix *lexical.Index, q Query, depth int) []Probe {
	expr, atoms := q.Expression()
	vecs := atomVectors(ix, atoms, false)
	var out []Probe
	seen := map[string]bool{}
	add := func(label string, atom int) {
		if seen[label] {
			return
		}
		seen[label] = true
		hits := ix.Search(vecs[atom], depth)
		docs := make([]string, len(hits))
		for i, h := range hits {
			docs[i] = ix.DocID(h.Doc)
		}
		out = append(out, Probe{Label: label, Docs: docs})
	}
	for _, i := range expr.NegatedAtoms() {
		add(fmt.Sprintf("not:%d", i), i)
	}
	var walk func(e *boolexpr.Expr)
	walk = func(e *boolexpr.Expr) {
		if e.Op == boolexpr.OpAnd {
			for _, a := range e.Args {
				if a.Op == boolexpr.OpAtom {
					add(fmt.Sprintf("and-atom:%d", a.Atom), a.Atom)
				}
			}
		}
		if e.Op != boolexpr.OpNot {
			for _, a := range e.Args {
				walk(a)
			}
		}
	}
	walk(expr)
	return out
}
