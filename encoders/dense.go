package encoders

import (
	"context"
	"fmt"
	"math"
	"slices"

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

// piece is one window of one text.
type piece struct {
	text int
	ids  []int32
}

// Windows splits text into token windows of at most window tokens
// (specials included when specials is set). An empty text gives one window
// (just [CLS] [SEP], or no tokens at all).
func Windows(tok *tokenizer.Tokenizer, text string, window int, specials bool) [][]int32 {
	ids := tok.Tokenize(text)
	room := window
	if specials {
		room -= 2
	}
	room = max(room, 1)
	var out [][]int32
	for start := 0; start < len(ids) || (start == 0 && len(out) == 0); start += room {
		end := min(start+room, len(ids))
		w := make([]int32, 0, end-start+2)
		if specials {
			w = append(w, tok.CLS())
		}
		w = append(w, ids[start:end]...)
		if specials {
			w = append(w, tok.SEP())
		}
		out = append(out, w)
		if end == len(ids) {
			break
		}
	}
	return out
}

// Encode embeds texts; see the package documentation for batching and the
// aggregation of long texts.
func (e *onnxEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	var pieces []piece
	for i, t := range texts {
		for _, w := range Windows(e.tok, t, e.window, e.specials) {
			pieces = append(pieces, piece{text: i, ids: w})
		}
	}
	// Similar lengths together: less padding per batch.
	order := make([]int, len(pieces))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(pieces[a].ids) - len(pieces[b].ids) })

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

// runBatch pads the chosen pieces to the longest one and runs the session.
func (e *onnxEncoder) runBatch(ctx context.Context, pieces []piece, idx []int) ([][]float32, error) {
	seq := 1
	for _, pi := range idx {
		seq = max(seq, len(pieces[pi].ids))
	}
	n := len(idx) * seq
	ids := make([]int64, n)
	mask := make([]int64, n)
	for j, pi := range idx {
		row := ids[j*seq : (j+1)*seq]
		for k, id := range pieces[pi].ids {
			row[k] = int64(id)
			mask[j*seq+k] = 1
		}
		for k := len(pieces[pi].ids); k < seq; k++ {
			row[k] = int64(e.tok.PAD())
		}
	}
	inputs := [][]int64{ids, mask}
	if e.typeIDs {
		inputs = append(inputs, make([]int64, n))
	}
	return e.sess.run(ctx, len(idx), seq, inputs)
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
