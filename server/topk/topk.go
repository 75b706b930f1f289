// Package topk keeps the k best of a stream of values: a min-heap of
// size k with the worst kept value on top, so one more value costs
// O(log k). It imports nothing of the module.
package topk

import "container/heap"

// Heap keeps the k best values offered, by a strict total order better
// (better(a, b): a ranks above b).
type Heap[T any] struct {
	k int
	h minHeap[T]
}

// New returns an empty Heap of the k best values by better. With k <= 0
// it keeps nothing.
func New[T any](k int, better func(a, b T) bool) *Heap[T] {
	return &Heap[T]{k: k, h: minHeap[T]{better: better}}
}

// Len is the number of values kept (at most k).
func (t *Heap[T]) Len() int { return len(t.h.xs) }

// Wants reports whether Offer(x) would keep x: fewer than k are kept, or
// x ranks above the worst kept one.
func (t *Heap[T]) Wants(x T) bool {
	if len(t.h.xs) < t.k {
		return true
	}
	return t.k > 0 && t.h.better(x, t.h.xs[0])
}

// Offer keeps x if Wants(x), dropping the worst kept value when k are
// kept already.
func (t *Heap[T]) Offer(x T) {
	switch {
	case len(t.h.xs) < t.k:
		heap.Push(&t.h, x)
	case t.k > 0 && t.h.better(x, t.h.xs[0]):
		t.h.xs[0] = x
		heap.Fix(&t.h, 0)
	}
}

// Best returns the kept values, best first, and empties the Heap.
func (t *Heap[T]) Best() []T {
	out := make([]T, len(t.h.xs))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(T)
	}
	return out
}

// minHeap is a container/heap with the worst value on top.
type minHeap[T any] struct {
	xs     []T
	better func(a, b T) bool
}

func (h *minHeap[T]) Len() int           { return len(h.xs) }
func (h *minHeap[T]) Less(i, j int) bool { return h.better(h.xs[j], h.xs[i]) }
func (h *minHeap[T]) Swap(i, j int)      { h.xs[i], h.xs[j] = h.xs[j], h.xs[i] }
func (h *minHeap[T]) Push(x any)         { h.xs = append(h.xs, x.(T)) }
func (h *minHeap[T]) Pop() any {
	x := h.xs[len(h.xs)-1]
	h.xs = h.xs[:len(h.xs)-1]
	return x
}
