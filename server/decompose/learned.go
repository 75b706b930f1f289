package decompose

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"boolpool/server/boolexpr"
	"boolpool/server/decompose/learn"
)

// ModelVersion is the model file format this package reads.
const ModelVersion = 1

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
	KeepRulesAtoms bool         `json:"keep_rules_atoms"`
	Training       TrainingInfo `json:"training"`
}

// TrainingInfo records how a model was trained and what it reached on the
// QUEST queries it held out.
type TrainingInfo struct {
	// Split: a QUEST query is held out for evaluation when
	// HeldOut(query, EvalPercent) (FNV-1a of the query text).
	Split         string      `json:"split"`
	EvalPercent   int         `json:"eval_percent"`
	QuestFile     string      `json:"quest_file"`
	DebquestFile  string      `json:"debquest_file,omitempty"`
	QuestTrain    int         `json:"quest_train"`
	QuestHeldOut  int         `json:"quest_held_out"`
	DebquestTrain int         `json:"debquest_train"`
	Eval          EvalSummary `json:"eval"`       // the model on the held-out queries
	RulesEval     EvalSummary `json:"rules_eval"` // the rules on the same queries
}

// EvalSummary is the part of a Report a model file keeps.
type EvalSummary struct {
	All      Scores `json:"all"`
	Negation Scores `json:"negation"`
}

// Summary returns the report's overall and negation scores.
func (r Report) Summary() EvalSummary { return EvalSummary{All: r.Scores, Negation: r.Negation} }

// HeldOut reports whether a QUEST query belongs to the evaluation split:
// FNV-1a 64 of its text, modulo 100, below percent.
func HeldOut(query string, percent int) bool {
	h := fnv.New64a()
	io.WriteString(h, query)
	return int(h.Sum64()%100) < percent
}

// SplitHeldOut divides items into the training and the held-out part.
func SplitHeldOut(items []Gold, percent int) (train, heldOut []Gold) {
	for _, g := range items {
		if HeldOut(g.Query, percent) {
			heldOut = append(heldOut, g)
		} else {
			train = append(train, g)
		}
	}
	return train, heldOut
}

// TrainOptions tune Train.
type TrainOptions struct {
	Epochs         int     // classifier epochs (default 30)
	TaggerEpochs   int     // tagger epochs (default 12)
	MinCount       int     // classifier features seen in fewer items are dropped (default 2)
	RulesBelow     float64 // see Model.RulesBelow
	KeepRulesAtoms bool    // see Model.KeepRulesAtoms
}

// Train fits a model on gold items (QUEST's training part and DebQUEST
// train). It does not evaluate; see TrainingInfo.
func Train(items []Gold, opt TrainOptions) (*Model, error) {
	if len(items) == 0 {
		return nil, fmt.Errorf("decompose: no training items")
	}
	if opt.TaggerEpochs <= 0 {
		opt.TaggerEpochs = 12
	}
	if opt.MinCount <= 0 {
		opt.MinCount = 2
	}
	classes := boolexpr.Templates()
	classOf := map[string]int{}
	for i, t := range classes {
		classOf[t] = i
	}
	var exs []learn.Example
	var seqs []learn.Sequence
	for i, g := range items {
		c, ok := classOf[g.Template]
		if !ok {
			return nil, fmt.Errorf("decompose: training item %d (%q): unknown template %q", i, g.Query, g.Template)
		}
		p := prepare(g.Query)
		exs = append(exs, learn.Example{Features: templateFeatures(p), Class: c})
		if len(p.tokens) > 0 {
			seqs = append(seqs, learn.Sequence{Tokens: tokenFeatures(p, g.Template), Labels: alignLabels(p.tokens, g.Atoms, g.Expr)})
		}
	}
	cl, err := learn.TrainClassifier(classes, exs, learn.ClassifierOptions{Epochs: opt.Epochs, MinCount: opt.MinCount})
	if err != nil {
		return nil, fmt.Errorf("decompose: template classifier: %w", err)
	}
	tg, err := learn.TrainTagger(tagClasses(), seqs, opt.TaggerEpochs)
	if err != nil {
		return nil, fmt.Errorf("decompose: span tagger: %w", err)
	}
	return &Model{Version: ModelVersion, Template: cl, Tagger: tg, RulesBelow: opt.RulesBelow, KeepRulesAtoms: opt.KeepRulesAtoms}, nil
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
	probs := m.Template.Probabilities(templateFeatures(p))
	best := 0
	for c := range probs {
		if probs[c] > probs[best] {
			best = c
		}
	}
	tmpl, pt := m.Template.Classes[best], probs[best]
	// The tagger's certainty of a reading under a template's atom counts.
	tagConf := func(t string) float64 {
		pos, neg := templateCounts(t)
		if pos+neg == 0 {
			return 0
		}
		_, c, ok := m.Tagger.Tag(tokenFeatures(p, t), []int{pos, neg})
		if !ok {
			return 0
		}
		return c
	}
	fallback := func() Result {
		r := p.rules
		r.Source, r.Confidence = SourceRules, 0
		for c, t := range m.Template.Classes {
			if t == r.Template {
				r.Confidence = probs[c] * tagConf(t)
			}
		}
		return r
	}
	if len(p.tokens) == 0 || (tmpl != p.rules.Template && pt < m.RulesBelow) {
		return fallback()
	}
	if m.KeepRulesAtoms && p.rules.Template == tmpl {
		r := p.rules
		r.Source, r.Confidence = SourceModel, pt*tagConf(tmpl)
		return r
	}
	pos, neg := templateCounts(tmpl)
	labels, tconf, ok := m.Tagger.Tag(tokenFeatures(p, tmpl), []int{pos, neg})
	if !ok {
		return fallback()
	}
	atoms, ok := segmentAtoms(p.tokens, labels)
	if !ok {
		return fallback()
	}
	e, err := boolexpr.FromTemplate(tmpl, len(atoms))
	if err != nil {
		return fallback()
	}
	return Result{Template: tmpl, Expression: e, Atoms: atoms, Confidence: pt * tconf, Source: SourceModel}
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
	if got, want := strings.Join(m.Template.Classes, "|"), strings.Join(boolexpr.Templates(), "|"); got != want {
		return nil, fmt.Errorf("decompose: model classes %q, want the QUEST templates", got)
	}
	return &m, nil
}

// ReadModelBytes is ReadModel over a byte slice (the embedded model).
func ReadModelBytes(b []byte) (*Model, error) { return ReadModel(bytes.NewReader(b)) }
