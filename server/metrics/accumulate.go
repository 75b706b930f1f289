package metrics

// Accumulator keeps per-query values and running sums, so that when a new
// judgment changes one query only that query is re-scored (EvaluateQuery)
// and the means move in O(measures) instead of a pass over every query.
// Running sums can drift from a fresh sum by a few ulps after many updates;
// Recompute restores exact sums. Not safe for concurrent use.
type Accumulator struct {
	perQuery map[string]map[string]float64
	sums     map[string]float64
	counts   map[string]int
}

// NewAccumulator returns an empty accumulator.
func NewAccumulator() *Accumulator {
	return &Accumulator{
		perQuery: map[string]map[string]float64{},
		sums:     map[string]float64{},
		counts:   map[string]int{},
	}
}

// Set replaces the values of query q (the map is kept; do not modify it
// afterwards).
func (a *Accumulator) Set(q string, values map[string]float64) {
	a.Remove(q)
	a.perQuery[q] = values
	for m, v := range values {
		a.sums[m] += v
		a.counts[m]++
	}
}

// Remove drops query q.
func (a *Accumulator) Remove(q string) {
	old, ok := a.perQuery[q]
	if !ok {
		return
	}
	delete(a.perQuery, q)
	for m, v := range old {
		a.sums[m] -= v
		a.counts[m]--
		if a.counts[m] == 0 {
			delete(a.sums, m)
			delete(a.counts, m)
		}
	}
}

// Means returns the current mean of every measure and the number of
// queries behind each.
func (a *Accumulator) Means() (means map[string]float64, counts map[string]int) {
	means = make(map[string]float64, len(a.sums))
	counts = make(map[string]int, len(a.counts))
	for m, s := range a.sums {
		means[m] = s / float64(a.counts[m])
		counts[m] = a.counts[m]
	}
	return means, counts
}

// Query returns the values of query q.
func (a *Accumulator) Query(q string) (map[string]float64, bool) {
	v, ok := a.perQuery[q]
	return v, ok
}

// Recompute rebuilds the sums from the per-query values in sorted query
// order, matching Evaluate's means bit for bit.
func (a *Accumulator) Recompute() {
	a.sums = map[string]float64{}
	a.counts = map[string]int{}
	for _, q := range SortedKeys(a.perQuery) {
		for m, v := range a.perQuery[q] {
			a.sums[m] += v
			a.counts[m]++
		}
	}
}
