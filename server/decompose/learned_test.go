package decompose

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/decompose/learn"
)

// TestDecomposeShippedModelHeldOut re-evaluates the embedded
// model on the QUEST queries it held out of training (its recorded split)
// and checks the scores recorded in the model file, and that the split
// still divides QUEST train as recorded.
func TestDecomposeShippedModelHeldOut(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatalf("embedded model: %v", err)
	}
	items := readSharedQuest(t, "quest", "train")
	tr := m.Training
	train, held := SplitHeldOut(items, tr.EvalPercent)
	if len(train) != tr.QuestTrain || len(held) != tr.QuestHeldOut {
		t.Fatalf("split gives %d train / %d held out; the model recorded %d / %d", len(train), len(held), tr.QuestTrain, tr.QuestHeldOut)
	}
	inTrain := map[string]bool{}
	for _, g := range train {
		inTrain[g.Query] = true
	}
	perTemplate := map[string][2]int{}
	for _, g := range items {
		c := perTemplate[g.Template]
		c[0]++
		perTemplate[g.Template] = c
	}
	for _, g := range held {
		if inTrain[g.Query] {
			t.Fatalf("held-out query %q is also in the training part", g.Query)
		}
		c := perTemplate[g.Template]
		c[1]++
		perTemplate[g.Template] = c
	}
	// Stratified: every template is held out in its share of QUEST.
	for tmpl, c := range perTemplate {
		if want := math.Round(float64(c[0]) * float64(tr.EvalPercent) / 100); float64(c[1]) != want {
			t.Errorf("template %q: %d of %d held out, want %.0f", tmpl, c[1], c[0], want)
		}
	}
	rep := EvaluateWith(held, m.Decompose).Summary()
	rules := EvaluateWith(held, Rules).Summary()
	t.Logf("held-out QUEST (n=%d): model template %.3f, negation %.3f, atom count %.3f, token F1 %.3f; rules %.3f, %.3f, %.3f, %.3f",
		rep.All.N, rep.All.TemplateAccuracy, rep.Negation.TemplateAccuracy, rep.All.AtomCountAccuracy, rep.All.TokenF1,
		rules.All.TemplateAccuracy, rules.Negation.TemplateAccuracy, rules.All.AtomCountAccuracy, rules.All.TokenF1)
	same := func(name string, got, want Scores) {
		if got.N != want.N || got.TemplateCorrect != want.TemplateCorrect || got.AtomCountCorrect != want.AtomCountCorrect ||
			math.Abs(got.TokenF1-want.TokenF1) > 1e-9 || math.Abs(got.ExactF1-want.ExactF1) > 1e-9 {
			t.Errorf("%s: got %+v, model file records %+v", name, got, want)
		}
	}
	same("model", rep.All, tr.Eval.All)
	same("model negation", rep.Negation, tr.Eval.Negation)
	same("rules", rules.All, tr.RulesEval.All)
	if rep.All.N == 0 || rep.Negation.N == 0 {
		t.Errorf("empty evaluation: %+v", rep)
	}
}

// TestDecomposeModelRoundTrip: a model trained on a few items is written, read back
// and decomposes as before; Decompose always returns a valid expression
// whose template matches and a confidence in [0,1].
func TestDecomposeModelRoundTrip(t *testing.T) {
	gold := func(q, orig, tmpl string) Gold { return questGold(t, q, orig, tmpl) }
	items := []Gold{
		gold("Fish of Bolivia but not of Brazil", "<mark>Fish of Bolivia</mark> that are not <mark>Fish of Brazil</mark>", boolexpr.TemplateNot),
		gold("Birds of Peru or Chile", "<mark>Birds of Peru</mark> or <mark>Birds of Chile</mark>", boolexpr.TemplateOr2),
		gold("Trees of Guerrero", "<mark>Trees of Guerrero</mark>", boolexpr.TemplateSingle),
		gold("Novels set in Vietnam that are about disasters", "<mark>Novels set in Vietnam</mark> that are also <mark>Novels about disasters</mark>", boolexpr.TemplateAnd2),
	}
	for _, opt := range []TrainOptions{
		{Epochs: 20, MinCount: 1},
		// The shipped recipe: lexicon features, joint decoding, the rules
		// kept below 0.8.
		{Epochs: 20, MinCount: 1, Lexicon: true, JointWeight: 0.01, RulesBelow: 0.8, KeepRulesAtoms: true},
	} {
		t.Run(fmt.Sprintf("lexicon=%v,joint=%g", opt.Lexicon, opt.JointWeight), func(t *testing.T) {
			m, err := Train(items, opt)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteModel(&buf, m); err != nil {
				t.Fatal(err)
			}
			back, err := ReadModelBytes(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range append(items, Gold{Query: "Moths of Chad or Niger but not Mali"}, Gold{Query: ""}) {
				a, b := m.Decompose(g.Query), back.Decompose(g.Query)
				if a.Template != b.Template || strings.Join(a.Atoms, "|") != strings.Join(b.Atoms, "|") || math.Abs(a.Confidence-b.Confidence) > 1e-6 {
					t.Errorf("%q: before %+v, after round trip %+v", g.Query, a, b)
				}
				if err := b.Expression.Validate(len(b.Atoms)); err != nil {
					t.Errorf("%q: %v", g.Query, err)
				}
				if b.Template != "" {
					if tmpl, ok := boolexpr.TemplateOf(b.Expression); !ok || tmpl != b.Template {
						t.Errorf("%q: template %q does not match %s", g.Query, b.Template, b.Expression)
					}
				}
				if b.Confidence < 0 || b.Confidence > 1 || b.Source == "" {
					t.Errorf("%q: confidence %v, source %q", g.Query, b.Confidence, b.Source)
				}
			}
			// The four training queries are read as their gold templates.
			for _, g := range items {
				if r := back.Decompose(g.Query); r.Template != g.Template {
					t.Errorf("%q: template %q, want %q", g.Query, r.Template, g.Template)
				}
			}
		})
	}
	if _, err := ReadModelBytes([]byte("not gzip")); err == nil {
		t.Error("garbage read as a model")
	}
}

// TestDecomposeAlignLabels: the training target of the tagger for a query with a
// shared head and a negated atom.
func TestDecomposeAlignLabels(t *testing.T) {
	e, _ := boolexpr.FromTemplate(boolexpr.TemplateNot, 2)
	toks := tokenize(normalize("Fish of Bolivia but not of Brazil"))
	got := alignLabels(toks, []string{"Fish of Bolivia", "Fish of Brazil"}, e)
	// Fish of Bolivia | but not | of Brazil
	want := []int{labelBPos, labelIPos, labelIPos, labelO, labelO, labelBNeg, labelINeg}
	if len(got) != len(want) {
		t.Fatalf("tokens %q labels %v", toks, got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tokens %q: labels %v, want %v", toks, got, want)
		}
	}
	atoms, ok := segmentAtoms(toks, got)
	if !ok || strings.Join(atoms, "|") != "Fish of Bolivia|Fish of Brazil" {
		t.Errorf("segmentAtoms = %q, %v", atoms, ok)
	}
}

// benchQueries are 10,000 queries cycled from QUEST-style wording.
func benchQueries() []string {
	base := []string{
		"Cetaceans that are also Prehistoric mammals excluding Miocene mammals",
		"Birds from Saint Lucia, Dominica, or Guadeloupe", "Non-war novels set in the 1810s",
		"Historical films from the 1900s or Argentine films that are lost",
		"Novels set in Vietnam but not about disasters", "Parasitic plants of Utah",
		"1980s fantasy novels that are LGBT-related", "Films from Hong Kong about revenge and not about games",
		"Orchids of Argentina, French Guiana or Guyana", "Holocaust legal films that are about revenge.",
	}
	out := make([]string, 10000)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return out
}

// BenchmarkDecompose10k times decomposing 10,000 queries with the default
// (learned) decomposer and with the rules alone (the reference).
func BenchmarkDecompose10k(b *testing.B) {
	qs := benchQueries()
	for _, c := range []struct {
		name string
		f    func(string) Result
	}{{"model", Decompose}, {"rules", Rules}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, q := range qs {
					c.f(q)
				}
			}
		})
	}
}

// TestDecomposeStructureFeatures checks the classifier's piece-count
// features on a three-atom query: its connectives alone, the link words,
// the "and" and the distinct head nouns.
func TestDecomposeStructureFeatures(t *testing.T) {
	p := prepare("Flora of Pakistan that are both Flora of India and Flora of Southeast Asia")
	got := map[string]bool{}
	for _, f := range structureFeatures(p) {
		got[f] = true
	}
	for _, want := range []string{"conns=that are both and", "nlink=3", "nand=1", "nheads=1", "cb=both_and"} {
		if !got[want] {
			t.Errorf("structureFeatures lacks %q; got %v", want, structureFeatures(p))
		}
	}
}

// TestDecomposeEmissionsSameAsFeatures: the decoder's emissions, built from
// feature keys without strings, equal the tagger's emissions of the
// feature strings it was trained on, for every template.
func TestDecomposeEmissionsSameAsFeatures(t *testing.T) {
	m, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Films set in 1948 German but not west German", "Birds of Peru, Chile, or Bolivia", "x"} {
		p := prepare(q)
		for _, tmpl := range boolexpr.Templates() {
			want := m.Tagger.Emissions(tokenFeatures(p, tmpl))
			got := learn.AddEmissions(
				taggerEmissions(m.Tagger, len(p.tokens), func(emit func(int, []byte)) { eachBaseTokenKey(p, emit) }),
				taggerEmissions(m.Tagger, len(p.tokens), func(emit func(int, []byte)) { eachTemplateTokenKey(p, tmpl, emit) }))
			for i := range want {
				for l := range want[i] {
					if math.Abs(got[i][l]-want[i][l]) > 1e-9 {
						t.Fatalf("%q under %q: token %d label %d: %v, want %v", q, tmpl, i, l, got[i][l], want[i][l])
					}
				}
			}
		}
	}
}
