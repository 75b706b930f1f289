package metrics

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Group is the mean of one measure over the queries carrying one label.
type Group struct {
	Label string
	N     int
	Mean  float64
}

// GroupMeans breaks per-query values down by label (a QUEST template, an
// operator, a domain …). A query may carry several labels (a query with AND
// and NOT counts for both operators); queries without a label or without a
// value are skipped. Groups come back sorted by label.
func GroupMeans(values map[string]float64, labels map[string][]string) []Group {
	sums := map[string]float64{}
	counts := map[string]int{}
	for _, q := range SortedKeys(values) {
		seen := map[string]bool{}
		for _, l := range labels[q] {
			if seen[l] {
				continue
			}
			seen[l] = true
			sums[l] += values[q]
			counts[l]++
		}
	}
	out := make([]Group, 0, len(sums))
	for _, l := range SortedKeys(counts) {
		out = append(out, Group{Label: l, N: counts[l], Mean: sums[l] / float64(counts[l])})
	}
	return out
}

// Interval is a mean with a confidence interval.
type Interval struct {
	Mean, Low, High float64
}

// Bootstrap returns the mean of values with a percentile bootstrap
// confidence interval at the given level (e.g. 0.95) from the given number
// of resamples of queries with replacement. The same seed gives the same
// interval. The values are taken in sorted-key order so map iteration order
// cannot change the result.
func Bootstrap(values map[string]float64, resamples int, level float64, seed uint64) Interval {
	xs := make([]float64, 0, len(values))
	for _, q := range SortedKeys(values) {
		xs = append(xs, values[q])
	}
	return BootstrapSlice(xs, resamples, level, seed)
}

// BootstrapSlice is Bootstrap over a slice.
func BootstrapSlice(xs []float64, resamples int, level float64, seed uint64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{Mean: math.NaN(), Low: math.NaN(), High: math.NaN()}
	}
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if resamples <= 0 {
		return Interval{Mean: mean, Low: mean, High: mean}
	}
	rng := rand.New(rand.NewPCG(seed, 0x626f6f6c706f6f6c))
	means := make([]float64, resamples)
	for b := range means {
		s := 0.0
		for range n {
			s += xs[rng.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	sort.Float64s(means)
	alpha := (1 - level) / 2
	return Interval{Mean: mean, Low: Quantile(means, alpha), High: Quantile(means, 1-alpha)}
}

// Quantile is the p quantile of sorted (not empty), interpolated linearly
// between order statistics (Hyndman & Fan type 7, the default of R and
// numpy).
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 1 {
		return sorted[0]
	}
	h := p * float64(len(sorted)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// PairedTest is the outcome of a paired randomisation test.
type PairedTest struct {
	N    int     // queries scored by both runs
	Diff float64 // mean(a) − mean(b) over those queries
	P    float64 // two-sided p-value
}

// PairedRandomization tests whether two runs' per-query values differ, using
// the paired (sign-flip) randomisation test of Smucker, Allan & Carterette
// (2007) over the queries both runs have. The p-value is (c+1)/(trials+1),
// c = number of permutations whose |mean difference| reaches the observed
// one, so it is never 0. Deterministic for a given seed.
func PairedRandomization(a, b map[string]float64, trials int, seed uint64) PairedTest {
	var d []float64
	for _, q := range SortedKeys(a) {
		if vb, ok := b[q]; ok {
			d = append(d, a[q]-vb)
		}
	}
	if len(d) == 0 {
		return PairedTest{P: 1}
	}
	obs := 0.0
	for _, x := range d {
		obs += x
	}
	n := float64(len(d))
	res := PairedTest{N: len(d), Diff: obs / n}
	if trials <= 0 {
		res.P = 1
		return res
	}
	// Compare sums, not means, with a little slack so that permutations
	// equal to the observed statistic up to rounding count as reaching it.
	target := math.Abs(obs) - 1e-12*math.Max(1, math.Abs(obs))
	rng := rand.New(rand.NewPCG(seed, 0x72616e646f6d))
	c := 0
	for range trials {
		s := 0.0
		for _, x := range d {
			if rng.Uint64()&1 == 1 {
				s -= x
			} else {
				s += x
			}
		}
		if math.Abs(s) >= target {
			c++
		}
	}
	res.P = float64(c+1) / float64(trials+1)
	return res
}
