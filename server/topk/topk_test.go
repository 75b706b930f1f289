package topk

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeapKeepsTheBestInOrder: for every k, the Heap fed a shuffled
// stream returns the same values as sorting the whole stream and taking
// the first k; it wants a value above all when k > 0, one below all only
// while it is not full.
func TestHeapKeepsTheBestInOrder(t *testing.T) {
	type v struct {
		score float64
		id    int
	}
	better := func(a, b v) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		return a.id < b.id
	}
	r := rand.New(rand.NewPCG(1, 2))
	var all []v
	for i := range 50 {
		all = append(all, v{float64(r.IntN(10)), i}) // many ties on score
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b v) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	for _, k := range []int{-1, 0, 1, 7, 50, 80} {
		h := New(k, better)
		for _, i := range r.Perm(len(all)) {
			h.Offer(all[i])
		}
		want := sorted[:min(max(k, 0), len(sorted))]
		top, bottom := v{100, -1}, v{-1, 100}
		if h.Wants(top) != (k > 0) || h.Wants(bottom) != (k > len(all)) {
			t.Errorf("k=%d: Wants(best) = %t, Wants(worst) = %t", k, h.Wants(top), h.Wants(bottom))
		}
		if got := h.Best(); !slices.Equal(got, want) {
			t.Errorf("k=%d: got %v, want %v", k, got, want)
		}
		if h.Len() != 0 {
			t.Errorf("k=%d: %d values left after Best", k, h.Len())
		}
	}
}
