package lexical

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
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

// Build analyses docs with `workers` goroutines and returns the index.
//
// Its cost is linear in the number of (document, term) pairs plus
// V log V for the vocabulary of V terms: each worker analyses a contiguous
// range of documents into flat arrays of worker-local term numbers (one
// hash lookup per token, in a map of the worker's surface words), the
// vocabularies are then merged with one lookup per distinct local term,
// sorted, and the postings laid out by counting sort into one array, in
// document order. Terms are numbered in lexicographic order, whatever the
// number of workers.
func Build(ctx context.Context, docs []Doc, p Params, workers int) (*Index, error) {
	if workers < 1 {
		workers = 1
	}
	// Analysis is the expensive part: do it in parallel, one range of
	// documents per worker.
	chunk := (len(docs) + workers - 1) / workers
	var parts []*part
	for lo := 0; lo < len(docs); lo += chunk {
		parts = append(parts, &part{lo: lo, hi: min(lo+chunk, len(docs))})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(parts))
	for i, pt := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pt.analyse(ctx, docs)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("lexical: build: %w", err)
		}
	}

	// The vocabulary: every worker's terms, numbered in lexicographic order.
	ix := &Index{params: p, terms: map[string]TermID{}}
	for _, pt := range parts {
		for _, t := range pt.strs {
			if _, ok := ix.terms[t]; !ok {
				ix.terms[t] = 0
				ix.strs = append(ix.strs, t)
			}
		}
	}
	slices.Sort(ix.strs)
	for i, t := range ix.strs {
		ix.terms[t] = TermID(i)
	}
	df := make([]int, len(ix.strs)+1)
	for _, pt := range parts {
		pt.global = make([]TermID, len(pt.strs))
		for l, t := range pt.strs {
			pt.global[l] = ix.terms[t]
		}
		pt.strs = nil
		for _, l := range pt.ids {
			df[pt.global[l]+1]++
		}
	}
	// Counting sort of the (term, document) pairs: start[t] is where term
	// t's postings begin; documents arrive in ascending order.
	for t := 1; t < len(df); t++ {
		df[t] += df[t-1]
	}
	start := df
	flatDocs := make([]uint32, start[len(start)-1])
	flatTfs := make([]uint32, len(flatDocs))
	next := slices.Clone(start[:len(start)-1])
	ix.docIDs = make([]string, len(docs))
	ix.docLen = make([]uint32, len(docs))
	for _, pt := range parts {
		for d := pt.lo; d < pt.hi; d++ {
			k := d - pt.lo
			ix.docIDs[d] = docs[d].ExtID
			ix.docLen[d] = pt.lens[k]
			for j := pt.off[k]; j < pt.off[k+1]; j++ {
				g := pt.global[pt.ids[j]]
				flatDocs[next[g]] = uint32(d)
				flatTfs[next[g]] = pt.tfs[j]
				next[g]++
			}
		}
		*pt = part{} // let the worker's arrays go
	}
	ix.docs = make([][]uint32, len(ix.strs))
	ix.tfs = make([][]uint32, len(ix.strs))
	for t := range ix.strs {
		a, b := start[t], start[t+1]
		ix.docs[t], ix.tfs[t] = flatDocs[a:b:b], flatTfs[a:b:b]
	}
	if err := ix.finish(); err != nil {
		return nil, err
	}
	return ix, nil
}

// part is one worker's share of a build: documents lo..hi-1 as
// worker-local term numbers.
type part struct {
	lo, hi int
	strs   []string // local term number → term
	off    []int    // per document: its pairs are ids[off[k]:off[k+1]]
	ids    []uint32 // local term numbers, per document
	tfs    []uint32 // their frequencies, parallel to ids
	lens   []uint32 // per document: length in terms
	global []TermID // local term number → index term (filled by Build)
}

// analyse fills the part from its documents.
func (pt *part) analyse(ctx context.Context, docs []Doc) error {
	words := map[string]int32{} // surface word → local term number, -1 for none (bounded)
	local := map[string]int32{} // term → local term number
	var tf []uint32             // per local term: frequency in the current document
	var touched []int32         // local terms of the current document, in order of appearance
	var n uint32
	add := func(w string) {
		l, ok := words[w]
		if !ok {
			l = -1
			if t := stem(w); t != "" {
				if l, ok = local[t]; !ok {
					t = strings.Clone(t) // not a view of the document's text
					l = int32(len(pt.strs))
					local[t] = l
					pt.strs = append(pt.strs, t)
					tf = append(tf, 0)
				}
			}
			if len(words) < stemCacheMax {
				words[w] = l
			}
		}
		if l < 0 {
			return
		}
		n++
		if tf[l] == 0 {
			touched = append(touched, l)
		}
		tf[l]++
	}
	pt.off = make([]int, 1, pt.hi-pt.lo+1)
	pt.lens = make([]uint32, 0, pt.hi-pt.lo)
	for i := pt.lo; i < pt.hi; i++ {
		if (i-pt.lo)%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		n = 0
		eachWord(docs[i].Title, add)
		eachWord(docs[i].Body, add)
		for _, l := range touched {
			pt.ids = append(pt.ids, uint32(l))
			pt.tfs = append(pt.tfs, tf[l])
			tf[l] = 0
		}
		touched = touched[:0]
		pt.off = append(pt.off, len(pt.ids))
		pt.lens = append(pt.lens, n)
	}
	return nil
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
