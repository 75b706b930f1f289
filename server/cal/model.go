package cal

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// TrainOptions configure the logistic regression.
type TrainOptions struct {
	// Lambda is the L2 regularisation (BMI / sofia-ml: 1e-4).
	Lambda float64
	// Iterations of stochastic gradient descent, each on one (relevant,
	// non-relevant) pair (sofia-ml's "roc" loop, as BMI trains).
	Iterations int
	Seed       uint64
}

// DefaultTrainOptions are BMI's: λ = 1e-4 with sofia-ml's Pegasos logistic
// regression on relevant/non-relevant pairs; 20,000 pairs (BMI: 200,000)
// keep a round fast, and the ranking they give is the same in the tests.
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{Lambda: 1e-4, Iterations: 20000, Seed: 1}
}

// Model is a linear scorer over the features: score(d) = w · x_d.
type Model struct {
	W []float64
}

// Train fits an L2-regularised logistic regression on pairs: each step
// draws a positive a and a negative b and takes a Pegasos step (learning
// rate 1/(λt), projection onto the ball of radius 1/√λ) on the logistic
// loss of w·(a − b) (sofia-ml's logreg-pegasos with the roc loop). The
// weight vector is kept as scale × v so the shrinkage costs O(1).
func Train(dim int, pos, neg []Vec, opt TrainOptions) (Model, error) {
	if len(pos) == 0 || len(neg) == 0 {
		return Model{}, fmt.Errorf("cal: training needs a positive and a negative example (have %d and %d)", len(pos), len(neg))
	}
	if opt.Lambda <= 0 || opt.Iterations < 1 {
		return Model{}, fmt.Errorf("cal: lambda must be > 0 and iterations >= 1")
	}
	v := make([]float64, dim)
	scale, sq := 1.0, 0.0 // w = scale·v; sq = |w|²
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	radius2 := 1 / opt.Lambda
	for t := 1; t <= opt.Iterations; t++ {
		a, b := pos[rng.IntN(len(pos))], neg[rng.IntN(len(neg))]
		eta := 1 / (opt.Lambda * float64(t))
		// z = w·(a − b), before the shrinkage.
		z := scale * (dot(v, a) - dot(v, b))
		shrink := 1 - eta*opt.Lambda
		if shrink <= 0 {
			clear(v)
			scale, sq = 1, 0
		} else {
			scale *= shrink
			sq *= shrink * shrink
		}
		// Gradient of log(1 + e^−z) is −σ(−z)·(a − b).
		g := eta / (1 + math.Exp(z))
		if g != 0 {
			sq += addTo(v, scale, a, g) + addTo(v, scale, b, -g)
		}
		if sq > radius2 {
			f := math.Sqrt(radius2 / sq)
			scale *= f
			sq = radius2
		}
		if scale < 1e-9 { // fold the scale back before it underflows
			for i := range v {
				v[i] *= scale
			}
			scale = 1
		}
	}
	for i := range v {
		v[i] *= scale
	}
	return Model{W: v}, nil
}

func dot(w []float64, x Vec) float64 {
	var s float64
	for i, t := range x.Idx {
		s += w[t] * float64(x.Val[i])
	}
	return s
}

// addTo adds c·x to w = scale·v and returns the change of |w|².
func addTo(v []float64, scale float64, x Vec, c float64) float64 {
	var d float64
	for i, t := range x.Idx {
		old := scale * v[t]
		nw := old + c*float64(x.Val[i])
		v[t] = nw / scale
		d += nw*nw - old*old
	}
	return d
}

// Score is w · x.
func (m Model) Score(x Vec) float64 { return dot(m.W, x) }

// ScoreAll writes w · x_d for every document into out (len NumDocs).
func (m Model) ScoreAll(f *Features, out []float64) {
	w := m.W
	for d := 0; d < len(f.rowPtr)-1; d++ {
		var s float64
		lo, hi := f.rowPtr[d], f.rowPtr[d+1]
		cols, vals := f.cols[lo:hi], f.vals[lo:hi]
		for i, t := range cols {
			s += w[t] * float64(vals[i])
		}
		out[d] = s
	}
	if dd := f.denseDim; dd > 0 {
		// The dense block: out += denseW · (w_block · e_d), e_d unit.
		wb := make([]float32, dd)
		for i := range wb {
			wb[i] = float32(w[int(f.denseCol)+i] * f.denseW)
		}
		for d := range out {
			row := f.dense[d*dd : (d+1)*dd]
			var s float32
			for i, x := range row {
				s += x * wb[i]
			}
			out[d] += float64(s)
		}
	}
}
