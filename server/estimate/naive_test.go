package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"boolpool/server/metrics"
)

// naiveTheta computes one measure straight from the formulas of the
// package doc for explicit weights (doc → 1/π; absent = not in the
// sample). It is the reference for the linear-time replicates.
func naiveTheta(spec metrics.Spec, ranked []string, w map[string]float64, grade map[string]int, minRel int) float64 {
	y := func(d string) float64 {
		if grade[d] >= minRel {
			return 1
		}
		return 0
	}
	R := 0.0
	counts := map[int]float64{}
	for d, wd := range w {
		R += wd * y(d)
		if grade[d] > 0 {
			counts[grade[d]] += wd
		}
	}
	k := spec.K
	top := ranked
	if k > 0 && k < len(top) {
		top = top[:k]
	}
	switch spec.Name {
	case metrics.MeasureP, metrics.MeasureRecall:
		num := 0.0
		for _, d := range top {
			num += w[d] * y(d)
		}
		if spec.Name == metrics.MeasureRecall {
			if R <= 0 {
				return 0
			}
			return num / R
		}
		den := float64(k)
		if k <= 0 {
			den = float64(len(ranked))
		}
		if den == 0 {
			return 0
		}
		return num / den
	case metrics.MeasureAP:
		if R <= 0 {
			return 0
		}
		sum := 0.0
		for i, d := range top {
			if y(d) == 0 || w[d] == 0 {
				continue
			}
			above := 0.0
			for _, e := range ranked[:i] {
				above += w[e] * y(e)
			}
			sum += w[d] * (1 + above) / float64(i+1)
		}
		return sum / R
	case metrics.MeasureNDCG:
		dcg := 0.0
		for i, d := range top {
			if g := grade[d]; g > 0 {
				dcg += w[d] * float64(g) / math.Log2(float64(i+2))
			}
		}
		var gs []int
		for g := range counts {
			gs = append(gs, g)
		}
		sort.Sort(sort.Reverse(sort.IntSlice(gs)))
		// Position i (1-based) receives Σ_g g·|[i−1, i] ∩ [C_{g−1}, C_g]|.
		ideal, c := 0.0, 0.0
		total := 0.0
		for _, g := range gs {
			total += counts[g]
		}
		last := int(math.Ceil(total))
		if k > 0 {
			last = min(last, k)
		}
		for i := 1; i <= last; i++ {
			c = 0
			for _, g := range gs {
				lo, hi := c, c+counts[g]
				overlap := math.Max(0, math.Min(hi, float64(i))-math.Max(lo, float64(i-1)))
				ideal += float64(g) * overlap / math.Log2(float64(i+1))
				c = hi
			}
		}
		if ideal <= 0 {
			return 0
		}
		return dcg / ideal
	}
	panic(spec.Name)
}

// naiveEstimate is the plug-in estimate, its jackknife variance and the
// jackknife bias estimate with every replicate's weights written out.
func naiveEstimate(spec metrics.Spec, ranked []string, d QueryDesign, judged map[string]int, minRel int) (est, v, bias float64) {
	members := make([][]string, len(d.Strata))
	seen := map[string]bool{}
	for _, u := range d.Units {
		if _, ok := judged[u.Doc]; ok && !seen[u.Doc] {
			seen[u.Doc] = true
			members[u.Stratum] = append(members[u.Stratum], u.Doc)
		}
	}
	N := func(h int) float64 { return float64(max(d.Strata[h].Population, len(members[h]))) }
	weights := func(dropH int, dropDoc string, all bool) map[string]float64 {
		w := map[string]float64{}
		for h, m := range members {
			n := float64(len(m))
			for _, doc := range m {
				switch {
				case h != dropH:
					w[doc] = N(h) / n
				case all || doc == dropDoc:
				default:
					w[doc] = N(h) / (n - 1)
				}
			}
		}
		return w
	}
	full := naiveTheta(spec, ranked, weights(-1, "", false), judged, minRel)
	for h, m := range members {
		n := float64(len(m))
		f := n / N(h)
		if len(m) == 0 || f >= 1 {
			continue
		}
		if len(m) == 1 {
			t := naiveTheta(spec, ranked, weights(h, "", true), judged, minRel)
			v += (1 - f) * (t - full) * (t - full)
			continue
		}
		var ts []float64
		mean := 0.0
		for _, doc := range m {
			t := naiveTheta(spec, ranked, weights(h, doc, false), judged, minRel)
			ts = append(ts, t)
			mean += t / n
		}
		for _, t := range ts {
			v += (1 - f) * (n - 1) / n * (t - mean) * (t - mean)
		}
		bias += (1 - f) * (n - 1) * (mean - full)
	}
	return full, v, bias
}

// TestAgainstNaive compares the linear-time replicates with the written-out
// jackknife on random designs: several strata (certainty, sampled, one
// unit, nothing judged), unjudged units, graded judgments, cutoffs.
func TestAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 41))
	sp := specs(t, "ap,ap@7,p@5,p@12,recall@8,recall,ndcg@4,ndcg@15,ndcg")
	sp = append(sp, metrics.Spec{Name: metrics.MeasureP}) // p over the whole ranking
	for it := range 300 {
		var d QueryDesign
		judged := map[string]int{}
		var universe []string
		nStrata := 1 + rng.IntN(4)
		for h := range nStrata {
			pop := 1 + rng.IntN(12)
			n := rng.IntN(pop + 1)
			if rng.IntN(5) == 0 {
				n = pop
			}
			d.Strata = append(d.Strata, Stratum{Population: pop, Sampled: n})
			for i := range pop {
				doc := fmt.Sprintf("s%d-%d", h, i)
				universe = append(universe, doc)
				if i < n {
					d.Units = append(d.Units, Unit{Doc: doc, Stratum: h})
					if rng.IntN(6) > 0 {
						judged[doc] = rng.IntN(4)
					}
				}
			}
		}
		rng.Shuffle(len(d.Units), func(i, j int) { d.Units[i], d.Units[j] = d.Units[j], d.Units[i] })
		rng.Shuffle(len(universe), func(i, j int) { universe[i], universe[j] = universe[j], universe[i] })
		ranked := universe[:rng.IntN(len(universe)+1)]
		minRel := 1 + rng.IntN(2)
		got := Query(ranked, d, judged, sp, minRel)
		qs := newSample(d, judged, minRel)
		raw := qs.query(ranked, sp, minRel, true, make([]float64, qs.nRows))
		for _, s := range sp {
			est, v, bias := naiveEstimate(s, ranked, d, judged, minRel)
			g, r := got[s.String()], raw[s.String()]
			if s.Name == metrics.MeasureP && math.Abs(bias) > 1e-12 {
				t.Fatalf("iteration %d %s: bias %v of a linear statistic", it, s, bias)
			}
			if math.Abs(r.Est-est) > 1e-9*max(1, math.Abs(est)) || math.Abs(g.Est-(est-bias)) > 1e-9*max(1, math.Abs(est)) ||
				math.Abs(g.SE*g.SE-v) > 1e-9*max(1, v) || g.SE != r.SE {
				t.Fatalf("iteration %d %s: got est %v (plug-in %v) var %v, naive est %v bias %v var %v\ndesign %+v\njudged %v\nranked %v",
					it, s, g.Est, r.Est, g.SE*g.SE, est, bias, v, d, judged, ranked)
			}
		}
	}
}
