package synth

import (
	"math/rand/v2"

	"boolpool/server/consensus"
)

// Simulation is a synthetic labelling job with a known truth, for testing
// and benchmarking consensus methods: raters 1..len(Accuracies) label
// each item correctly with their accuracy (the same for both classes).
type Simulation struct {
	Items      []consensus.DSItem
	Truth      []bool    // per item: relevant
	Accuracies []float64 // per rater (rater id = index + 1)
}

// SimParams describe a simulation.
type SimParams struct {
	Seed       uint64
	Items      int
	Accuracies []float64
	MinLabels  int     // labels per item, drawn uniformly from [MinLabels, MaxLabels]
	MaxLabels  int     // at most len(Accuracies)
	Prior      float64 // share of relevant items
}

// Simulate draws a labelling job (deterministic for a seed). Each item is
// labelled by distinct raters chosen at random; a correct "relevant" vote
// is a 2 or 3, a correct "not relevant" a 0 or 1.
func Simulate(p SimParams) Simulation {
	rng := rand.New(rand.NewPCG(p.Seed, 0x6473))
	n := len(p.Accuracies)
	hi := min(p.MaxLabels, n)
	lo := max(min(p.MinLabels, hi), 1)
	sim := Simulation{Items: make([]consensus.DSItem, p.Items), Truth: make([]bool, p.Items), Accuracies: p.Accuracies}
	perm := make([]int, n)
	for i := range p.Items {
		rel := rng.Float64() < p.Prior
		sim.Truth[i] = rel
		k := lo + rng.IntN(hi-lo+1)
		for j := range perm {
			perm[j] = j
		}
		rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		votes := make([]consensus.Vote, 0, k)
		for _, r := range perm[:k] {
			says := rel
			if rng.Float64() >= p.Accuracies[r] {
				says = !rel
			}
			label := rng.IntN(2) // 0 or 1
			if says {
				label += consensus.RelevantThreshold
			}
			votes = append(votes, consensus.Vote{Rater: int64(r + 1), Label: label})
		}
		sim.Items[i] = consensus.DSItem{Votes: votes}
	}
	return sim
}

// MajorityAccuracy is the share of items whose majority decision (consensus.Decide:
// a tie is not relevant) matches the truth.
func (s Simulation) MajorityAccuracy() float64 {
	hit := 0
	for i, it := range s.Items {
		d, _ := consensus.Decide(it.Votes, nil)
		if d.Relevant() == s.Truth[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(s.Items))
}

// DSAccuracy is the share of items whose DS decision matches the truth.
func (s Simulation) DSAccuracy(r consensus.DSResult) float64 {
	hit := 0
	for i := range s.Items {
		if r.Relevant(i) == s.Truth[i] {
			hit++
		}
	}
	return float64(hit) / float64(len(s.Items))
}

// EmpiricalAccuracy is the share of rater id's votes that match the truth.
func (s Simulation) EmpiricalAccuracy(id int64) float64 {
	hit, n := 0, 0
	for i, it := range s.Items {
		for _, v := range it.Votes {
			if v.Rater == id {
				n++
				if (v.Label >= consensus.RelevantThreshold) == s.Truth[i] {
					hit++
				}
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// EmpiricalRates are rater id's realised sensitivity and specificity.
func (s Simulation) EmpiricalRates(id int64) (sens, spec float64) {
	var rel, relHit, non, nonHit int
	for i, it := range s.Items {
		for _, v := range it.Votes {
			if v.Rater != id {
				continue
			}
			says := v.Label >= consensus.RelevantThreshold
			if s.Truth[i] {
				rel++
				if says {
					relHit++
				}
			} else {
				non++
				if !says {
					nonHit++
				}
			}
		}
	}
	return ratio(relHit, rel), ratio(nonHit, non)
}

// ratio is a/b, or 0.5 (no evidence either way) when b is 0, as the
// estimator's own rates are.
func ratio(a, b int) float64 {
	if b <= 0 {
		return 0.5
	}
	return float64(a) / float64(b)
}
