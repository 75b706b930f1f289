// Package learn holds the two small learners of the decomposer, with no
// knowledge of queries: a multinomial logistic regression over sparse
// binary string features (the template classifier) and an averaged
// structured perceptron that tags token sequences with segment labels
// under exact segment counts (the span tagger). Both are deterministic
// given their training data and serialise to JSON.
package learn

import (
	"fmt"
	"math"
	"sort"
)

// Classifier is a multinomial logistic regression over binary features.
// Weights[f][c] is feature Features[f]'s weight for class Classes[c];
// Bias[c] the class bias.
type Classifier struct {
	Classes  []string    `json:"classes"`
	Features []string    `json:"features"`
	Weights  [][]float32 `json:"weights"`
	Bias     []float32   `json:"bias"`
	index    map[string]int
}

// Example is one training item: its features and its class index.
type Example struct {
	Features []string
	Class    int
}

// ClassifierOptions tune TrainClassifier.
type ClassifierOptions struct {
	Epochs   int     // passes over the data (default 30)
	Rate     float64 // AdaGrad base learning rate (default 0.5)
	L2       float64 // L2 penalty per example (default 1e-4)
	MinCount int     // drop features seen in fewer examples (default 1)
}

// TrainClassifier fits a classifier by AdaGrad on the log loss, visiting
// the examples in a fixed shuffled order. classes names the class indices.
func TrainClassifier(classes []string, data []Example, opt ClassifierOptions) (*Classifier, error) {
	if len(classes) < 2 {
		return nil, fmt.Errorf("learn: need at least 2 classes, got %d", len(classes))
	}
	if opt.Epochs <= 0 {
		opt.Epochs = 30
	}
	if opt.Rate <= 0 {
		opt.Rate = 0.5
	}
	if opt.L2 < 0 {
		opt.L2 = 0
	} else if opt.L2 == 0 {
		opt.L2 = 1e-4
	}
	if opt.MinCount <= 0 {
		opt.MinCount = 1
	}
	count := map[string]int{}
	for i, ex := range data {
		if ex.Class < 0 || ex.Class >= len(classes) {
			return nil, fmt.Errorf("learn: example %d: class %d out of range [0,%d)", i, ex.Class, len(classes))
		}
		for _, f := range dedupe(ex.Features) {
			count[f]++
		}
	}
	var feats []string
	for f, n := range count {
		if n >= opt.MinCount {
			feats = append(feats, f)
		}
	}
	sort.Strings(feats)
	m := &Classifier{Classes: append([]string{}, classes...), Features: feats, Bias: make([]float32, len(classes))}
	m.Weights = make([][]float32, len(feats))
	for i := range m.Weights {
		m.Weights[i] = make([]float32, len(classes))
	}
	m.buildIndex()
	nc := len(classes)
	w := make([][]float64, len(feats))
	g2 := make([][]float64, len(feats))
	for i := range w {
		w[i], g2[i] = make([]float64, nc), make([]float64, nc)
	}
	bias, bg2 := make([]float64, nc), make([]float64, nc)
	idx := make([][]int, len(data))
	for i, ex := range data {
		for _, f := range dedupe(ex.Features) {
			if j, ok := m.index[f]; ok {
				idx[i] = append(idx[i], j)
			}
		}
	}
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rng := uint64(0x9e3779b97f4a7c15)
	probs := make([]float64, nc)
	for ep := 0; ep < opt.Epochs; ep++ {
		shuffle(order, &rng)
		for _, k := range order {
			copy(probs, bias)
			for _, j := range idx[k] {
				for c := 0; c < nc; c++ {
					probs[c] += w[j][c]
				}
			}
			softmax(probs)
			for c := 0; c < nc; c++ {
				g := probs[c]
				if c == data[k].Class {
					g -= 1
				}
				bg2[c] += g * g
				bias[c] -= opt.Rate * g / math.Sqrt(bg2[c]+1e-8)
				for _, j := range idx[k] {
					gj := g + opt.L2*w[j][c]
					g2[j][c] += gj * gj
					w[j][c] -= opt.Rate * gj / math.Sqrt(g2[j][c]+1e-8)
				}
			}
		}
	}
	for j := range w {
		for c := range w[j] {
			m.Weights[j][c] = float32(w[j][c])
		}
	}
	for c := range bias {
		m.Bias[c] = float32(bias[c])
	}
	return m, nil
}

func dedupe(fs []string) []string {
	seen := make(map[string]bool, len(fs))
	out := fs[:0:0]
	for _, f := range fs {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

func softmax(x []float64) {
	max := math.Inf(-1)
	for _, v := range x {
		if v > max {
			max = v
		}
	}
	sum := 0.0
	for i, v := range x {
		x[i] = math.Exp(v - max)
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
}

func (m *Classifier) buildIndex() {
	m.index = make(map[string]int, len(m.Features))
	for i, f := range m.Features {
		m.index[f] = i
	}
}

// Validate checks the shapes of a deserialised classifier and builds its
// feature index.
func (m *Classifier) Validate() error {
	if len(m.Classes) < 2 || len(m.Bias) != len(m.Classes) || len(m.Weights) != len(m.Features) {
		return fmt.Errorf("learn: classifier shapes: %d classes, %d biases, %d features, %d weight rows",
			len(m.Classes), len(m.Bias), len(m.Features), len(m.Weights))
	}
	for i, row := range m.Weights {
		if len(row) != len(m.Classes) {
			return fmt.Errorf("learn: classifier feature %q has %d weights, want %d", m.Features[i], len(row), len(m.Classes))
		}
	}
	m.buildIndex()
	return nil
}

// Probabilities returns the class probabilities of a feature set
// (repeated features count once; unknown ones are ignored).
func (m *Classifier) Probabilities(features []string) []float64 {
	if m.index == nil {
		m.buildIndex()
	}
	p := make([]float64, len(m.Classes))
	for c, b := range m.Bias {
		p[c] = float64(b)
	}
	// Known features by index, each counted once.
	idx := make([]int, 0, len(features))
	for _, f := range features {
		if j, ok := m.index[f]; ok {
			idx = append(idx, j)
		}
	}
	sort.Ints(idx)
	for k, j := range idx {
		if k > 0 && idx[k-1] == j {
			continue
		}
		for c, v := range m.Weights[j] {
			p[c] += float64(v)
		}
	}
	softmax(p)
	return p
}

// Predict returns the most probable class index and its probability.
func (m *Classifier) Predict(features []string) (int, float64) {
	p := m.Probabilities(features)
	best := 0
	for c := range p {
		if p[c] > p[best] {
			best = c
		}
	}
	return best, p[best]
}

// Prune drops features whose largest absolute weight is below min and
// returns how many it dropped (a smaller model file).
func (m *Classifier) Prune(min float32) int {
	var feats []string
	var weights [][]float32
	for i, row := range m.Weights {
		keep := false
		for _, v := range row {
			if v >= min || v <= -min {
				keep = true
				break
			}
		}
		if keep {
			feats = append(feats, m.Features[i])
			weights = append(weights, row)
		}
	}
	dropped := len(m.Features) - len(feats)
	m.Features, m.Weights = feats, weights
	m.buildIndex()
	return dropped
}

// shuffle permutes order in place (Fisher–Yates) with the xorshift stream
// whose state is *rng, so that training is deterministic.
func shuffle(order []int, rng *uint64) {
	for i := len(order) - 1; i > 0; i-- {
		*rng ^= *rng << 13
		*rng ^= *rng >> 7
		*rng ^= *rng << 17
		j := int(*rng % uint64(i+1))
		order[i], order[j] = order[j], order[i]
	}
}
