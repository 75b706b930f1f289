package encoders

import (
	"context"
	"fmt"
	"math"
	"slices"
	"unicode"
	"unicode/utf8"

	"boolpool/encoders/tokenizer"
)

// SparseVector is a term-weight vector over a vocabulary: Indices are
// ascending term ids, Values their weights (pgvector's sparsevec layout,
// with 0-based ids).
type SparseVector struct {
	Indices []int32
	Values  []float32
}

// Map returns the vector as id → weight.
func (v SparseVector) Map() map[int32]float32 {
	m := make(map[int32]float32, len(v.Indices))
	for i, id := range v.Indices {
		m[id] = v.Values[i]
	}
	return m
}

// Dot is the inner product of two sparse vectors.
func (v SparseVector) Dot(w SparseVector) float64 {
	var s float64
	for i, j := 0, 0; i < len(v.Indices) && j < len(w.Indices); {
		switch {
		case v.Indices[i] < w.Indices[j]:
			i++
		case v.Indices[i] > w.Indices[j]:
			j++
		default:
			s += float64(v.Values[i]) * float64(w.Values[j])
			i++
			j++
		}
	}
	return s
}

// fromMap builds a SparseVector from id → weight.
func fromMap(m map[int32]float32) SparseVector {
	v := SparseVector{Indices: make([]int32, 0, len(m)), Values: make([]float32, 0, len(m))}
	for id := range m {
		v.Indices = append(v.Indices, id)
	}
	slices.Sort(v.Indices)
	for _, id := range v.Indices {
		v.Values = append(v.Values, m[id])
	}
	return v
}

// SparseEncoder produces term-weight vectors whose dimensions are the ids of
// a vocabulary. Documents and queries may be weighted differently (lexical
// BM25-style weights do; a learned-sparse model such as SPLADE, run through
// ONNX Runtime with a [batch, vocab] output, may weight both alike).
type SparseEncoder interface {
	Name() string
	// Dim is the vocabulary size: the sparsevec dimension.
	Dim() int
	EncodeDocuments(ctx context.Context, texts []string) ([]SparseVector, error)
	EncodeQueries(ctx context.Context, texts []string) ([]SparseVector, error)
}

// TermStats are collection statistics for IDF: the number of documents and,
// per term id, the number of documents containing it.
type TermStats struct {
	Docs int
	DF   []int32
}

// CollectTermStats counts document frequencies of the tokenizer's terms.
func CollectTermStats(tok *tokenizer.Tokenizer, texts []string) TermStats {
	st := TermStats{Docs: len(texts), DF: make([]int32, tok.VocabSize())}
	seen := make(map[int32]bool)
	for _, t := range texts {
		clear(seen)
		for _, id := range tok.Tokenize(t) {
			if !seen[id] {
				seen[id] = true
				st.DF[id]++
			}
		}
	}
	return st
}

// Lexical is the lexical sparse encoder: the WordPiece terms of the text
// (special tokens and lone punctuation dropped), weighted
//
//	document: log(1 + tf) · idf
//	query:    (k1 + 1) · qtf / (k1 + qtf) · idf      (BM25's term saturation, k1 = 1.2)
//
// with the BM25 idf ln(1 + (N − df + 0.5) / (df + 0.5)); without collection
// statistics idf = 1.
type Lexical struct {
	tok  *tokenizer.Tokenizer
	idf  []float32
	skip []bool
}

// LexicalName is the lexical sparse encoder's registry name.
const LexicalName = "lexical"

// NewLexical makes a lexical encoder over tok's vocabulary; stats may be nil.
func NewLexical(tok *tokenizer.Tokenizer, stats *TermStats) (*Lexical, error) {
	n := tok.VocabSize()
	l := &Lexical{tok: tok, skip: make([]bool, n)}
	for id := range n {
		s := tok.Token(int32(id))
		r, size := utf8.DecodeRuneInString(s)
		l.skip[id] = tok.IsSpecial(int32(id)) || (size == len(s) && (unicode.IsPunct(r) || unicode.IsSymbol(r)))
	}
	if stats != nil {
		if len(stats.DF) != n {
			return nil, fmt.Errorf("encoders: term stats over %d terms, vocabulary has %d", len(stats.DF), n)
		}
		l.idf = make([]float32, n)
		N := float64(stats.Docs)
		for id, df := range stats.DF {
			l.idf[id] = float32(math.Log(1 + (N-float64(df)+0.5)/(float64(df)+0.5)))
		}
	}
	return l, nil
}

// Name is "lexical".
func (l *Lexical) Name() string { return LexicalName }

// Dim is the vocabulary size.
func (l *Lexical) Dim() int { return l.tok.VocabSize() }

// EncodeDocuments weights terms by log(1 + tf) · idf.
func (l *Lexical) EncodeDocuments(ctx context.Context, texts []string) ([]SparseVector, error) {
	return l.encode(ctx, texts, func(tf float64) float64 { return math.Log1p(tf) })
}

// EncodeQueries weights terms by BM25's saturation of the query term
// frequency times idf.
func (l *Lexical) EncodeQueries(ctx context.Context, texts []string) ([]SparseVector, error) {
	const k1 = 1.2
	return l.encode(ctx, texts, func(tf float64) float64 { return (k1 + 1) * tf / (k1 + tf) })
}

func (l *Lexical) encode(ctx context.Context, texts []string, tfWeight func(float64) float64) ([]SparseVector, error) {
	out := make([]SparseVector, len(texts))
	tf := map[int32]float32{}
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		clear(tf)
		for _, id := range l.tok.Tokenize(t) {
			if !l.skip[id] {
				tf[id]++
			}
		}
		for id, n := range tf {
			w := float32(tfWeight(float64(n)))
			if l.idf != nil {
				w *= l.idf[id]
			}
			tf[id] = w
		}
		out[i] = fromMap(tf)
	}
	return out, nil
}
