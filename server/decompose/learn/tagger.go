package learn

import (
	"fmt"
	"math"
	"sort"
)

// Tagger is an averaged structured perceptron over label sequences. Label 0
// is O (outside every segment); segment class c has labels B = 1+2c (begins
// a segment) and I = 2+2c (continues one; only after B or I of the same
// class). Decoding can demand an exact number of segments per class.
type Tagger struct {
	Classes  []string    `json:"classes"`
	Features []string    `json:"features"`
	Weights  [][]float32 `json:"weights"` // [feature][label]
	// Trans[from][to]: from = a label or len(labels) for the start.
	Trans [][]float32 `json:"trans"`
	index map[string]int
}

// Sequence is one training item: per-token features and gold labels.
type Sequence struct {
	Tokens [][]string
	Labels []int
}

// NumLabels is 1 + 2 × the number of segment classes.
func (t *Tagger) NumLabels() int { return 1 + 2*len(t.Classes) }

// LabelName names a label: "O", "B-class", "I-class".
func (t *Tagger) LabelName(l int) string {
	if l == 0 {
		return "O"
	}
	c := (l - 1) / 2
	if (l-1)%2 == 0 {
		return "B-" + t.Classes[c]
	}
	return "I-" + t.Classes[c]
}

// Counts returns the number of segments of each class in a label
// sequence.
func Counts(labels []int, nClasses int) []int {
	out := make([]int, nClasses)
	for _, l := range labels {
		if l > 0 && (l-1)%2 == 0 {
			out[(l-1)/2]++
		}
	}
	return out
}

// validNext reports whether label b may follow label a (a < 0: start).
func validNext(a, b int) bool {
	if b == 0 || (b-1)%2 == 0 {
		return true
	}
	c := (b - 1) / 2
	return a == 1+2*c || a == 2+2*c
}

// TrainTagger fits a tagger over segment classes by the averaged
// structured perceptron, decoding each training sequence under its gold
// segment counts.
func TrainTagger(classes []string, data []Sequence, epochs int) (*Tagger, error) {
	if len(classes) == 0 {
		return nil, fmt.Errorf("learn: tagger needs at least one segment class")
	}
	if epochs <= 0 {
		epochs = 10
	}
	nl := 1 + 2*len(classes)
	for i, s := range data {
		if len(s.Tokens) != len(s.Labels) {
			return nil, fmt.Errorf("learn: sequence %d: %d tokens, %d labels", i, len(s.Tokens), len(s.Labels))
		}
		prev := -1
		for j, l := range s.Labels {
			if l < 0 || l >= nl || !validNext(prev, l) {
				return nil, fmt.Errorf("learn: sequence %d token %d: label %d invalid after %d", i, j, l, prev)
			}
			prev = l
		}
	}
	t := &Tagger{Classes: append([]string{}, classes...), index: map[string]int{}}
	var w, u [][]float64 // weights and the averaging accumulators
	tw, tu := newMatrix(nl+1, nl), newMatrix(nl+1, nl)
	for _, s := range data {
		for _, fs := range s.Tokens {
			for _, f := range fs {
				if _, ok := t.index[f]; !ok {
					t.index[f] = len(t.Features)
					t.Features = append(t.Features, f)
					w, u = append(w, make([]float64, nl)), append(u, make([]float64, nl))
				}
			}
		}
	}
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rng := uint64(0x2545f4914f6cdd1d)
	step := 1.0
	for ep := 0; ep < epochs; ep++ {
		shuffle(order, &rng)
		for _, k := range order {
			s := data[k]
			if len(s.Labels) == 0 {
				continue
			}
			em := emissions(t.index, w, s.Tokens, nl)
			pred, _ := viterbi(em, func(a, b int) float64 { return tw[a][b] }, nl, Counts(s.Labels, len(classes)))
			if pred == nil {
				return nil, fmt.Errorf("learn: sequence %d: no labelling meets its own counts", k)
			}
			update := func(labels []int, sign float64) {
				prev := nl
				for j, l := range labels {
					for _, f := range s.Tokens[j] {
						fi := t.index[f]
						w[fi][l] += sign
						u[fi][l] += sign * step
					}
					tw[prev][l] += sign
					tu[prev][l] += sign * step
					prev = l
				}
			}
			if !equalInts(pred, s.Labels) {
				update(s.Labels, 1)
				update(pred, -1)
			}
			step++
		}
	}
	t.Weights = make([][]float32, len(w))
	for i := range w {
		t.Weights[i] = make([]float32, nl)
		for l := range w[i] {
			t.Weights[i][l] = float32(w[i][l] - u[i][l]/step)
		}
	}
	t.Trans = make([][]float32, nl+1)
	for a := range tw {
		t.Trans[a] = make([]float32, nl)
		for b := range tw[a] {
			t.Trans[a][b] = float32(tw[a][b] - tu[a][b]/step)
		}
	}
	t.pruneZero()
	return t, nil
}

func newMatrix(r, c int) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = make([]float64, c)
	}
	return m
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// pruneZero drops features whose averaged weights are all zero.
func (t *Tagger) pruneZero() { t.Prune(1e-6) }

// Prune drops features whose largest absolute weight is below min and
// returns how many it dropped.
func (t *Tagger) Prune(min float32) int {
	type row struct {
		f string
		w []float32
	}
	var keep []row
	for i, ws := range t.Weights {
		for _, v := range ws {
			if v >= min || v <= -min {
				keep = append(keep, row{t.Features[i], ws})
				break
			}
		}
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].f < keep[j].f })
	dropped := len(t.Features) - len(keep)
	t.Features, t.Weights = make([]string, len(keep)), make([][]float32, len(keep))
	for i, r := range keep {
		t.Features[i], t.Weights[i] = r.f, r.w
	}
	t.buildIndex()
	return dropped
}

func (t *Tagger) buildIndex() {
	t.index = make(map[string]int, len(t.Features))
	for i, f := range t.Features {
		t.index[f] = i
	}
}

// Validate checks the shapes of a deserialised tagger and builds its
// feature index.
func (t *Tagger) Validate() error {
	nl := t.NumLabels()
	if len(t.Classes) == 0 || len(t.Weights) != len(t.Features) || len(t.Trans) != nl+1 {
		return fmt.Errorf("learn: tagger shapes: %d classes, %d features, %d weight rows, %d transition rows",
			len(t.Classes), len(t.Features), len(t.Weights), len(t.Trans))
	}
	for i, r := range t.Weights {
		if len(r) != nl {
			return fmt.Errorf("learn: tagger feature %q has %d weights, want %d", t.Features[i], len(r), nl)
		}
	}
	for i, r := range t.Trans {
		if len(r) != nl {
			return fmt.Errorf("learn: tagger transition row %d has %d weights, want %d", i, len(r), nl)
		}
	}
	t.buildIndex()
	return nil
}

// emissions are each token's per-label sums of the weights of its
// features (rows of w by index; unknown features add nothing).
func emissions[W float32 | float64](index map[string]int, w [][]W, tokens [][]string, nl int) [][]float64 {
	em := make([][]float64, len(tokens))
	for j, fs := range tokens {
		em[j] = make([]float64, nl)
		for _, f := range fs {
			if fi, ok := index[f]; ok {
				for l, v := range w[fi] {
					em[j][l] += float64(v)
				}
			}
		}
	}
	return em
}

// Tag labels tokens. counts, when not nil, demands exactly counts[c]
// segments of class c; ok is false when no labelling meets them (fewer
// tokens than segments). conf is the mean over tokens of the local
// softmax probability of the chosen label (the tagger's certainty).
func (t *Tagger) Tag(tokens [][]string, counts []int) (labels []int, conf float64, ok bool) {
	labels, _, conf, ok = t.TagScore(tokens, counts)
	return labels, conf, ok
}

// TagScore is Tag that also returns the labelling's score (the sum of its
// emission and transition weights), which compares labellings of the same
// tokens under different counts.
func (t *Tagger) TagScore(tokens [][]string, counts []int) (labels []int, score, conf float64, ok bool) {
	return t.Decode(t.Emissions(tokens), counts)
}

// Emissions returns each token's score of each label: the sum of its
// features' weights (unknown features count nothing). Emissions of two
// feature sets of the same tokens may be added (AddEmissions) and decoded
// together.
func (t *Tagger) Emissions(tokens [][]string) [][]float64 {
	if t.index == nil {
		t.buildIndex()
	}
	return emissions(t.index, t.Weights, tokens, t.NumLabels())
}

// NewEmissions returns zero emissions for n tokens (see AddFeature).
func (t *Tagger) NewEmissions(n int) [][]float64 {
	nl := t.NumLabels()
	em := make([][]float64, n)
	flat := make([]float64, n*nl)
	for j := range em {
		em[j] = flat[j*nl : (j+1)*nl : (j+1)*nl]
	}
	return em
}

// AddFeature adds the weights of feature key (if known) to one token's
// emissions: Emissions without building the feature strings.
func (t *Tagger) AddFeature(em []float64, key []byte) {
	if t.index == nil {
		t.buildIndex()
	}
	if fi, ok := t.index[string(key)]; ok {
		for l, v := range t.Weights[fi] {
			em[l] += float64(v)
		}
	}
}

// AddEmissions returns a + b, token by token and label by label.
func AddEmissions(a, b [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for j := range a {
		out[j] = make([]float64, len(a[j]))
		for l := range a[j] {
			out[j][l] = a[j][l] + b[j][l]
		}
	}
	return out
}

// Decode is TagScore over emissions (see Emissions).
func (t *Tagger) Decode(em [][]float64, counts []int) (labels []int, score, conf float64, ok bool) {
	nl := t.NumLabels()
	if counts != nil && len(counts) != len(t.Classes) {
		return nil, 0, 0, false
	}
	if len(em) == 0 {
		return nil, 0, 0, counts == nil || sum(counts) == 0
	}
	labels, score = viterbi(em, func(a, b int) float64 { return float64(t.Trans[a][b]) }, nl, counts)
	if labels == nil {
		return nil, 0, 0, false
	}
	p := make([]float64, nl)
	for j, l := range labels {
		copy(p, em[j])
		softmax(p)
		conf += p[l]
	}
	return labels, score, conf / float64(len(labels)), true
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// viterbi finds the best label sequence; with counts it tracks how many
// segments of each class have begun and ends only at exactly counts.
// start transitions are trans(nl, b).
func viterbi(em [][]float64, trans func(a, b int) float64, nl int, counts []int) ([]int, float64) {
	nc := (nl - 1) / 2
	// Count states: mixed radix over counts[c]+1 (one state when free).
	radix := make([]int, nc)
	ncs := 1
	for c := 0; c < nc; c++ {
		radix[c] = ncs
		if counts != nil {
			ncs *= counts[c] + 1
		}
	}
	ns := nl * ncs
	neg := math.Inf(-1)
	score := make([]float64, ns)
	next := make([]float64, ns)
	back := make([][]int32, len(em))
	for i := range score {
		score[i] = neg
	}
	bump := func(cs, l int) int { // count state after label l, or -1
		if counts == nil || l == 0 || (l-1)%2 != 0 {
			return cs
		}
		c := (l - 1) / 2
		if (cs/radix[c])%(counts[c]+1) == counts[c] {
			return -1
		}
		return cs + radix[c]
	}
	back[0] = make([]int32, ns)
	for l := 0; l < nl; l++ {
		if !validNext(-1, l) {
			continue
		}
		cs := bump(0, l)
		if cs < 0 {
			continue
		}
		score[l*ncs+cs] = trans(nl, l) + em[0][l]
		back[0][l*ncs+cs] = -1
	}
	for j := 1; j < len(em); j++ {
		back[j] = make([]int32, ns)
		for i := range next {
			next[i] = neg
		}
		for s, v := range score {
			if v == neg {
				continue
			}
			a, cs := s/ncs, s%ncs
			for b := 0; b < nl; b++ {
				if !validNext(a, b) {
					continue
				}
				ncs2 := bump(cs, b)
				if ncs2 < 0 {
					continue
				}
				x := v + trans(a, b) + em[j][b]
				if k := b*ncs + ncs2; x > next[k] {
					next[k], back[j][k] = x, int32(s)
				}
			}
		}
		score, next = next, score
	}
	final := 0
	if counts != nil {
		for c := 0; c < nc; c++ {
			final += counts[c] * radix[c]
		}
	}
	best, bestScore := -1, neg
	for s, v := range score {
		if v == neg || (counts != nil && s%ncs != final) {
			continue
		}
		if v > bestScore {
			best, bestScore = s, v
		}
	}
	if best < 0 {
		return nil, neg
	}
	out := make([]int, len(em))
	s := best
	for j := len(em) - 1; j >= 0; j-- {
		out[j] = s / ncs
		s = int(back[j][s])
	}
	return out, bestScore
}
