package cal

import (
	"fmt"
	"math/rand/v2"
)

// KneeOptions configure the knee stopping rule.
type KneeOptions struct {
	// MinRank: never stop before this many judgments (the paper: 150).
	MinRank int
	// Rho is the slope-ratio threshold (the paper: 156).
	Rho float64
	// Adjust lowers the threshold by min(relevant found, 150), as the paper
	// does (so with 150 or more found it is Rho − 150 = 6).
	Adjust bool
	// EffortPerRel > 0 adds an effort cap: the rule also fires once s ≥
	// EffortPerRel · R + EffortBase (R relevant found in s judgments), so
	// a query that keeps yielding nothing is let go (with R = 0 after
	// EffortBase judgments). Not part of the paper's rule.
	EffortPerRel float64
	EffortBase   int
}

// PaperKnee is the knee method as Cormack & Grossman (2016) state it: stop
// once at least 150 documents are judged and the slope ratio at the knee is
// at least 156 − min(relevant found, 150).
func PaperKnee() KneeOptions { return KneeOptions{MinRank: 150, Rho: 156, Adjust: true} }

// Status is a review's state for one query under a stopping rule.
type Status struct {
	Judged   int      `json:"judged"`
	Found    int      `json:"found"`
	Fired    bool     `json:"fired"` // the stopping rule says stop
	Estimate Estimate `json:"estimate"`
	// Knee: the rank of the knee and the slope ratio there.
	Knee int     `json:"knee,omitempty"`
	Rho  float64 `json:"rho,omitempty"`
}

// Estimate is an estimated recall and how it was obtained.
type Estimate struct {
	Recall float64 `json:"recall"`
	Basis  string  `json:"basis"`
}

// Knee applies the knee method (Cormack & Grossman 2016) to the judgments
// in review order (true = relevant). The knee of the gain curve (rank i,
// relevant found in the first i) is the point farthest above the line from
// the origin to the curve's end (s, R); the slope ratio is the precision
// before the knee over the (add-one smoothed) precision after it:
// ρ = (R_k / k) / ((R − R_k + 1) / (s − k)). The rule fires when s ≥
// MinRank and ρ reaches the threshold; with nothing relevant found it
// never fires.
//
// The recall estimate extrapolates the post-knee rate (R − R_k + 1)/(s − k)
// over as many judgments again as were made: R / (R + rate · s), i.e. the
// recall if doubling the effort would find that many more.
func Knee(rels []bool, opt KneeOptions) Status {
	st := knee(rels, opt)
	if opt.EffortPerRel > 0 && !st.Fired && float64(st.Judged) >= opt.EffortPerRel*float64(st.Found)+float64(opt.EffortBase) {
		st.Fired = true
		st.Estimate.Basis += fmt.Sprintf("; stopped by the effort cap (%d judgments >= %g per relevant found + %d)", st.Judged, opt.EffortPerRel, opt.EffortBase)
	}
	return st
}

func knee(rels []bool, opt KneeOptions) Status {
	s := len(rels)
	cum := make([]int, s+1)
	for i, r := range rels {
		cum[i+1] = cum[i]
		if r {
			cum[i+1]++
		}
	}
	R := cum[s]
	st := Status{Judged: s, Found: R}
	if R == 0 {
		st.Estimate = Estimate{Recall: 0, Basis: fmt.Sprintf("knee: nothing relevant in %d judgments", s)}
		return st
	}
	// Maximise s·R_i − R·i (proportional to the distance above the line).
	k, best := 0, 0
	for i := 1; i <= s; i++ {
		if d := s*cum[i] - R*i; d > best {
			k, best = i, d
		}
	}
	if k == 0 || k == s {
		st.Estimate = Estimate{Recall: float64(R) / float64(R+s), Basis: fmt.Sprintf("knee: no knee yet in %d judgments (%d relevant)", s, R)}
		return st
	}
	rate := float64(R-cum[k]+1) / float64(s-k)
	rho := (float64(cum[k]) / float64(k)) / rate
	thr := opt.Rho
	if opt.Adjust {
		thr -= float64(min(R, 150))
	}
	st.Knee, st.Rho = k, rho
	st.Fired = s >= opt.MinRank && rho >= thr
	st.Estimate = Estimate{
		Recall: float64(R) / (float64(R) + rate*float64(s)),
		Basis: fmt.Sprintf("knee at rank %d of %d (slope ratio %.1f, threshold %.1f); %.3f relevant per judgment after the knee, extrapolated over %d more judgments",
			k, s, rho, thr, rate, s),
	}
	return st
}

// TargetSet is the target-set method's sample (Cormack & Grossman 2016):
// documents drawn uniformly at random from the corpus and judged until K of
// them were relevant. The review stops once every target document has been
// found by the review itself; the share of targets found estimates recall.
type TargetSet struct {
	Docs    []string `json:"docs"`    // the relevant documents of the sample
	Sampled int      `json:"sampled"` // documents judged to draw them
}

// DrawTargetSet samples ids without replacement (deterministic for seed),
// asking relevant for each, until k relevant documents are found or the
// corpus is exhausted.
func DrawTargetSet(ids []string, k int, seed uint64, relevant func(id string) bool) TargetSet {
	var t TargetSet
	rng := rand.New(rand.NewPCG(seed, 0x5851f42d4c957f2d))
	for _, i := range rng.Perm(len(ids)) {
		if len(t.Docs) >= k {
			break
		}
		t.Sampled++
		if relevant(ids[i]) {
			t.Docs = append(t.Docs, ids[i])
		}
	}
	return t
}

// Status reports whether the review (found: the documents it judged
// relevant) has found every target document, and estimates recall as the
// share of targets it found.
func (t TargetSet) Status(judged int, found map[string]bool) Status {
	st := Status{Judged: judged, Found: len(found)}
	hit := 0
	for _, d := range t.Docs {
		if found[d] {
			hit++
		}
	}
	if len(t.Docs) == 0 {
		st.Estimate = Estimate{Basis: fmt.Sprintf("target set: no relevant document in a random sample of %d", t.Sampled)}
		return st
	}
	st.Fired = hit == len(t.Docs)
	st.Estimate = Estimate{Recall: float64(hit) / float64(len(t.Docs)),
		Basis: fmt.Sprintf("target set: %d of %d target documents found (random sample of %d judged documents)", hit, len(t.Docs), t.Sampled)}
	return st
}
