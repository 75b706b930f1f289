package retrieval

import (
	"context"
	"fmt"
	"math"
	"sync"

	"boolpool/server/boolexpr"
)

// TextEncoder embeds texts (the encoders package's Encoder satisfies it).
// Vectors are compared by cosine similarity.
type TextEncoder interface {
	Name() string
	Dim() int
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// VectorIndex is a project's document vectors for one encoder.
type VectorIndex interface {
	// Search returns the k documents most cosine-similar to vec, best first
	// (Score = cosine similarity).
	Search(ctx context.Context, vec []float32, k int) ([]Result, error)
	// Similarities returns the cosine similarity of vec to each document
	// (documents without a vector are absent from the map).
	Similarities(ctx context.Context, vec []float32, docIDs []string) (map[string]float64, error)
	// Size is the number of documents with a vector.
	Size(ctx context.Context) (int, error)
}

// Dense bundles the query encoder and the document vectors.
type Dense struct {
	Encoder TextEncoder
	Vectors VectorIndex
}

var specDenseVanilla = Spec{
	Name:    "dense-vanilla",
	Summary: "embed the whole query text, cosine kNN over the document vectors (pgvector HNSW)",
	Needs:   NeedsDense,
	build: func(p Params, d Deps) (Method, error) {
		return &denseVanilla{d: d.Dense}, nil
	},
}

type denseVanilla struct{ d *Dense }

func (m *denseVanilla) Name() string { return "dense-vanilla" }

func (m *denseVanilla) Retrieve(ctx context.Context, q Query, k int) ([]Result, error) {
	vs, err := m.d.Encoder.Encode(ctx, []string{q.Text})
	if err != nil {
		return nil, err
	}
	rs, err := m.d.Vectors.Search(ctx, vs[0], k)
	if err != nil {
		return nil, err
	}
	return sortResults(rs, k), nil
}

var specDenseDecomposed = Spec{
	Name:  "dense-decomposed",
	Plain: "dense-vanilla",
	Summary: "decomposed-query set operations (BoolQuestions baseline): top-N per atom by dense kNN, merged by the expression " +
		"with intersection / union / difference; scores: AND = sum, OR = max, NOT = subtract the negated part's similarity",
	Needs: NeedsDense,
	Params: []ParamSpec{{Name: "per_atom", Default: "auto",
		Doc: "documents retrieved per atom: an integer, or auto = min(2000, max(1, corpus/10)); BoolQuestions takes the top 2k " +
			"of a large collection, but on a corpus of at most 2000 documents that is every document, so a negated atom " +
			"removes them all and A AND NOT B is empty"}},
	build: func(p Params, d Deps) (Method, error) {
		if p.str("per_atom") == "auto" {
			return &denseDecomposed{d: d.Dense}, nil
		}
		n, err := p.int("per_atom", 1)
		if err != nil {
			return nil, fmt.Errorf("%w (or auto)", err)
		}
		return &denseDecomposed{d: d.Dense, perAtom: n}, nil
	},
}

type denseDecomposed struct {
	d       *Dense
	perAtom int // 0 = auto, resolved on first use

	once    sync.Once
	auto    int
	autoErr error
}

func (m *denseDecomposed) Name() string { return "dense-decomposed" }

// AutoPerAtom is the per-atom depth of dense-decomposed for a corpus of
// size documents: a tenth of the corpus (at least 1), at most 2000, so a
// negated atom never takes the whole corpus with it.
func AutoPerAtom(size int) int { return min(2000, max(1, size/10)) }

func (m *denseDecomposed) depth(ctx context.Context) (int, error) {
	if m.perAtom > 0 {
		return m.perAtom, nil
	}
	m.once.Do(func() {
		n, err := m.d.Vectors.Size(ctx)
		m.auto, m.autoErr = AutoPerAtom(n), err
	})
	return m.auto, m.autoErr
}

func exactScore(e *boolexpr.Expr, sims map[int]float64) float64 {
	switch e.Op {
	case boolexpr.OpAtom:
		return sims[e.Atom]
	case boolexpr.OpNot:
		return -exactScore(e.Args[0], sims)
	case boolexpr.OpOr:
		out := math.Inf(-1)
		for _, a := range e.Args {
			out = math.Max(out, exactScore(a, sims))
		}
		return out
	case boolexpr.OpAnd:
		var out float64
		for _, a := range e.Args {
			out += exactScore(a, sims)
		}
		return out
	}
	return 0
}

var specDenseAlgebra = Spec{
	Name:  "dense-algebra",
	Plain: "dense-vanilla",
	Summary: "vector algebra over the atom embeddings, then cosine kNN: AND = sum; OR = max-pool or sum; " +
		"A AND NOT B = orthogonal negation A − (A·B/|B|²)B (Widdows 2003) or NRF A − λB (Rocchio)",
	Needs: NeedsDense,
	Params: []ParamSpec{
		{Name: "union", Default: "max", Doc: "OR: max (element-wise max-pool) or sum"},
		{Name: "negation", Default: "orthogonal", Doc: "NOT: orthogonal (project B's direction out) or nrf (subtract λB)"},
		{Name: "lambda", Default: "0.5", Doc: "λ of nrf negation"},
	},
	build: func(p Params, d Deps) (Method, error) {
		u, err := p.choice("union", "max", "sum")
		if err != nil {
			return nil, err
		}
		n, err := p.choice("negation", "orthogonal", "nrf")
		if err != nil {
			return nil, err
		}
		l, err := p.float("lambda")
		if err != nil {
			return nil, err
		}
		return &denseAlgebra{d: d.Dense, opt: AlgebraOptions{MaxUnion: u == "max", Orthogonal: n == "orthogonal", Lambda: l}}, nil
	},
}

// AlgebraOptions selects the dense vector operators.
type AlgebraOptions struct {
	MaxUnion   bool
	Orthogonal bool
	Lambda     float64
}

type denseAlgebra struct {
	d   *Dense
	opt AlgebraOptions
}

func (m *denseAlgebra) Name() string { return "dense-algebra" }

func (m *denseAlgebra) Retrieve(ctx context.Context, q Query, k int) ([]Result, error) {
	expr, atoms := q.Expression()
	vecs, err := m.d.Encoder.Encode(ctx, atoms)
	if err != nil {
		return nil, err
	}
	v := ComposeDense(expr, vecs, m.opt)
	rs, err := m.d.Vectors.Search(ctx, v, k)
	if err != nil {
		return nil, err
	}
	return sortResults(rs, k), nil
}

// ComposeDense builds one query vector for e from the atom vectors.
func ComposeDense(e *boolexpr.Expr, vecs [][]float32, opt AlgebraOptions) []float32 {
	switch e.Op {
	case boolexpr.OpAtom:
		return append([]float32(nil), vecs[e.Atom]...)
	case boolexpr.OpOr:
		out := ComposeDense(e.Args[0], vecs, opt)
		for _, a := range e.Args[1:] {
			v := ComposeDense(a, vecs, opt)
			for i := range out {
				if opt.MaxUnion {
					out[i] = max(out[i], v[i])
				} else {
					out[i] += v[i]
				}
			}
		}
		return out
	case boolexpr.OpAnd:
		var pos []float32
		var negs []*boolexpr.Expr
		for _, a := range e.Args {
			if a.Op == boolexpr.OpNot {
				negs = append(negs, a.Args[0])
				continue
			}
			v := ComposeDense(a, vecs, opt)
			if pos == nil {
				pos = v
				continue
			}
			for i := range pos {
				pos[i] += v[i]
			}
		}
		if pos == nil {
			pos = make([]float32, len(vecs[0]))
		}
		for _, n := range negs {
			pos = Negate(pos, ComposeDense(n, vecs, opt), opt)
		}
		return pos
	case boolexpr.OpNot:
		return Negate(make([]float32, len(vecs[0])), ComposeDense(e.Args[0], vecs, opt), opt)
	}
	return nil
}

// Negate returns a without b: orthogonal a − (a·b/|b|²)b, or NRF a − λb.
func Negate(a, b []float32, opt AlgebraOptions) []float32 {
	out := make([]float32, len(a))
	coef := opt.Lambda
	if opt.Orthogonal {
		var ab, bb float64
		for i := range a {
			ab += float64(a[i]) * float64(b[i])
			bb += float64(b[i]) * float64(b[i])
		}
		coef = 0
		if bb > 0 {
			coef = ab / bb
		}
	}
	for i := range a {
		out[i] = a[i] - float32(coef)*b[i]
	}
	return out
}
