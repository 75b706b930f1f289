package judging

import (
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

func TestContradiction(t *testing.T) {
	aNotB := boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))
	aOrB := boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1))
	at := func(labels ...string) []Attribution {
		var out []Attribution
		for i, l := range labels {
			out = append(out, Attribution{Atom: i, Satisfied: l})
		}
		return out
	}
	tests := []struct {
		name  string
		e     *boolexpr.Expr
		rel   int
		attrs []Attribution
		want  bool
	}{
		{"relevant, A holds, B excluded holds", aNotB, 3, at("yes", "yes"), true},
		{"relevant, A holds, B does not", aNotB, 3, at("yes", "no"), false},
		{"not relevant, all satisfied", aNotB, 0, at("yes", "no"), true},
		{"likely not relevant, B holds", aNotB, 1, at("yes", "yes"), false},
		{"unsure negated atom decides nothing", aNotB, 3, at("yes", "unsure"), false},
		{"unsure but decided by A", aNotB, 3, at("no", "unsure"), true},
		{"no labels", aNotB, 3, nil, false},
		{"or: one holds", aOrB, 2, at("no", "yes"), false},
		{"or: none holds", aOrB, 2, at("no", "no"), true},
		{"no expression", nil, 3, at("no", "no"), false},
	}
	for _, tc := range tests {
		if got := Contradiction(tc.e, 2, tc.rel, tc.attrs); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMajorityVote(t *testing.T) {
	v := func(f, m, n string) ValidationAnswer {
		return ValidationAnswer{Fluent: f, Meaning: m, Naturalness: n}
	}
	tests := []struct {
		name     string
		votes    []ValidationAnswer
		ok       bool
		want     [3]string
		accepted bool
	}{
		{"two votes wait", []ValidationAnswer{v("yes", "same", "yes"), v("yes", "same", "yes")}, false, [3]string{}, false},
		{"unanimous", []ValidationAnswer{v("yes", "same", "yes"), v("yes", "same", "yes"), v("yes", "same", "yes")}, true, [3]string{"yes", "same", "yes"}, true},
		{"majority", []ValidationAnswer{v("yes", "same", "maybe"), v("no", "same", "yes"), v("yes", "different", "maybe")}, true, [3]string{"yes", "same", "maybe"}, true},
		{"three-way split is conservative", []ValidationAnswer{v("yes", "same", "yes"), v("yes", "different", "maybe"), v("yes", "ambiguous", "no")}, true, [3]string{"yes", "different", "no"}, false},
		{"not fluent", []ValidationAnswer{v("no", "same", "yes"), v("no", "same", "yes"), v("yes", "same", "yes")}, true, [3]string{"no", "same", "yes"}, false},
	}
	for _, tc := range tests {
		got, ok := MajorityVote(tc.votes)
		if ok != tc.ok {
			t.Errorf("%s: ok=%v", tc.name, ok)
			continue
		}
		if !ok {
			continue
		}
		if [3]string{got.Fluent, got.Meaning, got.Naturalness} != tc.want || got.Accepted != tc.accepted {
			t.Errorf("%s: %+v, want %v accepted=%v", tc.name, got, tc.want, tc.accepted)
		}
	}
}

func TestDocumentView(t *testing.T) {
	d := store.Document{Body: "One. Two two. Three.", SentenceStarts: []int32{0, 5, 14}}
	v := DocumentViewOf(d)
	want := []string{"One.", "Two two.", "Three."}
	if len(v.Sentences) != 3 || v.Sentences[0] != want[0] || v.Sentences[1] != want[1] || v.Sentences[2] != want[2] {
		t.Errorf("sentences %q", v.Sentences)
	}
	if v := DocumentViewOf(store.Document{Body: "No offsets at all."}); len(v.Sentences) != 1 {
		t.Errorf("no offsets: %q", v.Sentences)
	}
	if v := DocumentViewOf(store.Document{Body: "abc", SentenceStarts: []int32{0, 99, 1}}); len(v.Sentences) != 2 {
		t.Errorf("bad offsets: %q", v.Sentences)
	}
}

func TestValidUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"123e4567-e89b-42d3-a456-426614174000": true,
		"123E4567-E89B-42D3-A456-426614174000": true,
		"123e4567e89b42d3a456426614174000":     false,
		"123e4567-e89b-42d3-a456-42661417400g": false,
		"":                                     false,
	} {
		if ValidUUID(s) != want {
			t.Errorf("ValidUUID(%q) != %v", s, want)
		}
	}
}
