package retrieval

import (
	"container/heap"
	"context"
	"fmt"
	"math"
)

// MemoryVectors is an exact (brute-force) in-memory VectorIndex. It serves
// experiments and tests, and checks approximate (HNSW) search: 60k documents
// × 256 dimensions take a few milliseconds per query.
type MemoryVectors struct {
	ids  []string
	vecs [][]float32 // L2-normalised
	at   map[string]int
}

// NewMemoryVectors indexes vectors (normalised on the way in) by document id.
func NewMemoryVectors(ids []string, vecs [][]float32) (*MemoryVectors, error) {
	if len(ids) != len(vecs) {
		return nil, fmt.Errorf("retrieval: %d ids for %d vectors", len(ids), len(vecs))
	}
	m := &MemoryVectors{ids: ids, vecs: make([][]float32, len(vecs)), at: make(map[string]int, len(ids))}
	for i, v := range vecs {
		m.vecs[i] = Normalized(v)
		m.at[ids[i]] = i
	}
	return m, nil
}

// Normalized returns v scaled to unit length (a zero vector stays zero),
// as every cosine search here compares vectors.
func Normalized(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	s := 1 / math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) * s)
	}
	return out
}

func dot32(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// Search implements VectorIndex (exact cosine top k).
func (m *MemoryVectors) Search(_ context.Context, vec []float32, k int) ([]Result, error) {
	q := Normalized(vec)
	if k <= 0 || k > len(m.ids) {
		k = len(m.ids)
	}
	h := &resultHeap{}
	for i, v := range m.vecs {
		r := Result{DocID: m.ids[i], Score: dot32(q, v)}
		if h.Len() < k {
			heap.Push(h, r)
		} else if better(r, h.rs[0]) {
			h.rs[0] = r
			heap.Fix(h, 0)
		}
	}
	return sortResults(h.rs, k), nil
}

func better(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.DocID < b.DocID
}

// resultHeap is a min-heap: the worst result on top.
type resultHeap struct{ rs []Result }

func (h *resultHeap) Len() int           { return len(h.rs) }
func (h *resultHeap) Less(i, j int) bool { return better(h.rs[j], h.rs[i]) }
func (h *resultHeap) Swap(i, j int)      { h.rs[i], h.rs[j] = h.rs[j], h.rs[i] }
func (h *resultHeap) Push(x any)         { h.rs = append(h.rs, x.(Result)) }
func (h *resultHeap) Pop() any {
	x := h.rs[len(h.rs)-1]
	h.rs = h.rs[:len(h.rs)-1]
	return x
}

// Similarities implements VectorIndex.
func (m *MemoryVectors) Similarities(_ context.Context, vec []float32, docIDs []string) (map[string]float64, error) {
	q := Normalized(vec)
	out := make(map[string]float64, len(docIDs))
	for _, id := range docIDs {
		if i, ok := m.at[id]; ok {
			out[id] = dot32(q, m.vecs[i])
		}
	}
	return out, nil
}

// Size implements VectorIndex.
func (m *MemoryVectors) Size(context.Context) (int, error) { return len(m.ids), nil }
