package encoders

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"boolpool/encoders/tokenizer"
)

// Encoder turns texts into dense vectors, one per text, in order. Vectors
// are L2-normalised, so cosine similarity is their dot product.
type Encoder interface {
	Name() string
	Dim() int
	Encode(ctx context.Context, texts []string) ([][]float32, error)
}

// onnxEncoder runs a sentence-embedding ONNX graph whose inputs are int64
// [batch, seq] tensors (input_ids, attention_mask and, for transformers,
// token_type_ids) and whose output is [batch, dim].
type onnxEncoder struct {
	name     string
	dim      int
	sess     *session
	tok      *tokenizer.Tokenizer
	specials bool // wrap windows in [CLS] … [SEP]
	typeIDs  bool // feed token_type_ids
	window   int  // maximum sequence length of one window, specials included
	batch    int
	release  func() error
}

// Name is the encoder's registry name.
func (e *onnxEncoder) Name() string { return e.name }

// Dim is the vector dimension.
func (e *onnxEncoder) Dim() int { return e.dim }

// Close releases the session and the runtime reference it holds.
func (e *onnxEncoder) Close() error {
	err := e.sess.close()
	if e.release != nil {
		if err2 := e.release(); err == nil {
			err = err2
		}
	}
	return err
}

// piece is one window of one text: its content tokens, without [CLS]/[SEP]
// (runBatch adds them when the encoder uses special tokens).
type piece struct {
	text int
	ids  []int32
}

// Windows splits text into token windows of at most window tokens
// (specials included when specials is set). An empty text gives one window
// (just [CLS] [SEP], or no tokens at all).
func Windows(tok *tokenizer.Tokenizer, text string, window int, specials bool) [][]int32 {
	var out [][]int32
	for _, content := range splitWindows(tok.Tokenize(text), window, specials) {
		w := make([]int32, 0, len(content)+2)
		if specials {
			w = append(w, tok.CLS())
		}
		w = append(w, content...)
		if specials {
			w = append(w, tok.SEP())
		}
		out = append(out, w)
	}
	return out
}

// splitWindows cuts ids into consecutive windows of content tokens that fit
// window tokens (two fewer with specials). No ids gives one empty window.
func splitWindows(ids []int32, window int, specials bool) [][]int32 {
	room := window
	if specials {
		room -= 2
	}
	room = max(room, 1)
	if len(ids) <= room {
		return [][]int32{ids}
	}
	out := make([][]int32, 0, (len(ids)+room-1)/room)
	for start := 0; start < len(ids); start += room {
		out = append(out, ids[start:min(start+room, len(ids)):min(start+room, len(ids))])
	}
	return out
}

// parallelBytes is the text volume from which Encode tokenizes on several
// goroutines. Below it one goroutine is faster: measured on 2 cores with
// one batch of 32 texts (5–45 KB), parallel tokenization was 1.2–1.7× slower
// end to end (ONNX Runtime's worker threads still spin from the previous
// run and take the second core), while for 1024 texts of 128 tokens
// (≈ 700 KB) it was ≈ 3× faster.
const parallelBytes = 64 << 10

// tokenize returns the windows of texts in text order. Large inputs are
// tokenized on GOMAXPROCS goroutines; each appends its texts' ids to one
// growing arena instead of allocating per text.
func (e *onnxEncoder) tokenize(texts []string) []piece {
	ids := make([][]int32, len(texts))
	bytes := 0
	for _, t := range texts {
		bytes += len(t)
	}
	workers := min(runtime.GOMAXPROCS(0), len(texts), bytes/parallelBytes+1)
	work := func(next func() (int, int)) {
		var arena []int32
		for lo, hi := next(); lo < hi; lo, hi = next() {
			for i := lo; i < hi; i++ {
				if cap(arena)-len(arena) < len(texts[i]) {
					arena = make([]int32, 0, max(len(texts[i])+16, 4096))
				}
				start := len(arena)
				arena = e.tok.AppendTokens(arena, texts[i])
				ids[i] = arena[start:len(arena):len(arena)]
			}
		}
	}
	if workers <= 1 {
		done := false
		work(func() (int, int) {
			if done {
				return 0, 0
			}
			done = true
			return 0, len(texts)
		})
	} else {
		chunk := max(1, len(texts)/(4*workers))
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				work(func() (int, int) {
					lo := int(next.Add(int64(chunk))) - chunk
					return min(lo, len(texts)), min(lo+chunk, len(texts))
				})
			})
		}
		wg.Wait()
	}
	pieces := make([]piece, 0, len(texts))
	for i, t := range ids {
		for _, w := range splitWindows(t, e.window, e.specials) {
			pieces = append(pieces, piece{text: i, ids: w})
		}
	}
	return pieces
}

// plan tokenizes texts and orders their windows by length: similar lengths
// share a batch, so little padding is needed.
func (e *onnxEncoder) plan(texts []string) ([]piece, []int) {
	pieces := e.tokenize(texts)
	order := make([]int, len(pieces))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(pieces[a].ids) - len(pieces[b].ids) })
	return pieces, order
}

// Encode embeds texts; see the package documentation for batching and the
// aggregation of long texts.
func (e *onnxEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	pieces, order := e.plan(texts)
	sums := make([][]float32, len(texts))
	counts := make([]int, len(texts))
	for start := 0; start < len(order); start += e.batch {
		idx := order[start:min(start+e.batch, len(order))]
		vecs, err := e.runBatch(ctx, pieces, idx)
		if err != nil {
			return nil, fmt.Errorf("encoders: %s: %w", e.name, err)
		}
		for j, pi := range idx {
			t := pieces[pi].text
			if sums[t] == nil {
				sums[t] = vecs[j]
			} else {
				for d, v := range vecs[j] {
					sums[t][d] += v
				}
			}
			counts[t]++
		}
	}
	for t, v := range sums {
		if counts[t] > 1 {
			normalize(v)
		}
	}
	return sums, nil
}

// Batch is the input of one inference call exactly as Encode builds it
// (tokenized, windowed, sorted, padded): Rows × Seq int64 tensors, one per
// session input.
type Batch struct {
	Rows, Seq int
	Names     []string
	Inputs    [][]int64
}

// Batches returns the inference calls Encode makes for texts, so that a
// benchmark can time the model alone on the same tensors (or hand them to
// another runtime).
func (e *onnxEncoder) Batches(texts []string) []Batch {
	pieces, order := e.plan(texts)
	var out []Batch
	for start := 0; start < len(order); start += e.batch {
		idx := order[start:min(start+e.batch, len(order))]
		var buf inputBufs
		seq, inputs := e.fill(&buf, pieces, idx)
		for i := range inputs {
			inputs[i] = slices.Clone(inputs[i])
		}
		out = append(out, Batch{Rows: len(idx), Seq: seq, Names: e.sess.inputs, Inputs: inputs})
	}
	return out
}

// RunBatch runs the model on one batch from Batches and returns its rows'
// vectors (window vectors, not yet combined per text).
func (e *onnxEncoder) RunBatch(ctx context.Context, b Batch) ([][]float32, error) {
	if len(b.Inputs) != len(e.sess.inputs) {
		return nil, fmt.Errorf("encoders: %s: batch has %d inputs, want %d", e.name, len(b.Inputs), len(e.sess.inputs))
	}
	for _, in := range b.Inputs {
		if len(in) < b.Rows*b.Seq {
			return nil, fmt.Errorf("encoders: %s: input of %d values for %d×%d", e.name, len(in), b.Rows, b.Seq)
		}
	}
	return e.sess.run(ctx, b.Rows, b.Seq, b.Inputs, make([]float32, b.Rows*e.dim))
}

// inputBufs are the int64 input buffers of one batch, recycled across
// batches and calls through inputPool.
type inputBufs struct{ ids, mask, types []int64 }

var inputPool = sync.Pool{New: func() any { return new(inputBufs) }}

// grow returns s resized to n elements, reusing its array when it is large
// enough (the contents are unspecified).
func grow(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n, n+n/4)
	}
	return s[:n]
}

// fill writes the chosen pieces into buf, padded to the longest one
// ([CLS]/[SEP] added when the encoder uses them), and returns the sequence
// length and the session inputs (slices of buf).
func (e *onnxEncoder) fill(buf *inputBufs, pieces []piece, idx []int) (int, [][]int64) {
	extra := 0
	if e.specials {
		extra = 2
	}
	seq := 1
	for _, pi := range idx {
		seq = max(seq, len(pieces[pi].ids)+extra)
	}
	n := len(idx) * seq
	buf.ids, buf.mask = grow(buf.ids, n), grow(buf.mask, n)
	pad, cls, sep := int64(e.tok.PAD()), int64(e.tok.CLS()), int64(e.tok.SEP())
	for j, pi := range idx {
		row, mrow := buf.ids[j*seq:(j+1)*seq], buf.mask[j*seq:(j+1)*seq]
		k := 0
		if e.specials {
			row[0] = cls
			k = 1
		}
		for _, id := range pieces[pi].ids {
			row[k] = int64(id)
			k++
		}
		if e.specials {
			row[k] = sep
			k++
		}
		for m := range k {
			mrow[m] = 1
		}
		for ; k < seq; k++ {
			row[k], mrow[k] = pad, 0
		}
	}
	inputs := [][]int64{buf.ids, buf.mask}
	if e.typeIDs {
		if cap(buf.types) < n {
			buf.types = make([]int64, n, n+n/4) // never written: all zero
		}
		inputs = append(inputs, buf.types[:n])
	}
	return seq, inputs
}

// runBatch runs the chosen pieces as one batch. The vectors it returns
// share one fresh array (ONNX Runtime writes into it); the input buffers are
// reused across calls.
func (e *onnxEncoder) runBatch(ctx context.Context, pieces []piece, idx []int) ([][]float32, error) {
	buf := inputPool.Get().(*inputBufs)
	defer inputPool.Put(buf)
	seq, inputs := e.fill(buf, pieces, idx)
	return e.sess.run(ctx, len(idx), seq, inputs, make([]float32, len(idx)*e.dim))
}

// normalize scales v to unit length (no-op for the zero vector).
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

// Cosine is the cosine similarity of two vectors.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
