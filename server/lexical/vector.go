package lexical

import (
	"slices"
	"sort"

	"boolpool/server/topk"
)

// TermWeight is one coordinate of a sparse vector.
type TermWeight struct {
	Term   TermID
	Weight float64
}

// Vec is a sparse vector over the index vocabulary, sorted by term with no
// zero weights (the constructors and operations below keep it so). A query
// vector scores a document by the dot product with the document's BM25
// weights, so negative weights push documents down.
type Vec []TermWeight

// QueryVector is the BM25 query vector of text: idf(t) times the number of
// times t occurs in the analysed text. Terms absent from the index are
// dropped. Its dot product with a document is the document's BM25 score.
func (ix *Index) QueryVector(a *Analyzer, text string) Vec {
	counts := map[TermID]int{}
	a.Each(text, func(t string) {
		if id, ok := ix.terms[t]; ok {
			counts[id]++
		}
	})
	v := make(Vec, 0, len(counts))
	for t, n := range counts {
		v = append(v, TermWeight{Term: t, Weight: ix.IDF(t) * float64(n)})
	}
	sort.Slice(v, func(i, j int) bool { return v[i].Term < v[j].Term })
	return v
}

// UniqueTerms returns v with every term of positive weight weighted once,
// idf(t), whatever its count in the query: BM25 over the query's distinct
// terms (query-term weighting "unique", as opposed to QueryVector's
// repeat-counting bag of words). Terms of zero or negative weight are
// dropped.
func (ix *Index) UniqueTerms(v Vec) Vec {
	out := make(Vec, 0, len(v))
	for _, tw := range v {
		if tw.Weight > 0 {
			out = append(out, TermWeight{Term: tw.Term, Weight: ix.IDF(tw.Term)})
		}
	}
	return out
}

// Terms returns the vector's terms.
func (v Vec) Terms() []TermID {
	out := make([]TermID, len(v))
	for i, tw := range v {
		out[i] = tw.Term
	}
	return out
}

// Get returns the weight of t (0 when absent).
func (v Vec) Get(t TermID) float64 {
	i := sort.Search(len(v), func(i int) bool { return v[i].Term >= t })
	if i < len(v) && v[i].Term == t {
		return v[i].Weight
	}
	return 0
}

// merge combines a and b coordinate-wise with f (absent = 0), dropping zeros.
func merge(a, b Vec, f func(x, y float64) float64) Vec {
	out := make(Vec, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var t TermID
		var x, y float64
		switch {
		case j >= len(b) || (i < len(a) && a[i].Term < b[j].Term):
			t, x = a[i].Term, a[i].Weight
			i++
		case i >= len(a) || b[j].Term < a[i].Term:
			t, y = b[j].Term, b[j].Weight
			j++
		default:
			t, x, y = a[i].Term, a[i].Weight, b[j].Weight
			i++
			j++
		}
		if w := f(x, y); w != 0 {
			out = append(out, TermWeight{Term: t, Weight: w})
		}
	}
	return out
}

// Add returns a + b.
func Add(a, b Vec) Vec { return merge(a, b, func(x, y float64) float64 { return x + y }) }

// Sub returns a − b.
func Sub(a, b Vec) Vec { return merge(a, b, func(x, y float64) float64 { return x - y }) }

// Max returns the element-wise maximum of a and b (MaxPool union; an absent
// coordinate counts as 0).
func Max(a, b Vec) Vec {
	return merge(a, b, func(x, y float64) float64 {
		if x > y {
			return x
		}
		return y
	})
}

// Scale returns s·v.
func Scale(v Vec, s float64) Vec {
	out := make(Vec, 0, len(v))
	for _, tw := range v {
		if w := tw.Weight * s; w != 0 {
			out = append(out, TermWeight{Term: tw.Term, Weight: w})
		}
	}
	return out
}

// Disentangle returns B* = B − 1_A ⊙ B: b without the terms a has
// (Krasakis, Yates & Kanoulas), so that negating B never penalises the
// terms the positive part asks for.
func Disentangle(b, a Vec) Vec {
	out := make(Vec, 0, len(b))
	for _, tw := range b {
		if a.Get(tw.Term) == 0 {
			out = append(out, tw)
		}
	}
	return out
}

// Hit is a scored document number.
type Hit struct {
	Doc   uint32
	Score float64
}

// accumulator holds per-document scores for one query evaluation.
type accumulator struct {
	scores  []float64
	state   []uint8 // 0 untouched, 1 touched, 2 matched a positive-weight term
	touched []uint32
}

func newAccumulator(n int) *accumulator {
	return &accumulator{scores: make([]float64, n), state: make([]uint8, n)}
}

func (acc *accumulator) reset() {
	for _, d := range acc.touched {
		acc.scores[d] = 0
		acc.state[d] = 0
	}
	acc.touched = acc.touched[:0]
}

// accumulate adds v·d for every document d containing a term of v, in
// term order (deterministic floating point).
func (ix *Index) accumulate(v Vec, acc *accumulator) {
	for _, tw := range v {
		docs, tfs := ix.docs[tw.Term], ix.tfs[tw.Term]
		for i, d := range docs {
			if acc.state[d] == 0 {
				acc.state[d] = 1
				acc.touched = append(acc.touched, d)
			}
			acc.scores[d] += tw.Weight * ix.docWeight(tfs[i], d)
			if tw.Weight > 0 {
				acc.state[d] = 2
			}
		}
	}
}

// Search returns the top k documents by v·d among the documents that
// contain at least one positive-weight term of v, best first, ties broken
// by external id. k <= 0 returns all of them.
func (ix *Index) Search(v Vec, k int) []Hit {
	return ix.TopK(ix.Match(v), k)
}

// Match returns v·d, unsorted, for every document that contains at least
// one positive-weight term of v.
func (ix *Index) Match(v Vec) []Hit { return ix.MatchAppend(nil, v) }

// MatchAppend is Match appending to dst (a caller's reused buffer: a common
// term matches millions of documents at MS MARCO size).
func (ix *Index) MatchAppend(dst []Hit, v Vec) []Hit {
	acc := ix.accs.Get().(*accumulator)
	defer func() { acc.reset(); ix.accs.Put(acc) }()
	ix.accumulate(v, acc)
	dst = slices.Grow(dst, len(acc.touched))
	for _, d := range acc.touched {
		if acc.state[d] == 2 {
			dst = append(dst, Hit{Doc: d, Score: acc.scores[d]})
		}
	}
	return dst
}

// ScoreDocs returns v·d for each of docs.
func (ix *Index) ScoreDocs(v Vec, docs []uint32) []float64 {
	out := make([]float64, len(docs))
	for i, d := range docs {
		var s float64
		for _, tw := range v {
			if tf := ix.TF(tw.Term, d); tf > 0 {
				s += tw.Weight * ix.docWeight(uint32(tf), d)
			}
		}
		out[i] = s
	}
	return out
}

// Better reports whether a ranks above b: higher score, then smaller
// external id. Every ranking in boolpool breaks ties this way.
func (ix *Index) Better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return ix.docIDs[a.Doc] < ix.docIDs[b.Doc]
}

// TopK returns the best k hits (all when k <= 0), best first.
func (ix *Index) TopK(hits []Hit, k int) []Hit {
	if k <= 0 || k >= len(hits) {
		out := append([]Hit(nil), hits...)
		sort.Slice(out, func(i, j int) bool { return ix.Better(out[i], out[j]) })
		return out
	}
	h := topk.New(k, ix.Better)
	for _, x := range hits {
		h.Offer(x)
	}
	return h.Best()
}

// DocsWithAll returns the documents containing every term (ascending);
// nil terms gives nil.
func (ix *Index) DocsWithAll(terms []TermID) []uint32 {
	if len(terms) == 0 {
		return nil
	}
	ts := append([]TermID(nil), terms...)
	sort.Slice(ts, func(i, j int) bool { return len(ix.docs[ts[i]]) < len(ix.docs[ts[j]]) })
	out := append([]uint32(nil), ix.docs[ts[0]]...)
	for _, t := range ts[1:] {
		out = intersect(out, ix.docs[t])
		if len(out) == 0 {
			break
		}
	}
	return out
}

// DocsWithAny returns the documents containing at least one term (ascending).
func (ix *Index) DocsWithAny(terms []TermID) []uint32 {
	var out []uint32
	for _, t := range terms {
		out = UnionSorted(out, ix.docs[t])
	}
	return out
}

// IntersectSorted returns the elements common to two ascending sets, in a
// new slice.
func IntersectSorted(a, b []uint32) []uint32 {
	return intersectInto(make([]uint32, 0, min(len(a), len(b))), a, b)
}

// intersect is IntersectSorted reusing a's storage (a is consumed).
func intersect(a, b []uint32) []uint32 { return intersectInto(a[:0], a, b) }

func intersectInto(out, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// UnionSorted merges two ascending sets into a new ascending set.
func UnionSorted(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
