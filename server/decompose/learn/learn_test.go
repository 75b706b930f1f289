package learn

import (
	"encoding/json"
	"testing"
)

// TestDecomposeLearnClassifierToy: four examples, two classes decided by
// one cue feature each; the classifier must get all four right, be sure
// of them, and survive a JSON round trip.
func TestDecomposeLearnClassifierToy(t *testing.T) {
	data := []Example{
		{Features: []string{"w=or", "w=films"}, Class: 0},
		{Features: []string{"w=or", "w=birds"}, Class: 0},
		{Features: []string{"w=not", "w=films"}, Class: 1},
		{Features: []string{"w=not", "w=birds"}, Class: 1},
	}
	m, err := TrainClassifier([]string{"or", "not"}, data, ClassifierOptions{Epochs: 50})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Classifier
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, ex := range data {
		c, p := back.Predict(ex.Features)
		if c != ex.Class || p < 0.8 {
			t.Errorf("example %d: predicted %d with p=%.3f, want %d with p ≥ 0.8", i, c, p, ex.Class)
		}
	}
	// An unseen combination still follows the cue.
	if c, _ := back.Predict([]string{"w=not", "w=fish"}); c != 1 {
		t.Errorf("unseen 'not fish' → class %d, want 1", c)
	}
	if _, err := TrainClassifier([]string{"a", "b"}, []Example{{Class: 2}}, ClassifierOptions{}); err == nil {
		t.Error("class out of range accepted")
	}
}

// TestDecomposeLearnTaggerToyBIO: segments are the words between "or"s; the tagger
// must learn to label "or" O and start a segment after it, including on a
// sequence it has not seen, and honour demanded segment counts.
func TestDecomposeLearnTaggerToyBIO(t *testing.T) {
	const O, B, I = 0, 1, 2
	seq := func(words ...string) [][]string {
		out := make([][]string, len(words))
		for i, w := range words {
			prev := "<s>"
			if i > 0 {
				prev = words[i-1]
			}
			out[i] = []string{"w=" + w, "prev=" + prev}
		}
		return out
	}
	data := []Sequence{
		{Tokens: seq("red", "films", "or", "birds"), Labels: []int{B, I, O, B}},
		{Tokens: seq("birds", "or", "blue", "fish"), Labels: []int{B, O, B, I}},
		{Tokens: seq("fish", "or", "films", "or", "birds"), Labels: []int{B, O, B, O, B}},
		{Tokens: seq("red", "birds"), Labels: []int{B, I}},
	}
	tg, err := TrainTagger([]string{"atom"}, data, 20)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range data {
		got, conf, ok := tg.Tag(s.Tokens, nil)
		if !ok || !equalInts(got, s.Labels) {
			t.Errorf("training sequence %d: got %v, want %v", i, got, s.Labels)
		}
		if conf <= 0 || conf > 1 {
			t.Errorf("sequence %d: confidence %.3f outside (0,1]", i, conf)
		}
	}
	unseen := seq("blue", "films", "or", "red", "fish")
	if got, _, _ := tg.Tag(unseen, nil); !equalInts(got, []int{B, I, O, B, I}) {
		t.Errorf("unseen sequence: got %v, want [1 2 0 1 2]", got)
	}
	// Demanding one segment merges across "or" rather than splitting.
	got, _, ok := tg.Tag(seq("films", "or", "birds"), []int{1})
	if !ok || Counts(got, 1)[0] != 1 {
		t.Errorf("with counts [1]: got %v ok=%v, want exactly one segment", got, ok)
	}
	// The joint decoder compares scores under different counts: the
	// natural two segments of "films or birds" outscore the forced one.
	_, s2, _, ok2 := tg.TagScore(seq("films", "or", "birds"), []int{2})
	_, s1, _, ok1 := tg.TagScore(seq("films", "or", "birds"), []int{1})
	if !ok1 || !ok2 || s2 <= s1 {
		t.Errorf("TagScore: two segments %.3f (ok %v), one segment %.3f (ok %v); want two > one", s2, ok2, s1, ok1)
	}
	if _, _, ok := tg.Tag(seq("films"), []int{2}); ok {
		t.Error("two segments over one token reported ok")
	}
	if tg.LabelName(B) != "B-atom" || tg.LabelName(I) != "I-atom" || tg.LabelName(O) != "O" {
		t.Errorf("label names %q %q %q", tg.LabelName(O), tg.LabelName(B), tg.LabelName(I))
	}
	if _, err := TrainTagger([]string{"atom"}, []Sequence{{Tokens: seq("a"), Labels: []int{I}}}, 1); err == nil {
		t.Error("I without a preceding B accepted")
	}
}
