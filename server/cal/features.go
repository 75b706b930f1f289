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
	"math"
	"sort"

	"boolpool/server/lexical"
)

// Vec is a sparse feature vector: term numbers ascending, weights.
type Vec struct {
	Idx []uint32
	Val []float32
}

// Features is the document-major tf–idf matrix of a corpus: row d holds
// (1 + ln tf) · ln(N / df) for every term of document d, L2-normalised (BMI's
// features). Terms in every document weigh 0 and are dropped.
type Features struct {
	ix     *lexical.Index
	rowPtr []int // len N+1
	cols   []uint32
	vals   []float32
	idf    []float64
}

// FromIndex builds the features of every document of ix.
func FromIndex(ix *lexical.Index) *Features {
	n, nt := ix.NumDocs(), ix.NumTerms()
	f := &Features{ix: ix, rowPtr: make([]int, n+1), idf: make([]float64, nt)}
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
		normalize(f.vals[f.rowPtr[d]:f.rowPtr[d+1]])
	}
	return f
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

// Dim is the feature dimension (the vocabulary size).
func (f *Features) Dim() int { return len(f.idf) }

// NNZ is the number of stored weights.
func (f *Features) NNZ() int { return len(f.cols) }

// DocID is the external id of document number d.
func (f *Features) DocID(d uint32) string { return f.ix.DocID(d) }

// DocNum is the document number of an external id.
func (f *Features) DocNum(id string) (uint32, bool) { return f.ix.DocNum(id) }

// Row is document d's vector (shared storage: do not modify).
func (f *Features) Row(d uint32) Vec {
	lo, hi := f.rowPtr[d], f.rowPtr[d+1]
	return Vec{Idx: f.cols[lo:hi], Val: f.vals[lo:hi]}
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
