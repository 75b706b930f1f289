package cal

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"boolpool/server/topk"
)

// Options configure the active learner.
type Options struct {
	// Negatives is the number of random unjudged documents added to every
	// round's training set as provisional non-relevant examples (AutoTAR:
	// 100), drawn afresh each round.
	Negatives int
	// PriorWeight > 0 adds the prior ranking (the fusion of the query's
	// runs) as one more feature: a document at rank r (from 0) of the prior
	// has the value PriorWeight · PriorDepth / (PriorDepth + r), others 0,
	// and the query pseudo-document PriorWeight; the classifier learns how
	// much to trust the runs. 0: the prior only serves while nothing
	// relevant is known.
	PriorWeight float64
	PriorDepth  float64
	// QueryParts reads the query text as QUEST's templates write it: the
	// part after "that are not" / "but not" is dropped (it names what the
	// answers are not), and alternatives joined by "or" become one
	// pseudo-document each. Off: the whole text is one pseudo-document.
	QueryParts bool
	// QueryCosine > 0 (with dense features and a query vector) adds the
	// cosine of each document's embedding to the query's as one more
	// feature of value QueryCosine · cos (the pseudo-documents:
	// QueryCosine).
	QueryCosine float64
	Train       TrainOptions
}

// DefaultOptions: 100 provisional negatives, the prior as a feature of
// weight 0.5, DefaultTrainOptions.
func DefaultOptions() Options {
	return Options{Negatives: 100, PriorWeight: 0.5, PriorDepth: 100, Train: DefaultTrainOptions()}
}

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
	// QueryVec is the query text's embedding by the encoder of the dense
	// features (ignored without them): it joins the pseudo-documents'
	// dense block and gives the query-cosine feature.
	QueryVec []float32
}

// NextBatch trains on the request's labels and returns the Size
// highest-scoring unjudged documents of the whole corpus, best first. With
// no relevant example at all (no relevant label, empty query) it serves
// the prior ranking's unjudged documents instead. Labels naming documents
// not in the corpus are an error.
func (e *Engine) NextBatch(ctx context.Context, r Request) ([]string, error) {
	judged, err := e.docNums(r.Labels)
	if err != nil {
		return nil, err
	}
	pseudo := e.pseudoDocs(r.Query, r.QueryVec)
	docs, err := e.next(ctx, pseudo, e.cosines(r.QueryVec), judged, r.Prior, r.Size, r.Round)
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
// cos is the query-cosine feature's value per document (nil: none).
func (e *Engine) next(ctx context.Context, pseudo []Vec, cos []float64, judged map[uint32]bool, prior []string, size, round int) ([]uint32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	size = min(size, e.f.NumDocs()-len(judged))
	if size <= 0 {
		return nil, nil
	}
	scores, err := e.train(pseudo, cos, judged, prior, round)
	if err != nil {
		return nil, err
	}
	if scores == nil {
		return e.fromPrior(judged, prior, size, round), nil
	}
	return topUnjudged(scores, judged, size), nil
}

// Scores trains on labels (document id → relevant) with query as the
// relevant pseudo-document, as NextBatch does (without a prior or a dense
// query), and returns every document's score, indexed by document number
// (Features.DocNum): higher is more likely relevant. With nothing
// relevant to learn from (no relevant label, no indexed query term) it
// returns nil scores.
func (e *Engine) Scores(ctx context.Context, query string, labels map[string]bool, round int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	judged, err := e.docNums(labels)
	if err != nil {
		return nil, err
	}
	return e.train(e.pseudoDocs(query, nil), nil, judged, nil, round)
}

// docNums keys labels (document id → relevant) by document number; a
// document not in the corpus is an error.
func (e *Engine) docNums(labels map[string]bool) (map[uint32]bool, error) {
	judged := make(map[uint32]bool, len(labels))
	for id, rel := range labels {
		d, ok := e.f.DocNum(id)
		if !ok {
			return nil, fmt.Errorf("cal: label for unknown document %q", id)
		}
		judged[d] = rel
	}
	return judged, nil
}

// train fits the round's model — the pseudo-documents and the judged
// documents, plus Negatives random unjudged documents as provisional
// non-relevant examples — and scores every document. Nil scores when
// there is no relevant or no non-relevant example.
func (e *Engine) train(pseudo []Vec, cos []float64, judged map[uint32]bool, prior []string, round int) ([]float64, error) {
	n := e.f.NumDocs()
	var pos, neg []Vec
	pos = append(pos, pseudo...)
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
		return nil, nil
	}
	rng := rand.New(rand.NewPCG(e.opt.Train.Seed, uint64(round)+1))
	var provisional []uint32
	for k, tries := 0, 0; k < e.opt.Negatives && tries < 10*e.opt.Negatives; tries++ {
		d := uint32(rng.IntN(n))
		if _, ok := judged[d]; !ok {
			neg = append(neg, e.f.Row(d))
			provisional = append(provisional, d)
			k++
		}
	}
	if len(neg) == 0 {
		return nil, nil
	}
	// Query-specific features, in columns above the corpus features: the
	// prior (the fused runs) and the query cosine. extra lists a
	// document's values; the pseudo-documents take pseudoExtra.
	dim := e.f.Dim()
	var pv map[uint32]float64
	var cols []uint32
	var pseudoExtra []float32
	if e.opt.PriorWeight > 0 && len(prior) > 0 {
		pv = e.priorValues(prior)
		cols = append(cols, uint32(dim))
		pseudoExtra = append(pseudoExtra, float32(e.opt.PriorWeight))
		dim++
	}
	cosCol := -1
	if cos != nil {
		cosCol = len(cols)
		cols = append(cols, uint32(dim))
		pseudoExtra = append(pseudoExtra, float32(e.opt.QueryCosine))
		dim++
	}
	extra := func(d uint32) []float32 {
		vals := make([]float32, len(cols))
		if pv != nil {
			vals[0] = float32(pv[d])
		}
		if cosCol >= 0 {
			vals[cosCol] = float32(cos[d])
		}
		return vals
	}
	if len(cols) > 0 {
		// pos and neg are in the order they were built: the pseudo-documents,
		// then the judged documents ascending, then the provisional negatives.
		pi, ni := len(pseudo), 0
		for i := range pseudo {
			pos[i] = withExtra(pos[i], cols, pseudoExtra)
		}
		for _, d := range keys {
			if judged[d] {
				pos[pi] = withExtra(pos[pi], cols, extra(d))
				pi++
			} else {
				neg[ni] = withExtra(neg[ni], cols, extra(d))
				ni++
			}
		}
		for _, d := range provisional {
			neg[ni] = withExtra(neg[ni], cols, extra(d))
			ni++
		}
	}
	to := e.opt.Train
	to.Seed = e.opt.Train.Seed ^ uint64(round)*0x2545f4914f6cdd1d
	m, err := Train(dim, pos, neg, to)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, n)
	m.ScoreAll(e.f, scores)
	if pv != nil {
		w := m.W[cols[0]]
		for d, v := range pv {
			scores[d] += w * v
		}
	}
	if cosCol >= 0 {
		w := m.W[cols[cosCol]]
		for d := range scores {
			scores[d] += w * cos[d]
		}
	}
	return scores, nil
}

// pseudoDocs are the relevant pseudo-documents of a query text (none for
// an empty text or one without an indexed term), each joined with the
// query's embedding qvec when the features have a dense block (with no
// indexed term, the embedding alone is the pseudo-document).
func (e *Engine) pseudoDocs(query string, qvec []float32) []Vec {
	parts := []string{query}
	if e.opt.QueryParts {
		q := strings.ToLower(query)
		for _, neg := range []string{" that are not ", " but not "} {
			if i := strings.Index(q, neg); i >= 0 {
				q = q[:i]
			}
		}
		parts = strings.Split(q, " or ")
	}
	var out []Vec
	for _, p := range parts {
		if v := e.f.Vectorize(p); len(v.Idx) > 0 {
			out = append(out, e.f.withDense(v, qvec))
		}
	}
	if len(out) == 0 && e.f.HasDense() && len(qvec) == e.f.DenseDim() {
		// No word of the query is in the corpus: its embedding alone.
		out = append(out, e.f.withDense(Vec{}, qvec))
	}
	return out
}

// priorValues maps the prior's documents to their feature value.
func (e *Engine) priorValues(prior []string) map[uint32]float64 {
	pv := make(map[uint32]float64, len(prior))
	depth := max(e.opt.PriorDepth, 1)
	r := 0
	for _, id := range prior {
		if d, ok := e.f.DocNum(id); ok {
			if _, dup := pv[d]; !dup {
				pv[d] = e.opt.PriorWeight * depth / (depth + float64(r))
				r++
			}
		}
	}
	return pv
}

// cosines is the query-cosine feature's value of every document (nil when
// the feature is off, the features have no dense block or qvec is
// missing or of another dimension).
func (e *Engine) cosines(qvec []float32) []float64 {
	if e.opt.QueryCosine <= 0 || !e.f.HasDense() || len(qvec) != e.f.DenseDim() {
		return nil
	}
	out := make([]float64, e.f.NumDocs())
	if err := e.f.Cosines(qvec, out); err != nil {
		return nil
	}
	for i := range out {
		out[i] *= e.opt.QueryCosine
	}
	return out
}

// withExtra is x with more features (columns cols, above all of x's;
// zero values dropped).
func withExtra(x Vec, cols []uint32, vals []float32) Vec {
	idx := make([]uint32, len(x.Idx), len(x.Idx)+len(cols))
	val := make([]float32, len(x.Val), len(x.Val)+len(cols))
	copy(idx, x.Idx)
	copy(val, x.Val)
	for i, c := range cols {
		if vals[i] != 0 {
			idx = append(idx, c)
			val = append(val, vals[i])
		}
	}
	return Vec{Idx: idx, Val: val}
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
	h := topk.New(k, func(a, b uint32) bool { return better(scores, a, b) })
	for d := range scores {
		u := uint32(d)
		if !h.Wants(u) {
			continue
		}
		if _, j := judged[u]; j {
			continue
		}
		h.Offer(u)
	}
	return h.Best()
}

func better(s []float64, a, b uint32) bool {
	if s[a] != s[b] {
		return s[a] > s[b]
	}
	return a < b
}

// NextBatchSize is AutoTAR's batch growth: 1 first, then B + ceil(B/10).
func NextBatchSize(prev int) int {
	if prev < 1 {
		return 1
	}
	return prev + (prev+9)/10
}
