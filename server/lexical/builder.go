package lexical

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// defaultBatch is the number of documents a Builder hands to a worker at once.
const defaultBatch = 4096

// errBuilderClosed is returned by a Builder used after Finish or Close.
var errBuilderClosed = errors.New("lexical: builder is closed")

// Builder builds an Index from a stream of documents without holding their
// text: Add batches documents and hands each full batch to one of the
// builder's worker goroutines, which analyses it into a segment of
// worker-local term numbers and drops the text; only the external ids are
// kept. Finish merges the workers' vocabularies (terms numbered in
// lexicographic order) and lays the postings out by counting sort, walking
// the segments in document order and freeing each as it goes.
//
// Its cost is linear in the number of (document, term) pairs plus V log V
// for the vocabulary of V terms. The index does not depend on the number of
// workers or the batch size.
//
// A Builder is used by one goroutine. Its workers run until Finish or
// Close, which join them; call Close (it is idempotent, and a no-op after
// Finish) when abandoning a builder, e.g. after an error.
type Builder struct {
	ctx       context.Context
	cancel    context.CancelCauseFunc
	p         Params
	batchSize int
	batch     []Doc
	docIDs    []string
	segs      []*segment // in document order
	workers   []*worker
	jobs      chan job
	wg        sync.WaitGroup
	stopped   bool // the job channel is closed and the workers joined
}

// job is one batch of documents and the segment its worker fills.
type job struct {
	docs []Doc
	seg  *segment
}

// segment is one analysed batch: documents lo.. as the local term numbers
// of the worker that analysed them.
type segment struct {
	w    *worker
	lo   int
	off  []uint32 // per document: its pairs are ids[off[k]:off[k+1]]
	ids  []uint32 // local term numbers, per document
	tfs  []uint32 // their frequencies, parallel to ids
	lens []uint32 // per document: length in terms
}

// worker is the state one analysis goroutine keeps across batches.
type worker struct {
	words   map[string]int32 // surface word → local term number, -1 for none (bounded)
	local   map[string]int32 // term → local term number
	strs    []string         // local term number → term
	tf      []uint32         // per local term: frequency in the current document
	touched []int32          // local terms of the current document, in order of appearance
	n       uint32           // length of the current document
	ids     []uint32         // scratch: the current batch's pairs
	tfs     []uint32
	global  []TermID // local term number → index term (filled by Finish)
}

// NewBuilder starts a builder with `workers` analysis goroutines (at least
// one). Cancelling ctx stops them; Add and Finish then return the error.
func NewBuilder(ctx context.Context, p Params, workers int) *Builder {
	return newBuilder(ctx, p, workers, defaultBatch)
}

func newBuilder(ctx context.Context, p Params, workers, batch int) *Builder {
	workers = max(workers, 1)
	batch = max(batch, 1)
	b := &Builder{p: p, batchSize: batch, jobs: make(chan job)}
	b.ctx, b.cancel = context.WithCancelCause(ctx)
	for range workers {
		w := &worker{words: map[string]int32{}, local: map[string]int32{}}
		b.workers = append(b.workers, w)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			w.run(b.ctx, b.cancel, b.jobs)
		}()
	}
	return b
}

// Add appends a document; documents are numbered in the order added. The
// builder keeps doc.ExtID and no other field once the document's batch has
// been analysed.
func (b *Builder) Add(doc Doc) error {
	if b.stopped {
		return errBuilderClosed
	}
	if b.ctx.Err() != nil {
		return b.err()
	}
	if len(b.docIDs) >= math.MaxUint32 {
		return fmt.Errorf("lexical: build: more than %d documents", uint32(math.MaxUint32))
	}
	if b.batch == nil {
		b.batch = make([]Doc, 0, b.batchSize)
	}
	b.docIDs = append(b.docIDs, doc.ExtID)
	b.batch = append(b.batch, doc)
	if len(b.batch) == b.batchSize {
		return b.flush()
	}
	return nil
}

// flush hands the current batch to a worker.
func (b *Builder) flush() error {
	if len(b.batch) == 0 {
		return nil
	}
	seg := &segment{lo: len(b.docIDs) - len(b.batch)}
	b.segs = append(b.segs, seg)
	select {
	case b.jobs <- job{docs: b.batch, seg: seg}:
	case <-b.ctx.Done():
		return b.err()
	}
	b.batch = nil // the worker owns it now
	return nil
}

// err is the reason the builder's context ended.
func (b *Builder) err() error {
	return fmt.Errorf("lexical: build: %w", context.Cause(b.ctx))
}

// stop closes the job channel once and joins the workers.
func (b *Builder) stop() {
	if b.stopped {
		return
	}
	b.stopped = true
	close(b.jobs)
	b.wg.Wait()
}

// Close stops and joins the workers and drops what was built. It is
// idempotent and may follow Finish.
func (b *Builder) Close() {
	b.cancel(errBuilderClosed)
	b.stop()
	b.batch, b.segs, b.workers, b.docIDs = nil, nil, nil, nil
}

// Finish analyses the last batch, joins the workers and returns the index.
// The builder cannot be used afterwards.
func (b *Builder) Finish() (*Index, error) {
	if b.stopped {
		return nil, errBuilderClosed
	}
	defer b.Close()
	err := b.flush()
	b.stop()
	if err != nil {
		return nil, err
	}
	if b.ctx.Err() != nil {
		return nil, b.err()
	}

	// The vocabulary: every worker's terms, numbered in lexicographic order.
	ix := &Index{params: b.p, terms: map[string]TermID{}}
	for _, w := range b.workers {
		for _, t := range w.strs {
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
	for _, w := range b.workers {
		w.global = make([]TermID, len(w.strs))
		for l, t := range w.strs {
			w.global[l] = ix.terms[t]
		}
		*w = worker{global: w.global} // let the caches go
	}
	if b.ctx.Err() != nil {
		return nil, b.err()
	}
	df := make([]int, len(ix.strs)+1)
	for _, seg := range b.segs {
		g := seg.w.global
		for _, l := range seg.ids {
			df[g[l]+1]++
		}
	}
	// Counting sort of the (term, document) pairs: start[t] is where term
	// t's postings begin; segments are visited in document order, so each
	// term's documents arrive ascending.
	for t := 1; t < len(df); t++ {
		df[t] += df[t-1]
	}
	start := df
	flatDocs := make([]uint32, start[len(start)-1])
	flatTfs := make([]uint32, len(flatDocs))
	next := slices.Clone(start[:len(start)-1])
	ix.docIDs, b.docIDs = b.docIDs, nil
	ix.docLen = make([]uint32, len(ix.docIDs))
	for i, seg := range b.segs {
		g := seg.w.global
		for k, n := range seg.lens {
			d := seg.lo + k
			ix.docLen[d] = n
			for j := seg.off[k]; j < seg.off[k+1]; j++ {
				t := g[seg.ids[j]]
				flatDocs[next[t]] = uint32(d)
				flatTfs[next[t]] = seg.tfs[j]
				next[t]++
			}
		}
		b.segs[i] = nil // let the segment go
	}
	ix.docs = make([][]uint32, len(ix.strs))
	ix.tfs = make([][]uint32, len(ix.strs))
	for t := range ix.strs {
		a, e := start[t], start[t+1]
		ix.docs[t], ix.tfs[t] = flatDocs[a:e:e], flatTfs[a:e:e]
	}
	if err := ix.finish(); err != nil {
		return nil, err
	}
	return ix, nil
}

// run analyses batches until jobs is closed; after an error (the context
// ended) it only drains them.
func (w *worker) run(ctx context.Context, cancel context.CancelCauseFunc, jobs <-chan job) {
	for j := range jobs {
		if ctx.Err() != nil {
			continue
		}
		if err := w.analyse(ctx, j); err != nil {
			cancel(err)
		}
	}
}

// add counts one surface word of the current document.
func (w *worker) add(word string) {
	l, ok := w.words[word]
	if !ok {
		l = -1
		if t := stem(word); t != "" {
			if l, ok = w.local[t]; !ok {
				t = strings.Clone(t) // not a view of the document's text
				l = int32(len(w.strs))
				w.local[t] = l
				w.strs = append(w.strs, t)
				w.tf = append(w.tf, 0)
			}
		}
		if len(w.words) < stemCacheMax {
			// The cache outlives the batch: it must not pin the text.
			w.words[strings.Clone(word)] = l
		}
	}
	if l < 0 {
		return
	}
	w.n++
	if w.tf[l] == 0 {
		w.touched = append(w.touched, l)
	}
	w.tf[l]++
}

// analyse fills j.seg from j.docs.
func (w *worker) analyse(ctx context.Context, j job) error {
	seg := j.seg
	seg.off = make([]uint32, 1, len(j.docs)+1)
	seg.lens = make([]uint32, 0, len(j.docs))
	w.ids, w.tfs = w.ids[:0], w.tfs[:0]
	add := w.add
	for i, doc := range j.docs {
		if i%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		w.n = 0
		eachWord(doc.Title, add)
		eachWord(doc.Body, add)
		for _, l := range w.touched {
			w.ids = append(w.ids, uint32(l))
			w.tfs = append(w.tfs, w.tf[l])
			w.tf[l] = 0
		}
		w.touched = w.touched[:0]
		if uint64(len(w.ids)) > math.MaxUint32 {
			return fmt.Errorf("lexical: build: a batch of %d documents has more than %d term occurrences", len(j.docs), uint32(math.MaxUint32))
		}
		seg.off = append(seg.off, uint32(len(w.ids)))
		seg.lens = append(seg.lens, w.n)
	}
	// Exact-size copies: the scratch arrays are reused for the next batch.
	seg.ids = slices.Clone(w.ids)
	seg.tfs = slices.Clone(w.tfs)
	seg.w = w
	return nil
}
