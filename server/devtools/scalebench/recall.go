package scalebench

import (
	"container/heap"
	"context"
	"fmt"
	"runtime"
	"sync"

	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// recallDepths are the cut-offs of the HNSW recall measured against exact
// search (issue 27: ≥ 0.95 at both).
var recallDepths = []int{10, 100}

// hnswRecall is the mean recall@k, for each of recallDepths, of the
// project's pgvector kNN (PgVectors.Search, what dense-vanilla calls)
// against exact cosine search over the same stored vectors, on the same
// query vectors. The exact search streams the project's vectors once and
// keeps each query's top max(recallDepths) (ties by document id).
func hnswRecall(ctx context.Context, st *store.Store, pv *retrieval.PgVectors, queries [][]float32) ([]float64, error) {
	depth := recallDepths[len(recallDepths)-1]
	exact, err := exactTop(ctx, st, pv, queries, depth)
	if err != nil {
		return nil, err
	}
	sums := make([]float64, len(recallDepths))
	for qi, q := range queries {
		for di, k := range recallDepths {
			res, err := pv.Search(ctx, q, k)
			if err != nil {
				return nil, fmt.Errorf("scalebench: recall: %w", err)
			}
			want := map[string]bool{}
			for _, d := range exact[qi][:min(k, len(exact[qi]))] {
				want[d.id] = true
			}
			hits := 0
			for _, r := range res {
				if want[r.DocID] {
					hits++
				}
			}
			if len(want) > 0 {
				sums[di] += float64(hits) / float64(len(want))
			}
		}
	}
	for i := range sums {
		sums[i] /= float64(len(queries))
	}
	return sums, nil
}

type scored struct {
	id    string
	score float64
}

// worse orders a top-k heap: the root is the weakest hit.
func worse(a, b scored) bool { return a.score < b.score || a.score == b.score && a.id > b.id }

type topHeap []scored

func (h topHeap) Len() int           { return len(h) }
func (h topHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h topHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// exactTop returns each query's k most cosine-similar documents of the
// project, best first, by a brute-force pass over the stored vectors
// (chunks of documents scored by GOMAXPROCS goroutines, each owning a
// share of the queries).
func exactTop(ctx context.Context, st *store.Store, pv *retrieval.PgVectors, queries [][]float32, k int) ([][]scored, error) {
	unit := make([][]float32, len(queries))
	for i, q := range queries {
		unit[i] = retrieval.Normalized(q)
	}
	heaps := make([]topHeap, len(queries))
	workers := runtime.GOMAXPROCS(0)
	type doc struct {
		id  string
		vec []float32
	}
	var chunk []doc
	flush := func() {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for qi := w; qi < len(unit); qi += workers {
					q, h := unit[qi], &heaps[qi]
					for _, d := range chunk {
						s := scored{d.id, dot(q, d.vec)}
						if h.Len() < k {
							heap.Push(h, s)
						} else if worse((*h)[0], s) {
							(*h)[0] = s
							heap.Fix(h, 0)
						}
					}
				}
			}()
		}
		wg.Wait()
		chunk = chunk[:0]
	}
	err := st.EachDocumentVector(ctx, pv.ProjectID, pv.Encoder, func(id string, v []float32) error {
		chunk = append(chunk, doc{id, retrieval.Normalized(v)})
		if len(chunk) == 4096 {
			flush()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scalebench: exact search: %w", err)
	}
	flush()
	out := make([][]scored, len(queries))
	for i := range heaps {
		h := heaps[i]
		out[i] = make([]scored, h.Len())
		for j := len(out[i]) - 1; j >= 0; j-- {
			out[i][j] = heap.Pop(&h).(scored)
		}
	}
	return out, nil
}

func dot(a, b []float32) float64 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
