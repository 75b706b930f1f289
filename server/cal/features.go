// Package cal is continuous active learning for high-recall review
// (Cormack & Grossman's AutoTAR / BMI): tf–idf features of every
// document's title and text, a sparse L2-regularised logistic regression
// trained on the labels so far plus random unjudged documents as
// provisional negatives, scoring of the whole corpus, batches growing as in
// AutoTAR (1, then +ceil(B/10)), and the stopping rules with a recall
// estimate (the knee method and the target-set method of Cormack &
// Grossman 2016).
//
// The features are derived from the project's lexical index (server/lexical,
// built once per project by `boolpool index` and stored in Postgres), so
// nothing new is stored: the index already holds every document's term
// frequencies; FromIndex transposes its postings into a document-major
// matrix once per process.
//
// Everything is deterministic for a given seed. An Engine is immutable and
// safe for concurrent use; a Session (one query's review) is not.
package cal

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"boolpool/server/lexical"
)

// Vec is a sparse feature vector: term numbers ascending, weights.
type Vec struct {
	Idx []uint32
	Val []float32
}

// Features is the document-major feature matrix of a corpus. Row d holds
// BMI's tf–idf of the document's title + text, (1 + ln tf) · ln(N / df) for
// every term (terms in every document weigh 0 and are dropped), and, when
// FeatureOptions.NameWeight > 0, a second block of hashed features of the
// document's name (its external id; see nameKeys) weighted the same way.
// Each block is L2-normalised and scaled so that the row has norm 1 with
// the name block's share NameWeight² of it.
type Features struct {
	ix     *lexical.Index
	rowPtr []int // len N+1
	cols   []uint32
	vals   []float32
	idf    []float64 // text terms
	dim    int
	// Dense block (FeatureOptions.Dense): the documents' L2-normalised
	// embeddings, row-major (N × denseDim), stored in the rows as columns
	// denseCol … denseCol+denseDim-1 with weight denseW.
	dense    []float32
	denseDim int
	denseCol uint32
	denseW   float64
}

// FeatureOptions configure the features.
type FeatureOptions struct {
	// NameWeight is the norm of the name block in a row (0: text only; at
	// most 1).
	NameWeight float64
	// NameBits is log2 of the hashed name feature space (default 18).
	NameBits int
	// Dense, when set, holds every document's embedding (by document
	// number, all of one dimension; e.g. the stored minilm-static vectors):
	// each row gets the L2-normalised embedding as a dense block of norm
	// DenseWeight, the lexical blocks sharing the rest (1 − DenseWeight²).
	// It also enables the query-cosine feature (Options.QueryCosine).
	Dense       [][]float32
	DenseWeight float64
}

// DefaultFeatureOptions: name block of norm 0.5, 2^18 hashed name features.
func DefaultFeatureOptions() FeatureOptions { return FeatureOptions{NameWeight: 0, NameBits: 18} }

// FromIndex builds the features of every document of ix with
// DefaultFeatureOptions.
func FromIndex(ix *lexical.Index) *Features {
	f, _ := FromIndexWith(ix, DefaultFeatureOptions()) // no dense block: cannot fail
	return f
}

// FromIndexWith builds the features of every document of ix; it fails only
// on bad dense options.
func FromIndexWith(ix *lexical.Index, opt FeatureOptions) (*Features, error) {
	n, nt := ix.NumDocs(), ix.NumTerms()
	alpha := min(max(opt.NameWeight, 0), 1)
	if opt.NameBits <= 0 {
		opt.NameBits = 18
	}
	// Name block: hashed keys per document, their df.
	var names [][]nameCount
	var nameIDF []float64
	if alpha > 0 {
		names = make([][]nameCount, n)
		df := make([]int32, 1<<opt.NameBits)
		mask := uint64(1)<<opt.NameBits - 1
		for d := 0; d < n; d++ {
			counts := map[uint32]int{}
			nameKeys(ix.DocID(uint32(d)), func(k string) { counts[uint32(hashKey(k)&mask)]++ })
			row := make([]nameCount, 0, len(counts))
			for c, k := range counts {
				row = append(row, nameCount{c, k})
				df[c]++
			}
			sort.Slice(row, func(i, j int) bool { return row[i].col < row[j].col })
			names[d] = row
		}
		nameIDF = make([]float64, len(df))
		for c, x := range df {
			// df 1: a name part no other document shares teaches nothing.
			if x > 1 && int(x) < n {
				nameIDF[c] = math.Log(float64(n) / float64(x))
			}
		}
	}
	f := &Features{ix: ix, rowPtr: make([]int, n+1), idf: make([]float64, nt), dim: nt + len(nameIDF)}
	for t := 0; t < nt; t++ {
		docs, _ := ix.Postings(lexical.TermID(t))
		if df := len(docs); df > 0 && df < n {
			f.idf[t] = math.Log(float64(n) / float64(df))
		}
		if f.idf[t] == 0 {
			continue
		}
		for _, d := range docs {
			f.rowPtr[d+1]++
		}
	}
	textLen := make([]int, n)
	for d := 0; d < n; d++ {
		textLen[d] = f.rowPtr[d+1]
		for _, nc := range namesOf(names, d) {
			if nameIDF[nc.col] > 0 {
				f.rowPtr[d+1]++
			}
		}
	}
	for d := 0; d < n; d++ {
		f.rowPtr[d+1] += f.rowPtr[d]
	}
	f.cols = make([]uint32, f.rowPtr[n])
	f.vals = make([]float32, f.rowPtr[n])
	next := append([]int(nil), f.rowPtr[:n]...)
	// Terms ascending, so every row's columns come out ascending.
	for t := 0; t < nt; t++ {
		if f.idf[t] == 0 {
			continue
		}
		docs, tfs := ix.Postings(lexical.TermID(t))
		for i, d := range docs {
			j := next[d]
			next[d]++
			f.cols[j] = uint32(t)
			f.vals[j] = float32((1 + math.Log(float64(tfs[i]))) * f.idf[t])
		}
	}
	for d := 0; d < n; d++ {
		j := next[d]
		for _, nc := range namesOf(names, d) {
			if w := nameIDF[nc.col]; w > 0 {
				f.cols[j] = uint32(nt) + nc.col
				f.vals[j] = float32((1 + math.Log(float64(nc.n))) * w)
				j++
			}
		}
		lo, mid, hi := f.rowPtr[d], f.rowPtr[d]+textLen[d], f.rowPtr[d+1]
		text, name := f.vals[lo:mid], f.vals[mid:hi]
		normalize(text)
		normalize(name)
		if len(name) > 0 && len(text) > 0 {
			scale(text, math.Sqrt(1-alpha*alpha))
			scale(name, alpha)
		}
	}
	if len(opt.Dense) > 0 {
		if err := f.addDense(opt.Dense, opt.DenseWeight); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// addDense adds the dense block (see FeatureOptions.Dense): the
// embeddings are kept apart from the sparse rows, normalised and scaled
// by w (the sparse rows by √(1 − w²)), and Row joins them.
func (f *Features) addDense(vecs [][]float32, w float64) error {
	n := f.NumDocs()
	if len(vecs) != n {
		return fmt.Errorf("cal: %d dense vectors for %d documents", len(vecs), n)
	}
	if w <= 0 || w >= 1 {
		return fmt.Errorf("cal: dense weight %g must be in (0, 1)", w)
	}
	dd := len(vecs[0])
	if dd == 0 {
		return fmt.Errorf("cal: empty dense vectors")
	}
	f.dense = make([]float32, n*dd)
	for d, v := range vecs {
		if len(v) != dd {
			return fmt.Errorf("cal: dense vector of document %d has %d dimensions, want %d", d, len(v), dd)
		}
		row := f.dense[d*dd : (d+1)*dd]
		copy(row, v)
		normalize(row)
	}
	f.denseDim, f.denseCol, f.denseW = dd, uint32(f.dim), w
	scale(f.vals, math.Sqrt(1-w*w))
	f.dim += dd
	return nil
}

// HasDense reports whether the features hold a dense block.
func (f *Features) HasDense() bool { return f.denseDim > 0 }

// DenseDim is the dimension of the dense block (0: none).
func (f *Features) DenseDim() int { return f.denseDim }

// withDense is a lexical vector of a text (Vectorize) joined with the
// text's embedding q as the rows are (unchanged without a dense block or
// without q).
func (f *Features) withDense(v Vec, q []float32) Vec {
	if f.denseDim == 0 || len(q) != f.denseDim {
		return v
	}
	qn := append([]float32(nil), q...)
	normalize(qn)
	lex := math.Sqrt(1 - f.denseW*f.denseW)
	out := Vec{Idx: make([]uint32, 0, len(v.Idx)+f.denseDim), Val: make([]float32, 0, len(v.Idx)+f.denseDim)}
	out.Idx = append(out.Idx, v.Idx...)
	for _, x := range v.Val {
		out.Val = append(out.Val, float32(float64(x)*lex))
	}
	for i, x := range qn {
		out.Idx = append(out.Idx, f.denseCol+uint32(i))
		out.Val = append(out.Val, float32(float64(x)*f.denseW))
	}
	return out
}

// Cosines writes the cosine of every document's embedding to q into out
// (len NumDocs); it needs a dense block of q's dimension.
func (f *Features) Cosines(q []float32, out []float64) error {
	if f.denseDim == 0 || len(q) != f.denseDim {
		return fmt.Errorf("cal: query vector of %d dimensions, dense block of %d", len(q), f.denseDim)
	}
	qn := append([]float32(nil), q...)
	normalize(qn)
	dd := f.denseDim
	for d := range out {
		row := f.dense[d*dd : (d+1)*dd]
		var s float32
		for i, x := range row {
			s += x * qn[i]
		}
		out[d] = float64(s)
	}
	return nil
}

type nameCount struct {
	col uint32
	n   int
}

func namesOf(names [][]nameCount, d int) []nameCount {
	if names == nil {
		return nil
	}
	return names[d]
}

// nameKeys calls emit with the name features of a document name (package
// names such as "xemacs21-mule-canna-wnn", "fp-units-gfx", "aspell-ar",
// "libgadu-dev"): every word of the lower-cased name split on anything
// that is not a letter or digit and again between letters and digits
// ("xemacs", "21"), the name's first one and two dash-separated parts (its
// family: "xemacs21", "xemacs21-mule"), and the character 3- and 4-grams
// of "^name$".
func nameKeys(name string, emit func(string)) {
	name = strings.ToLower(name)
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	if len(parts) > 1 {
		emit("p1:" + parts[0])
	}
	if len(parts) > 2 {
		emit("p2:" + parts[0] + "-" + parts[1])
	}
	start, kind := -1, 0
	for i, r := range name + " " {
		k := 0
		if unicode.IsLetter(r) {
			k = 1
		} else if unicode.IsDigit(r) {
			k = 2
		}
		if k != kind && start >= 0 {
			emit("w:" + name[start:i])
			start = -1
		}
		if k != 0 && start < 0 {
			start = i
		}
		kind = k
	}
	s := []rune("^" + name + "$")
	for n := 3; n <= 4; n++ {
		for i := 0; i+n <= len(s); i++ {
			emit("c:" + string(s[i:i+n]))
		}
	}
}

// hashKey is FNV-1a.
func hashKey(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func scale(v []float32, c float64) {
	for i := range v {
		v[i] = float32(float64(v[i]) * c)
	}
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// NumDocs is the number of documents.
func (f *Features) NumDocs() int { return len(f.rowPtr) - 1 }

// Dim is the feature dimension (the vocabulary size, plus the hashed name
// space when names are featured).
func (f *Features) Dim() int { return f.dim }

// NNZ is the number of stored weights (the dense block's included).
func (f *Features) NNZ() int { return len(f.cols) + len(f.dense) }

// DocID is the external id of document number d.
func (f *Features) DocID(d uint32) string { return f.ix.DocID(d) }

// DocNum is the document number of an external id.
func (f *Features) DocNum(id string) (uint32, bool) { return f.ix.DocNum(id) }

// Row is document d's vector (shared storage: do not modify). With a
// dense block the row is a new vector: the sparse part, then the block.
func (f *Features) Row(d uint32) Vec {
	lo, hi := f.rowPtr[d], f.rowPtr[d+1]
	v := Vec{Idx: f.cols[lo:hi], Val: f.vals[lo:hi]}
	if f.denseDim == 0 {
		return v
	}
	dd := f.denseDim
	out := Vec{Idx: make([]uint32, 0, hi-lo+dd), Val: make([]float32, 0, hi-lo+dd)}
	out.Idx = append(out.Idx, v.Idx...)
	out.Val = append(out.Val, v.Val...)
	for i, x := range f.dense[int(d)*dd : (int(d)+1)*dd] {
		out.Idx = append(out.Idx, f.denseCol+uint32(i))
		out.Val = append(out.Val, float32(float64(x)*f.denseW))
	}
	return out
}

// Vectorize is the feature vector of a text (e.g. the query as a
// pseudo-document), analysed like the documents; terms not in the corpus are
// dropped.
func (f *Features) Vectorize(text string) Vec {
	counts := map[uint32]int{}
	lexical.NewAnalyzer().Each(text, func(t string) {
		if id, ok := f.ix.Term(t); ok && f.idf[id] > 0 {
			counts[uint32(id)]++
		}
	})
	v := Vec{Idx: make([]uint32, 0, len(counts))}
	for t := range counts {
		v.Idx = append(v.Idx, t)
	}
	sort.Slice(v.Idx, func(i, j int) bool { return v.Idx[i] < v.Idx[j] })
	v.Val = make([]float32, len(v.Idx))
	for i, t := range v.Idx {
		v.Val[i] = float32((1 + math.Log(float64(counts[t]))) * f.idf[t])
	}
	normalize(v.Val)
	return v
}
