package estimate

import (
	"math"
	"sort"
)

// commonSystems returns the systems scored in both a and b, sorted by name.
func commonSystems(a, b map[string]float64) []string {
	out := make([]string, 0, len(a))
	for s := range a {
		if _, ok := b[s]; ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// KendallTau is Kendall's τ-b between two scorings of the same systems
// (higher score = better), over the systems present in both:
//
//	τ_b = (C − D) / sqrt((P − T_a)(P − T_b))
//
// with C and D the concordant and discordant pairs, P = n(n−1)/2 and T_a,
// T_b the pairs tied in a and in b. Without ties it is the usual
// (C − D)/P. It returns 0 when it is undefined: fewer than two common
// systems, or one scoring that gives every system the same score.
func KendallTau(a, b map[string]float64) float64 {
	sys := commonSystems(a, b)
	n := len(sys)
	if n < 2 {
		return 0
	}
	var conc, disc, tieA, tieB int
	for i := range n {
		for j := i + 1; j < n; j++ {
			sa := sign(a[sys[i]] - a[sys[j]])
			sb := sign(b[sys[i]] - b[sys[j]])
			if sa == 0 {
				tieA++
			}
			if sb == 0 {
				tieB++
			}
			switch {
			case sa == 0 || sb == 0:
			case sa == sb:
				conc++
			default:
				disc++
			}
		}
	}
	pairs := n * (n - 1) / 2
	den := math.Sqrt(float64(pairs-tieA) * float64(pairs-tieB))
	if den == 0 {
		return 0
	}
	return float64(conc-disc) / den
}

// TauAP is the AP rank correlation of Yilmaz, Aslam & Robertson (2008),
// which weighs a swap near the top of the ranking more than one near the
// bottom. truth is the reference scoring, est the compared one; systems
// are those in both. The systems are ranked by est descending (ties broken
// by name) and
//
//	τ_AP = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1
//
// where C(i) counts the systems ranked above position i that truth also
// scores higher than the system at i. A pair tied in truth or in est counts
// one half (neither right nor wrong), so a tie-free pair of identical
// rankings gives 1 and a reversed one −1. Not symmetric: TauAP(a, b) and
// TauAP(b, a) differ in general. 0 for fewer than two common systems.
func TauAP(truth, est map[string]float64) float64 {
	sys := commonSystems(truth, est)
	n := len(sys)
	if n < 2 {
		return 0
	}
	sort.SliceStable(sys, func(i, j int) bool { return est[sys[i]] > est[sys[j]] })
	sum := 0.0
	for i := 1; i < n; i++ {
		c := 0.0
		for j := range i {
			st := sign(truth[sys[j]] - truth[sys[i]])
			se := sign(est[sys[j]] - est[sys[i]])
			switch {
			case st == 0 || se == 0:
				c += 0.5
			case st > 0:
				c++
			}
		}
		sum += c / float64(i)
	}
	return 2/float64(n-1)*sum - 1
}
