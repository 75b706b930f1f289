package lexical

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
)

// Params are the BM25 parameters. The defaults are Anserini's (k1 = 0.9,
// b = 0.4), tuned for short-to-medium documents like package descriptions.
type Params struct {
	K1 float64 `json:"k1"`
	B  float64 `json:"b"`
}

// DefaultParams returns k1 = 0.9, b = 0.4.
func DefaultParams() Params { return Params{K1: 0.9, B: 0.4} }

// Doc is one document to index.
type Doc struct {
	ExtID string
	Title string
	Body  string
}

// TermID identifies an index term.
type TermID uint32

// Index is an immutable inverted index. Postings are sorted by document
// number; documents are numbered in the order they were given to Build.
// All methods are safe for concurrent use.
type Index struct {
	params  Params
	docIDs  []string
	docLen  []uint32
	avgdl   float64
	terms   map[string]TermID
	strs    []string
	docs    [][]uint32 // per term: document numbers, ascending
	tfs     [][]uint32 // per term: term frequency, parallel to docs
	norm    []float64  // per document: k1 * (1 - b + b*dl/avgdl)
	byExtID map[string]uint32
	accs    sync.Pool
	slots   sync.Pool // of *Slots (slots.go)
}

// Build analyses docs with `workers` goroutines and returns the index. It
// is a Builder fed with docs in order; see Builder for the cost.
func Build(ctx context.Context, docs []Doc, p Params, workers int) (*Index, error) {
	b := NewBuilder(ctx, p, workers)
	defer b.Close()
	for _, d := range docs {
		if err := b.Add(d); err != nil {
			return nil, err
		}
	}
	return b.Finish()
}

// finish derives the lookup tables every constructor needs.
func (ix *Index) finish() error {
	ix.byExtID = make(map[string]uint32, len(ix.docIDs))
	for i, id := range ix.docIDs {
		if _, dup := ix.byExtID[id]; dup {
			return fmt.Errorf("lexical: duplicate document id %q", id)
		}
		ix.byExtID[id] = uint32(i)
	}
	var total float64
	for _, n := range ix.docLen {
		total += float64(n)
	}
	ix.avgdl = 1
	if len(ix.docLen) > 0 && total > 0 {
		ix.avgdl = total / float64(len(ix.docLen))
	}
	ix.norm = make([]float64, len(ix.docLen))
	for i, n := range ix.docLen {
		ix.norm[i] = ix.params.K1 * (1 - ix.params.B + ix.params.B*float64(n)/ix.avgdl)
	}
	n := len(ix.docIDs)
	ix.accs.New = func() any { return newAccumulator(n) }
	return nil
}

// Params returns the BM25 parameters the index scores with.
func (ix *Index) Params() Params { return ix.params }

// NumDocs is the number of indexed documents.
func (ix *Index) NumDocs() int { return len(ix.docIDs) }

// NumTerms is the vocabulary size.
func (ix *Index) NumTerms() int { return len(ix.strs) }

// AvgDocLen is the mean document length in terms.
func (ix *Index) AvgDocLen() float64 { return ix.avgdl }

// DocID returns the external id of document number d.
func (ix *Index) DocID(d uint32) string { return ix.docIDs[d] }

// DocNum returns the document number of an external id.
func (ix *Index) DocNum(extID string) (uint32, bool) {
	d, ok := ix.byExtID[extID]
	return d, ok
}

// DocLen returns the length of document d in terms.
func (ix *Index) DocLen(d uint32) int { return int(ix.docLen[d]) }

// Term looks up an analysed term.
func (ix *Index) Term(term string) (TermID, bool) {
	id, ok := ix.terms[term]
	return id, ok
}

// TermString returns the text of a term.
func (ix *Index) TermString(t TermID) string { return ix.strs[t] }

// DF is the number of documents containing t.
func (ix *Index) DF(t TermID) int { return len(ix.docs[t]) }

// IDF is Lucene's BM25 idf: ln(1 + (N - df + 0.5) / (df + 0.5)), always > 0.
func (ix *Index) IDF(t TermID) float64 {
	n, df := float64(len(ix.docIDs)), float64(len(ix.docs[t]))
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// Postings returns the documents containing t (ascending) and the term
// frequencies; the slices must not be modified.
func (ix *Index) Postings(t TermID) (docs, tfs []uint32) { return ix.docs[t], ix.tfs[t] }

// TF returns the frequency of t in document d (0 when absent).
func (ix *Index) TF(t TermID, d uint32) int {
	ds := ix.docs[t]
	i := sort.Search(len(ds), func(i int) bool { return ds[i] >= d })
	if i < len(ds) && ds[i] == d {
		return int(ix.tfs[t][i])
	}
	return 0
}

// docWeight is the BM25 document-side factor tf*(k1+1)/(tf + norm(d)).
func (ix *Index) docWeight(tf uint32, d uint32) float64 {
	f := float64(tf)
	return f * (ix.params.K1 + 1) / (f + ix.norm[d])
}

// DocWeight is the BM25 document-side weight of t in d: the value a
// document vector holds for t, so that BM25(q, d) = Σ_t w_q(t)·w_d(t) with
// query weights w_q(t) = idf(t)·qtf(t) (see QueryVector).
func (ix *Index) DocWeight(t TermID, d uint32) float64 {
	tf := ix.TF(t, d)
	if tf == 0 {
		return 0
	}
	return ix.docWeight(uint32(tf), d)
}
