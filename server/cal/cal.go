package cal

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Options configure the active learner.
type Options struct {
	// Negatives is the number of random unjudged documents added to every
	// round's training set as provisional non-relevant examples (AutoTAR:
	// 100), drawn afresh each round.
	Negatives int
	Train     TrainOptions
}

// DefaultOptions: 100 provisional negatives, DefaultTrainOptions.
func DefaultOptions() Options { return Options{Negatives: 100, Train: DefaultTrainOptions()} }

// Engine ranks a corpus for one query at a time. It is immutable and safe
// for concurrent use.
type Engine struct {
	f   *Features
	opt Options
}

// NewEngine returns an engine over f.
func NewEngine(f *Features, opt Options) *Engine {
	if opt.Negatives < 0 {
		opt.Negatives = 0
	}
	return &Engine{f: f, opt: opt}
}

// Features returns the engine's features.
func (e *Engine) Features() *Features { return e.f }

// Request is one round: the labels so far (document id → relevant), the
// query text as a pseudo-document (a relevant training example, as in
// AutoTAR; may be empty), a prior ranking (e.g. the reciprocal-rank fusion
// of the query's runs) used while there is nothing to learn from, and the
// number of documents wanted.
type Request struct {
	Query  string
	Labels map[string]bool
	Prior  []string
	Size   int
	Round  int // seeds the provisional negatives (deterministic per round)
}

// NextBatch trains on the request's labels and returns the Size
// highest-scoring unjudged documents of the whole corpus, best first. With
// no relevant example at all (no relevant label, empty query) it serves
// the prior ranking's unjudged documents instead. Labels naming documents
// not in the corpus are an error.
func (e *Engine) NextBatch(ctx context.Context, r Request) ([]string, error) {
	judged := make(map[uint32]bool, len(r.Labels))
	for id, rel := range r.Labels {
		d, ok := e.f.DocNum(id)
		if !ok {
			return nil, fmt.Errorf("cal: label for unknown document %q", id)
		}
		judged[d] = rel
	}
	var pseudo Vec
	if r.Query != "" {
		pseudo = e.f.Vectorize(r.Query)
	}
	docs, err := e.next(ctx, pseudo, judged, r.Prior, r.Size, r.Round)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = e.f.DocID(d)
	}
	return out, nil
}

// next is NextBatch on document numbers.
func (e *Engine) next(ctx context.Context, pseudo Vec, judged map[uint32]bool, prior []string, size, round int) ([]uint32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := e.f.NumDocs()
	size = min(size, n-len(judged))
	if size <= 0 {
		return nil, nil
	}
	var pos, neg []Vec
	if len(pseudo.Idx) > 0 {
		pos = append(pos, pseudo)
	}
	keys := make([]uint32, 0, len(judged))
	for d := range judged {
		keys = append(keys, d)
	}
	slices.Sort(keys) // map order is random; training must not be
	for _, d := range keys {
		if judged[d] {
			pos = append(pos, e.f.Row(d))
		} else {
			neg = append(neg, e.f.Row(d))
		}
	}
	if len(pos) == 0 {
		return e.fromPrior(judged, prior, size, round), nil
	}
	rng := rand.New(rand.NewPCG(e.opt.Train.Seed, uint64(round)+1))
	for k, tries := 0, 0; k < e.opt.Negatives && tries < 10*e.opt.Negatives; tries++ {
		d := uint32(rng.IntN(n))
		if _, ok := judged[d]; !ok {
			neg = append(neg, e.f.Row(d))
			k++
		}
	}
	if len(neg) == 0 {
		return e.fromPrior(judged, prior, size, round), nil
	}
	to := e.opt.Train
	to.Seed = e.opt.Train.Seed ^ uint64(round)*0x2545f4914f6cdd1d
	m, err := Train(e.f.Dim(), pos, neg, to)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, n)
	m.ScoreAll(e.f, scores)
	return topUnjudged(scores, judged, size), nil
}

// fromPrior serves the prior's unjudged documents, then random ones.
func (e *Engine) fromPrior(judged map[uint32]bool, prior []string, size, round int) []uint32 {
	var out []uint32
	taken := map[uint32]bool{}
	for _, id := range prior {
		if len(out) == size {
			return out
		}
		if d, ok := e.f.DocNum(id); ok && !taken[d] {
			if _, j := judged[d]; !j {
				taken[d] = true
				out = append(out, d)
			}
		}
	}
	rng := rand.New(rand.NewPCG(e.opt.Train.Seed, uint64(round)+7))
	for _, i := range rng.Perm(e.f.NumDocs()) {
		if len(out) == size {
			break
		}
		d := uint32(i)
		if _, j := judged[d]; !j && !taken[d] {
			out = append(out, d)
		}
	}
	return out
}

// topUnjudged returns the k best-scoring documents not in judged, best
// first (ties: lower document number first).
func topUnjudged(scores []float64, judged map[uint32]bool, k int) []uint32 {
	h := &minHeap{scores: scores}
	for d := range scores {
		u := uint32(d)
		if len(h.docs) == k && !better(scores, u, h.docs[0]) {
			continue
		}
		if _, j := judged[u]; j {
			continue
		}
		if len(h.docs) < k {
			heap.Push(h, u)
		} else {
			h.docs[0] = u
			heap.Fix(h, 0)
		}
	}
	out := make([]uint32, len(h.docs))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(uint32)
	}
	return out
}

func better(s []float64, a, b uint32) bool {
	if s[a] != s[b] {
		return s[a] > s[b]
	}
	return a < b
}

// minHeap keeps the worst of the best k on top.
type minHeap struct {
	scores []float64
	docs   []uint32
}

func (h *minHeap) Len() int           { return len(h.docs) }
func (h *minHeap) Less(i, j int) bool { return better(h.scores, h.docs[j], h.docs[i]) }
func (h *minHeap) Swap(i, j int)      { h.docs[i], h.docs[j] = h.docs[j], h.docs[i] }
func (h *minHeap) Push(x any)         { h.docs = append(h.docs, x.(uint32)) }
func (h *minHeap) Pop() any {
	x := h.docs[len(h.docs)-1]
	h.docs = h.docs[:len(h.docs)-1]
	return x
}

// NextBatchSize is AutoTAR's batch growth: 1 first, then B + ceil(B/10).
func NextBatchSize(prev int) int {
	if prev < 1 {
		return 1
	}
	return prev + (prev+9)/10
}
