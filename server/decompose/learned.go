package decompose

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"boolpool/server/boolexpr"
	"boolpool/server/decompose/learn"
)

// ModelVersion is the model file format this package reads.
const ModelVersion = 2

// Model is the learned decomposer: a template classifier (multinomial
// logistic regression over words, bigrams, connective cues, token shapes
// and the rules' own reading) and a span tagger (averaged structured
// perceptron over BIO labels of positive and negated atoms, with the rules'
// atoms aligned to the tokens among its features) that cuts the query into
// exactly the atoms the chosen template takes. Head nouns shared between
// conjuncts are filled in and atoms put in category form as the rules do.
type Model struct {
	Version  int               `json:"version"`
	Template *learn.Classifier `json:"template"`
	Tagger   *learn.Tagger     `json:"tagger"`
	// RulesBelow: when the classifier picks another template than the
	// rules and its probability is below this, the rules' reading is
	// returned instead (0 = the classifier always decides).
	RulesBelow float64 `json:"rules_below"`
	// KeepRulesAtoms: when the classifier picks the template the rules
	// chose, the rules' atoms are kept rather than the tagger's.
	KeepRulesAtoms bool `json:"keep_rules_atoms"`
	// JointWeight: when above 0, the template is the one maximising the
	// classifier's log probability plus JointWeight times the tagger's
	// score of its best reading under that template's atom counts (the
	// joint decoder); 0 = the classifier alone picks it.
	JointWeight float64 `json:"joint_weight,omitempty"`
	// Lexicon: the lexicon keys (see lexKey) of the training queries'
	// gold atoms, sorted; when not empty the classifier also sees
	// lexiconFeatures.
	Lexicon []string `json:"lexicon,omitempty"`
	lexicon map[string]bool
	// Options are the options the model was trained with, defaults
	// filled in.
	Options  TrainOptions `json:"options"`
	Training TrainingInfo `json:"training"`
}

// TrainingInfo records how a model was trained and what it reached on the
// QUEST queries it held out.
type TrainingInfo struct {
	// Split: SplitHeldOut(QUEST, EvalPercent) gives the held-out part
	// (stratified by template, by FNV-1a of the query text).
	Split         string      `json:"split"`
	EvalPercent   int         `json:"eval_percent"`
	QuestFile     string      `json:"quest_file"`
	DebquestFile  string      `json:"debquest_file,omitempty"`
	QuestTrain    int         `json:"quest_train"`
	QuestHeldOut  int         `json:"quest_held_out"`
	DebquestTrain int         `json:"debquest_train"`
	Eval          EvalSummary `json:"eval"`       // the model on the held-out queries
	RulesEval     EvalSummary `json:"rules_eval"` // the rules on the same queries
	// CV, when run: the same recipe cross-validated over all the QUEST
	// queries (see CrossValidate), a larger if less direct estimate.
	CV *CVSummary `json:"cv,omitempty"`
}

// CVSummary is what a model file keeps of a cross-validation.
type CVSummary struct {
	Folds int         `json:"folds"`
	Eval  EvalSummary `json:"eval"`
	Rules EvalSummary `json:"rules"`
}

// EvalSummary is the part of a Report a model file keeps.
type EvalSummary struct {
	All      Scores `json:"all"`
	Negation Scores `json:"negation"`
}

// Summary returns the report's overall and negation scores.
func (r Report) Summary() EvalSummary { return EvalSummary{All: r.Scores, Negation: r.Negation} }

// TrainOptions tune Train. The defaults were chosen by 5-fold
// cross-validation inside the training part of QUEST (never on its
// held-out part).
type TrainOptions struct {
	Epochs         int     `json:"epochs"`                 // classifier epochs (default 20)
	TaggerEpochs   int     `json:"tagger_epochs"`          // tagger epochs (default 12)
	MinCount       int     `json:"min_count"`              // classifier features seen in fewer items are dropped (default 2)
	L2             float64 `json:"l2"`                     // classifier L2 penalty per example (default 0.003)
	RulesBelow     float64 `json:"rules_below"`            // see Model.RulesBelow
	KeepRulesAtoms bool    `json:"keep_rules_atoms"`       // see Model.KeepRulesAtoms
	JointWeight    float64 `json:"joint_weight,omitempty"` // see Model.JointWeight
	Lexicon        bool    `json:"lexicon,omitempty"`      // give the classifier the lexicon features (see Model.Lexicon)
}

// withDefaults fills in the zero options.
func (o TrainOptions) withDefaults() TrainOptions {
	if o.Epochs <= 0 {
		o.Epochs = 20
	}
	if o.TaggerEpochs <= 0 {
		o.TaggerEpochs = 12
	}
	if o.MinCount <= 0 {
		o.MinCount = 2
	}
	if o.L2 <= 0 {
		o.L2 = 0.003
	}
	return o
}

// Train fits a model on gold items (QUEST's training part and DebQUEST
// train). It does not evaluate; see TrainingInfo.
func Train(items []Gold, opt TrainOptions) (*Model, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("decompose: no training items")
	}
	opt = opt.withDefaults()
	classes := boolexpr.Templates()
	classOf := map[string]int{}
	for i, t := range classes {
		classOf[t] = i
	}
	lex := map[string]int{}
	if opt.Lexicon {
		for _, g := range items {
			for _, a := range g.Atoms {
				lex[lexKey(a)]++
			}
		}
	}
	var exs []learn.Example
	var seqs []learn.Sequence
	for i, g := range items {
		c, ok := classOf[g.Template]
		if !ok {
			return nil, fmt.Errorf("decompose: training item %d (%q): unknown template %q", i, g.Query, g.Template)
		}
		p := prepare(g.Query)
		fs := templateFeatures(p)
		if opt.Lexicon {
			// Leave the item's own atoms out, as they are out of the
			// lexicon for a query the model has not seen.
			own := map[string]int{}
			for _, a := range g.Atoms {
				own[lexKey(a)]++
			}
			fs = append(fs, lexiconFeatures(p, func(k string) bool { return lex[k]-own[k] > 0 })...)
		}
		exs = append(exs, learn.Example{Features: fs, Class: c})
		if len(p.tokens) > 0 {
			seqs = append(seqs, learn.Sequence{Tokens: tokenFeatures(p, g.Template), Labels: alignLabels(p.tokens, g.Atoms, g.Expr)})
		}
	}
	cl, err := learn.TrainClassifier(classes, exs, learn.ClassifierOptions{Epochs: opt.Epochs, MinCount: opt.MinCount, L2: opt.L2})
	if err != nil {
		return nil, fmt.Errorf("decompose: template classifier: %w", err)
	}
	tg, err := learn.TrainTagger(tagClasses(), seqs, opt.TaggerEpochs)
	if err != nil {
		return nil, fmt.Errorf("decompose: span tagger: %w", err)
	}
	m := &Model{Version: ModelVersion, Template: cl, Tagger: tg, RulesBelow: opt.RulesBelow, KeepRulesAtoms: opt.KeepRulesAtoms, JointWeight: opt.JointWeight, Options: opt}
	for k := range lex {
		m.Lexicon = append(m.Lexicon, k)
	}
	sort.Strings(m.Lexicon)
	m.buildLexicon()
	return m, nil
}

func (m *Model) buildLexicon() {
	m.lexicon = make(map[string]bool, len(m.Lexicon))
	for _, k := range m.Lexicon {
		m.lexicon[k] = true
	}
}

// classifierFeatures are the template classifier's features of a query.
func (m *Model) classifierFeatures(p *prepared) []string {
	fs := templateFeatures(p)
	if len(m.Lexicon) > 0 {
		fs = append(fs, lexiconFeatures(p, func(k string) bool { return m.lexicon[k] })...)
	}
	return fs
}

// templateCounts returns how many positive and negated atoms a template
// takes.
func templateCounts(t string) (pos, neg int) {
	n, err := boolexpr.TemplateAtoms(t)
	if err != nil {
		return 0, 0
	}
	if t == boolexpr.TemplateNot || t == boolexpr.TemplateAndNot {
		return n - 1, 1
	}
	return n, 0
}

// jointBeam: the joint decoder tags only the templates whose classifier
// probability is at least this share of the best one's.
const jointBeam = 0.01

// Decompose reads query with the model: the classifier picks the
// template, the tagger cuts the query into that template's atoms (or, with
// KeepRulesAtoms and the rules' template, the rules' atoms are kept). The
// result's Confidence is the classifier's probability of the template
// times the tagger's mean per-token label probability under it. The
// rules' reading is returned (Source "rules", Confidence computed the same
// way for the rules' template) when the classifier overrules the rules
// with a probability below RulesBelow or the tagger's atoms are unusable.
func (m *Model) Decompose(query string) Result {
	p := prepare(query)
	probs := m.Template.Probabilities(m.classifierFeatures(p))
	classes := m.Template.Classes
	// The tagger's reading of the query under each template's atom
	// counts, computed when first needed.
	type reading struct {
		labels      []int
		score, conf float64
		ok          bool
	}
	readings := make([]*reading, len(classes))
	var baseEm [][]float64 // the template-free features' emissions, shared
	read := func(c int) *reading {
		if readings[c] == nil {
			r := &reading{}
			if pos, neg := templateCounts(classes[c]); pos+neg > 0 {
				if baseEm == nil {
					baseEm = taggerEmissions(m.Tagger, len(p.tokens), func(emit func(int, []byte)) { eachBaseTokenKey(p, emit) })
				}
				em := learn.AddEmissions(baseEm, taggerEmissions(m.Tagger, len(p.tokens), func(emit func(int, []byte)) {
					eachTemplateTokenKey(p, classes[c], emit)
				}))
				r.labels, r.score, r.conf, r.ok = m.Tagger.Decode(em, []int{pos, neg})
			}
			readings[c] = r
		}
		return readings[c]
	}
	// post is the probability of each template: the classifier's, or with
	// JointWeight its product with the exponentiated tagger score,
	// renormalised.
	post := probs
	if m.JointWeight > 0 && len(p.tokens) > 0 {
		post = make([]float64, len(classes))
		top, maxProb := math.Inf(-1), 0.0
		for _, v := range probs {
			maxProb = math.Max(maxProb, v)
		}
		for c := range classes {
			post[c] = math.Inf(-1)
			// Templates the classifier finds jointBeam times less likely
			// than its favourite are not tagged (they would need a tagger
			// score lead of ln(1/jointBeam)/JointWeight to win).
			if probs[c] < jointBeam*maxProb {
				continue
			}
			if r := read(c); r.ok && probs[c] > 0 {
				post[c] = math.Log(probs[c]) + m.JointWeight*r.score
			}
			top = math.Max(top, post[c])
		}
		if math.IsInf(top, -1) {
			post = probs
		} else {
			sum := 0.0
			for c := range post {
				post[c] = math.Exp(post[c] - top)
				sum += post[c]
			}
			for c := range post {
				post[c] /= sum
			}
		}
	}
	best := 0
	for c := range post {
		if post[c] > post[best] {
			best = c
		}
	}
	tmpl, pt := classes[best], post[best]
	fallback := func() Result {
		r := p.rules
		r.Source, r.Confidence = SourceRules, 0
		for c, t := range classes {
			if t == r.Template {
				r.Confidence = post[c] * read(c).conf
			}
		}
		return r
	}
	if len(p.tokens) == 0 || (tmpl != p.rules.Template && pt < m.RulesBelow) {
		return fallback()
	}
	if m.KeepRulesAtoms && p.rules.Template == tmpl {
		r := p.rules
		r.Source, r.Confidence = SourceModel, pt*read(best).conf
		return r
	}
	rd := read(best)
	if !rd.ok {
		return fallback()
	}
	atoms, ok := segmentAtoms(p.tokens, rd.labels)
	if !ok {
		return fallback()
	}
	e, err := boolexpr.FromTemplate(tmpl, len(atoms))
	if err != nil {
		return fallback()
	}
	return Result{Template: tmpl, Expression: e, Atoms: atoms, Confidence: pt * rd.conf, Source: SourceModel}
}

// segmentAtoms turns tagged tokens into atoms, positives first: each
// segment is tidied, a segment without a head noun borrows one from its
// neighbour (as the rules do), and all are put in category form. ok is
// false when an atom is empty or two are the same.
func segmentAtoms(tokens []string, labels []int) ([]string, bool) {
	var pos, neg []string
	var cur []string
	curNeg := false
	flush := func() {
		if len(cur) == 0 {
			return
		}
		s := tidySegment(strings.Join(cur, " "))
		if curNeg {
			neg = append(neg, s)
		} else {
			pos = append(pos, s)
		}
		cur = nil
	}
	for i, l := range labels {
		switch l {
		case labelBPos, labelBNeg:
			flush()
			cur, curNeg = []string{tokens[i]}, l == labelBNeg
		case labelIPos, labelINeg:
			cur = append(cur, tokens[i])
		default:
			flush()
		}
	}
	flush()
	for i := range pos {
		switch {
		case i > 0:
			pos[i] = borrowHead(pos[i], pos[i-1])
		case len(pos) > 1:
			pos[i] = borrowHead(pos[i], pos[1])
		case len(neg) > 0:
			pos[i] = borrowHead(pos[i], neg[0])
		}
	}
	for i := range neg {
		if len(pos) > 0 {
			neg[i] = borrowHead(neg[i], pos[0])
		}
	}
	atoms := append(pos, neg...)
	seen := map[string]bool{}
	for i, a := range atoms {
		a = canonical(a)
		k := lowerASCII(a)
		if strings.TrimSpace(a) == "" || seen[k] {
			return nil, false
		}
		seen[k] = true
		atoms[i] = a
	}
	return atoms, true
}

// tidySegment drops punctuation and connectives the tagger left at the
// edges of a segment.
func tidySegment(s string) string {
	ws := words(strings.Trim(clean(s), ",;:.?! "))
	for len(ws) > 1 {
		fw := lowerASCII(ws[0])
		if connective(fw) && fw != "non" || fw == "," {
			ws = ws[1:]
			continue
		}
		break
	}
	return trimConnectives(strings.Join(ws, " "))
}

// WriteModel writes the model as gzipped JSON.
func WriteModel(w io.Writer, m *Model) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	if err := enc.Encode(m); err != nil {
		return fmt.Errorf("decompose: encode model: %w", err)
	}
	return zw.Close()
}

// ReadModel reads a gzipped JSON model and checks its shapes.
func ReadModel(r io.Reader) (*Model, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("decompose: model: %w", err)
	}
	defer zr.Close()
	var m Model
	if err := json.NewDecoder(zr).Decode(&m); err != nil {
		return nil, fmt.Errorf("decompose: model: %w", err)
	}
	if m.Version != ModelVersion {
		return nil, fmt.Errorf("decompose: model version %d, this build reads %d", m.Version, ModelVersion)
	}
	if m.Template == nil || m.Tagger == nil {
		return nil, fmt.Errorf("decompose: model lacks its template classifier or tagger")
	}
	if err := m.Template.Validate(); err != nil {
		return nil, fmt.Errorf("decompose: model: %w", err)
	}
	if err := m.Tagger.Validate(); err != nil {
		return nil, fmt.Errorf("decompose: model: %w", err)
	}
	m.buildLexicon()
	if got, want := strings.Join(m.Template.Classes, "|"), strings.Join(boolexpr.Templates(), "|"); got != want {
		return nil, fmt.Errorf("decompose: model classes %q, want the QUEST templates", got)
	}
	return &m, nil
}

// ReadModelBytes is ReadModel over a byte slice (the embedded model).
func ReadModelBytes(b []byte) (*Model, error) { return ReadModel(bytes.NewReader(b)) }
