// Package agreement measures inter-annotator agreement on categorical
// (graded relevance) labels: Fleiss' κ, Krippendorff's α (nominal, ordinal,
// interval), pairwise Cohen's κ, Gwet's AC1, the share of items on which all
// raters agree after binarising, and confusion matrices.
//
// Ratings are an items × raters table of non-negative category values with
// Missing marking a rating not given. Functions return NaN where the
// coefficient is undefined (no usable item, or no variation in the labels,
// which makes chance agreement 1).
package agreement

import (
	"math"
	"sort"
)

// Missing marks an absent rating.
const Missing = -1

// Ratings holds one row per item and one column per rater. Rows may be
// shorter than the number of raters; absent cells count as Missing.
type Ratings [][]int

// Raters is the number of rater columns (the longest row).
func (r Ratings) Raters() int {
	n := 0
	for _, row := range r {
		n = max(n, len(row))
	}
	return n
}

// present returns the ratings given for one item.
func present(row []int) []int {
	out := make([]int, 0, len(row))
	for _, v := range row {
		if v != Missing {
			out = append(out, v)
		}
	}
	return out
}

// categories returns the distinct values used in r, ascending.
func categories(r Ratings) []int {
	seen := map[int]bool{}
	for _, row := range r {
		for _, v := range row {
			if v != Missing {
				seen[v] = true
			}
		}
	}
	out := make([]int, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}

// FleissKappa is Fleiss' (1971) κ over the items rated by every rater (the
// statistic assumes the same number of ratings per item, so incomplete
// items are left out rather than guessed). n is the number of items used.
func FleissKappa(r Ratings) (kappa float64, n int) {
	raters := r.Raters()
	cats := categories(r)
	index := map[int]int{}
	for i, c := range cats {
		index[c] = i
	}
	var counts [][]int
	for _, row := range r {
		if len(row) != raters || len(present(row)) != raters {
			continue
		}
		c := make([]int, len(cats))
		for _, v := range row {
			c[index[v]]++
		}
		counts = append(counts, c)
	}
	return FleissKappaCounts(counts), len(counts)
}

// FleissKappaCounts is Fleiss' κ from an items × categories table of how
// many raters put each item in each category; every row must sum to the
// same number of raters (at least 2), otherwise the result is NaN.
func FleissKappaCounts(counts [][]int) float64 {
	if len(counts) == 0 {
		return math.NaN()
	}
	m := 0
	for _, c := range counts[0] {
		m += c
	}
	if m < 2 {
		return math.NaN()
	}
	totals := make([]float64, len(counts[0]))
	pBar := 0.0
	for _, row := range counts {
		sum, sq := 0, 0
		for j, c := range row {
			sum += c
			sq += c * c
			totals[j] += float64(c)
		}
		if sum != m || len(row) != len(totals) {
			return math.NaN()
		}
		pBar += float64(sq-m) / float64(m*(m-1))
	}
	n := float64(len(counts))
	pBar /= n
	pe := 0.0
	for _, t := range totals {
		p := t / (n * float64(m))
		pe += p * p
	}
	if pe == 1 {
		return math.NaN()
	}
	return (pBar - pe) / (1 - pe)
}

// Level is the measurement level of Krippendorff's α.
type Level int

// Measurement levels; each chooses the difference function δ².
const (
	Nominal  Level = iota // δ² = 0 if equal, else 1
	Ordinal               // rank-based: δ²(c,k) = (Σ_{g=c..k} n_g − (n_c+n_k)/2)²
	Interval              // δ²(c,k) = (c−k)²
)

// KrippendorffAlpha is Krippendorff's α with missing ratings allowed,
// computed from the coincidence matrix: units with fewer than two ratings
// are not pairable and are left out. For Ordinal the distances use the
// observed frequencies n_g of the values between c and k (Krippendorff
// 2011, "Computing Krippendorff's Alpha-Reliability"), so unused values of
// the scale do not matter.
func KrippendorffAlpha(r Ratings, level Level) float64 {
	var units [][]int
	for _, row := range r {
		if p := present(row); len(p) >= 2 {
			units = append(units, p)
		}
	}
	cats := categories(Ratings(units))
	if len(cats) == 0 {
		return math.NaN()
	}
	index := map[int]int{}
	for i, c := range cats {
		index[c] = i
	}
	q := len(cats)
	o := make([][]float64, q)
	for i := range o {
		o[i] = make([]float64, q)
	}
	for _, u := range units {
		w := 1 / float64(len(u)-1)
		for i, a := range u {
			for j, b := range u {
				if i != j {
					o[index[a]][index[b]] += w
				}
			}
		}
	}
	return AlphaFromCoincidences(o, cats, level)
}

// CohenKappa is Cohen's (1960) κ between two raters over the items both
// rated; n is that number of items.
func CohenKappa(a, b []int) (kappa float64, n int) {
	countA := map[int]float64{}
	countB := map[int]float64{}
	agree := 0.0
	for i := range min(len(a), len(b)) {
		if a[i] == Missing || b[i] == Missing {
			continue
		}
		n++
		countA[a[i]]++
		countB[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	fn := float64(n)
	po := agree / fn
	pe := 0.0
	for c, ca := range countA {
		pe += (ca / fn) * (countB[c] / fn)
	}
	if pe == 1 {
		return math.NaN(), n
	}
	return (po - pe) / (1 - pe), n
}

// PairKappa is Cohen's κ for one pair of raters (column indexes).
type PairKappa struct {
	A, B  int
	Kappa float64
	N     int // items both rated
}

// PairwiseCohen returns Cohen's κ for every pair of raters with at least one
// item in common, and the mean of the defined ones (NaN if none).
func PairwiseCohen(r Ratings) (pairs []PairKappa, mean float64) {
	raters := r.Raters()
	col := func(j int) []int {
		out := make([]int, len(r))
		for i, row := range r {
			out[i] = Missing
			if j < len(row) {
				out[i] = row[j]
			}
		}
		return out
	}
	cols := make([][]int, raters)
	for j := range cols {
		cols[j] = col(j)
	}
	sum, defined := 0.0, 0
	for a := range raters {
		for b := a + 1; b < raters; b++ {
			k, n := CohenKappa(cols[a], cols[b])
			if n == 0 {
				continue
			}
			pairs = append(pairs, PairKappa{A: a, B: b, Kappa: k, N: n})
			if !math.IsNaN(k) {
				sum += k
				defined++
			}
		}
	}
	if defined == 0 {
		return pairs, math.NaN()
	}
	return pairs, sum / float64(defined)
}

// GwetAC1 is Gwet's (2008) first-order agreement coefficient for any number
// of raters with missing ratings: observed agreement over the items with at
// least two ratings, chance agreement Σ π_k(1−π_k)/(Q−1) with π_k the mean
// over rated items of the share of an item's ratings in category k. Q is
// the number of categories of the rating scale (4 for relevance 0–3), not
// just those observed, as Gwet defines it; categories <= 1 uses the
// observed ones.
func GwetAC1(r Ratings, categoriesOnScale int) float64 {
	cats := categories(r)
	q := categoriesOnScale
	if q <= 1 {
		q = len(cats)
	}
	if q < 2 {
		return math.NaN()
	}
	pi := map[int]float64{}
	rated, paired := 0, 0
	pa := 0.0
	for _, row := range r {
		p := present(row)
		if len(p) == 0 {
			continue
		}
		rated++
		counts := map[int]int{}
		for _, v := range p {
			counts[v]++
		}
		ri := float64(len(p))
		for c, n := range counts {
			pi[c] += float64(n) / ri
		}
		if len(p) >= 2 {
			paired++
			s := 0
			for _, n := range counts {
				s += n * (n - 1)
			}
			pa += float64(s) / (ri * (ri - 1))
		}
	}
	if paired == 0 {
		return math.NaN()
	}
	pa /= float64(paired)
	pe := 0.0
	for _, c := range cats {
		p := pi[c] / float64(rated)
		pe += p * (1 - p)
	}
	pe /= float64(q - 1)
	if pe == 1 {
		return math.NaN()
	}
	return (pa - pe) / (1 - pe)
}

// UnanimousBinarised is QUEST's share of items on which all raters agree
// once labels are binarised (relevant = label >= threshold), over the items
// with at least two ratings; n is that number of items.
func UnanimousBinarised(r Ratings, threshold int) (share float64, n int) {
	agree := 0
	for _, row := range r {
		p := present(row)
		if len(p) < 2 {
			continue
		}
		n++
		first := p[0] >= threshold
		same := true
		for _, v := range p[1:] {
			if (v >= threshold) != first {
				same = false
				break
			}
		}
		if same {
			agree++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return float64(agree) / float64(n), n
}

// Confusion counts, for two raters, how often rater a said row and rater b
// said column, over items both rated. Labels must lie in [0, categories);
// others are skipped.
func Confusion(a, b []int, categories int) [][]int {
	m := newMatrix(categories)
	for i := range min(len(a), len(b)) {
		if inRange(a[i], categories) && inRange(b[i], categories) {
			m[a[i]][b[i]]++
		}
	}
	return m
}

// PooledConfusion counts every ordered pair of ratings given to the same
// item by two different raters, so the matrix is symmetric and its diagonal
// holds the agreements; it summarises disagreement among any number of
// raters (each unordered pair of ratings contributes twice).
func PooledConfusion(r Ratings, categories int) [][]int {
	m := newMatrix(categories)
	for _, row := range r {
		p := present(row)
		for i, a := range p {
			for j, b := range p {
				if i != j && inRange(a, categories) && inRange(b, categories) {
					m[a][b]++
				}
			}
		}
	}
	return m
}

func newMatrix(n int) [][]int {
	m := make([][]int, n)
	for i := range m {
		m[i] = make([]int, n)
	}
	return m
}

func inRange(v, n int) bool { return v >= 0 && v < n }

// AlphaFromCoincidences is Krippendorff's α from a coincidence matrix o
// over the category values cats (ascending; o[i][j] counts pairable values
// cats[i], cats[j]). It lets callers that maintain o incrementally (live
// dashboards) share this definition.
func AlphaFromCoincidences(o [][]float64, cats []int, level Level) float64 {
	q := len(cats)
	nc := make([]float64, q)
	n := 0.0
	for c := range q {
		for k := range q {
			nc[c] += o[c][k]
		}
		n += nc[c]
	}
	delta := func(c, k int) float64 {
		switch level {
		case Ordinal:
			lo, hi := min(c, k), max(c, k)
			s := 0.0
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			d := s - (nc[c]+nc[k])/2
			return d * d
		case Interval:
			d := float64(cats[c] - cats[k])
			return d * d
		default:
			if c == k {
				return 0
			}
			return 1
		}
	}
	observed, expected := 0.0, 0.0
	for c := range q {
		for k := range q {
			d := delta(c, k)
			observed += o[c][k] * d
			expected += nc[c] * nc[k] * d
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - (n-1)*observed/expected
}
