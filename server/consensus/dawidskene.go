package consensus

import (
	"math"
	"sort"
)

// Dawid–Skene (Dawid & Skene 1979) estimates each rater's reliability and
// each item's true label together, by expectation maximisation, instead
// of counting every vote alike as the majority does.
//
// Model. The classes are binary relevance (label >= RelevantThreshold),
// the decision the qrels and the metrics use; the graded 0–3 labels are
// binarised first. Each rater r has a 2×2 confusion matrix, summarised by
// sensitivity (P(r says relevant | relevant)) and specificity (P(r says
// not relevant | not relevant)); items are relevant with prior π. Labels
// are independent given the true class.
//
// EM:
//   - Initialisation from the majority vote: T_i, the probability that
//     item i is relevant, is the share of its votes that say relevant
//     (soft majority; a tie starts at 0.5).
//   - M step: π, sensitivity and specificity from the T_i, each with
//     additive smoothing (Smoothing pseudo-counts per cell, i.e. a
//     Beta(α, α) prior), so a rater with few labels, or all labels on one
//     side, never gets a probability of exactly 0 or 1.
//   - E step: T_i ∝ π·Π sens or (1−sens) over the votes, against
//     (1−π)·Π (1−spec) or spec, computed in log-odds.
//   - Stop when no T_i moved by more than Tol, or after MaxIter rounds.
//
// Items with a known answer (gold items, adjudicated items) keep T_i
// fixed at 0 or 1: they anchor the raters' matrices (semi-supervised DS).
//
// Everything iterates in a fixed order (items as given, raters by id), so
// the result is deterministic.

// DSItem is one item's current votes and, when known (gold answer or an
// adjudication), its true binary label.
type DSItem struct {
	Votes []Vote
	Known *bool
}

// DSOptions tune the EM; zero values take the defaults.
type DSOptions struct {
	MaxIter   int     // default 100
	Tol       float64 // default 1e-6 (largest change of any item's P(relevant))
	Smoothing float64 // pseudo-count per confusion cell; default 1 (Laplace); negative = none
}

// DSRater is one rater's estimated reliability.
type DSRater struct {
	Rater       int64
	Labels      int     // votes the rater cast on the items
	Sensitivity float64 // P(says relevant | relevant)
	Specificity float64 // P(says not relevant | not relevant)
	// Accuracy is the expected share of the rater's votes that match the
	// true label under the final posteriors.
	Accuracy float64
}

// DSResult is the outcome of the EM.
type DSResult struct {
	Posterior  []float64 // per item (input order): P(relevant)
	Prior      float64   // π
	Raters     []DSRater // by rater id
	Iterations int
	Converged  bool
}

// Relevant reports the binary consensus of item i: P(relevant) > 0.5 (an
// exact 0.5 is not relevant, like a majority tie).
func (r DSResult) Relevant(i int) bool { return r.Posterior[i] > 0.5 }

// Rater returns the estimate of one rater.
func (r DSResult) Rater(id int64) (DSRater, bool) {
	i := sort.Search(len(r.Raters), func(i int) bool { return r.Raters[i].Rater >= id })
	if i < len(r.Raters) && r.Raters[i].Rater == id {
		return r.Raters[i], true
	}
	return DSRater{}, false
}

func (o DSOptions) withDefaults() DSOptions {
	if o.MaxIter <= 0 {
		o.MaxIter = 100
	}
	if o.Tol <= 0 {
		o.Tol = 1e-6
	}
	switch {
	case o.Smoothing == 0:
		o.Smoothing = 1
	case o.Smoothing < 0:
		o.Smoothing = 0
	}
	return o
}

// dsVote is a vote with its rater as an index.
type dsVote struct {
	rater int
	rel   bool
}

// DawidSkene runs the EM over items.
func DawidSkene(items []DSItem, opt DSOptions) DSResult {
	opt = opt.withDefaults()
	// Raters by id, votes by rater index.
	idx := map[int64]int{}
	var ids []int64
	for _, it := range items {
		for _, v := range it.Votes {
			if _, ok := idx[v.Rater]; !ok {
				idx[v.Rater] = -1
				ids = append(ids, v.Rater)
			}
		}
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	for i, id := range ids {
		idx[id] = i
	}
	votes := make([][]dsVote, len(items))
	for i, it := range items {
		vs := make([]dsVote, 0, len(it.Votes))
		for _, v := range it.Votes {
			vs = append(vs, dsVote{rater: idx[v.Rater], rel: v.Label >= RelevantThreshold})
		}
		votes[i] = vs
	}

	// Initialisation: soft majority vote; known items fixed.
	t := make([]float64, len(items))
	for i, it := range items {
		switch {
		case it.Known != nil && *it.Known:
			t[i] = 1
		case it.Known != nil:
			t[i] = 0
		case len(votes[i]) == 0:
			t[i] = 0.5
		default:
			rel := 0
			for _, v := range votes[i] {
				if v.rel {
					rel++
				}
			}
			t[i] = float64(rel) / float64(len(votes[i]))
		}
	}

	nr := len(ids)
	sens, spec := make([]float64, nr), make([]float64, nr)
	// Sufficient statistics per rater: expected relevant / not-relevant
	// items labelled, and of those the ones labelled correctly.
	relN, relHit := make([]float64, nr), make([]float64, nr)
	nonN, nonHit := make([]float64, nr), make([]float64, nr)
	a := opt.Smoothing
	var prior float64
	res := DSResult{}
	mstep := func() {
		clear(relN)
		clear(relHit)
		clear(nonN)
		clear(nonHit)
		sum := 0.0
		for i, vs := range votes {
			sum += t[i]
			for _, v := range vs {
				relN[v.rater] += t[i]
				nonN[v.rater] += 1 - t[i]
				if v.rel {
					relHit[v.rater] += t[i]
				} else {
					nonHit[v.rater] += 1 - t[i]
				}
			}
		}
		prior = (sum + a) / (float64(len(items)) + 2*a)
		for r := range nr {
			sens[r] = ratio(relHit[r]+a, relN[r]+2*a)
			spec[r] = ratio(nonHit[r]+a, nonN[r]+2*a)
		}
	}
	for res.Iterations < opt.MaxIter {
		mstep()
		res.Iterations++
		// Per-rater log-likelihood ratios of a "relevant" and a "not
		// relevant" vote.
		lrRel, lrNon := make([]float64, nr), make([]float64, nr)
		for r := range nr {
			lrRel[r] = safeLog(sens[r]) - safeLog(1-spec[r])
			lrNon[r] = safeLog(1-sens[r]) - safeLog(spec[r])
		}
		logPrior := safeLog(prior) - safeLog(1-prior)
		moved := 0.0
		for i, it := range items {
			if it.Known != nil {
				continue
			}
			lo := logPrior
			for _, v := range votes[i] {
				if v.rel {
					lo += lrRel[v.rater]
				} else {
					lo += lrNon[v.rater]
				}
			}
			nt := sigmoid(lo)
			moved = math.Max(moved, math.Abs(nt-t[i]))
			t[i] = nt
		}
		if moved < opt.Tol {
			res.Converged = true
			break
		}
	}
	mstep() // parameters consistent with the final posteriors
	res.Posterior, res.Prior = t, prior
	res.Raters = make([]DSRater, nr)
	labels := make([]int, nr)
	for _, vs := range votes {
		for _, v := range vs {
			labels[v.rater]++
		}
	}
	for r, id := range ids {
		acc := 0.0
		if labels[r] > 0 {
			acc = (relHit[r] + nonHit[r]) / float64(labels[r])
		}
		res.Raters[r] = DSRater{Rater: id, Labels: labels[r], Sensitivity: sens[r], Specificity: spec[r], Accuracy: acc}
	}
	return res
}

// DecideDS is the Dawid–Skene counterpart of Decide for one item: the
// binary verdict is the DS posterior (relevant when P(relevant) > 0.5),
// the graded value the lower median of the votes on the verdict's side
// (2 or 1 when no vote is on that side). Vote counts and contradictions
// are reported as Decide reports them; an adjudication still overrides,
// and the status is Decide's (it describes the votes, not the verdict).
func DecideDS(votes []Vote, adjudicated *int, relevant bool) (Decision, bool) {
	d, ok := Decide(votes, adjudicated)
	if !ok || d.Status == StatusAdjudicated {
		return d, ok
	}
	var side []int
	for _, v := range votes {
		if (v.Label >= RelevantThreshold) == relevant {
			side = append(side, v.Label)
		}
	}
	switch {
	case len(side) > 0:
		sort.Ints(side)
		d.Relevance = side[(len(side)-1)/2]
	case relevant:
		d.Relevance = RelevantThreshold
	default:
		d.Relevance = RelevantThreshold - 1
	}
	return d, true
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0.5
	}
	return a / b
}

// safeLog is log clamped away from -Inf (no smoothing and a rater who is
// always right or always wrong).
func safeLog(x float64) float64 { return math.Log(math.Max(x, 1e-12)) }

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
