package agreement

import "math"

// RaterSummary describes one rater's agreement with the others.
type RaterSummary struct {
	Rater int
	Items int     // items this rater labelled
	Kappa float64 // mean Cohen's κ with each other rater sharing items (NaN if none defined)
	Agree float64 // share of this rater's pairwise comparisons with others that match exactly (NaN if none)
}

// PerRater summarises every rater's agreement with the others, to spot an
// annotator who drifts from the group.
func PerRater(r Ratings) []RaterSummary {
	pairs, _ := PairwiseCohen(r)
	raters := r.Raters()
	out := make([]RaterSummary, raters)
	kSum := make([]float64, raters)
	kN := make([]int, raters)
	for _, p := range pairs {
		if math.IsNaN(p.Kappa) {
			continue
		}
		kSum[p.A] += p.Kappa
		kSum[p.B] += p.Kappa
		kN[p.A]++
		kN[p.B]++
	}
	same := make([]int, raters)
	comps := make([]int, raters)
	for _, row := range r {
		for a, va := range row {
			if va == Missing {
				continue
			}
			out[a].Items++
			for b, vb := range row {
				if b == a || vb == Missing {
					continue
				}
				comps[a]++
				if va == vb {
					same[a]++
				}
			}
		}
	}
	for i := range out {
		out[i].Rater = i
		out[i].Kappa, out[i].Agree = math.NaN(), math.NaN()
		if kN[i] > 0 {
			out[i].Kappa = kSum[i] / float64(kN[i])
		}
		if comps[i] > 0 {
			out[i].Agree = float64(same[i]) / float64(comps[i])
		}
	}
	return out
}

// GoldAccuracy compares one rater's labels with gold labels on the items
// that have both: exact is the share with the same grade, binary the share
// on the same side of threshold (relevant = label >= threshold). n is the
// number of gold items the rater labelled.
func GoldAccuracy(labels, gold []int, threshold int) (exact, binary float64, n int) {
	e, b := 0, 0
	for i := range min(len(labels), len(gold)) {
		if labels[i] == Missing || gold[i] == Missing {
			continue
		}
		n++
		if labels[i] == gold[i] {
			e++
		}
		if (labels[i] >= threshold) == (gold[i] >= threshold) {
			b++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	return float64(e) / float64(n), float64(b) / float64(n), n
}
