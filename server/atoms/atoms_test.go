package atoms

import (
	"reflect"
	"testing"
)

func TestNormalise(t *testing.T) {
	for in, want := range map[string]string{
		"Films set in Paris":       "films set in paris",
		"  films  set\tin PARIS. ": "films set in paris",
		`"Mammals"`:                "mammals",
		"software written in C":    "software written in c",
	} {
		if got := Normalise(in); got != want {
			t.Errorf("Normalise(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentifySharesAtomsAcrossQueries(t *testing.T) {
	r, err := Identify([]QueryAtoms{
		{Query: "q1", Atoms: []string{"Films set in Paris", "Comedy films"}},
		{Query: "q2", Atoms: []string{"comedy  films", "1990s films"}},
		{Query: "q3", Atoms: []string{"Films set in Paris."}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Atoms()
	want := []Atom{
		{Key: "1990s films", Text: "1990s films", Uses: []Use{{"q2", 1}}},
		{Key: "comedy films", Text: "Comedy films", Uses: []Use{{"q1", 1}, {"q2", 0}}},
		{Key: "films set in paris", Text: "Films set in Paris", Uses: []Use{{"q1", 0}, {"q3", 0}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("atoms:\n got %+v\nwant %+v", got, want)
	}
	if _, err := Identify([]QueryAtoms{{Query: "q9", Atoms: []string{" . "}}}); err == nil {
		t.Fatal("an empty atom text was accepted")
	}
}

func TestMergeAndSplitAtoms(t *testing.T) {
	r, err := Identify([]QueryAtoms{
		{Query: "q1", Atoms: []string{"software written in C", "games"}},
		{Query: "q2", Atoms: []string{"C programs", "editors"}},
		{Query: "q3", Atoms: []string{"software written in C"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The normaliser missed a synonym: merge "c programs" into "software written in c".
	if err := r.Merge("software written in c", "c programs"); err != nil {
		t.Fatal(err)
	}
	a, ok := r.Atom("software written in c")
	if !ok || !reflect.DeepEqual(a.Uses, []Use{{"q1", 0}, {"q2", 0}, {"q3", 0}}) {
		t.Fatalf("after merge: %+v", a)
	}
	if _, ok := r.Atom("c programs"); ok {
		t.Fatal("merged atom still exists")
	}
	if k, _ := r.KeyOf(Use{"q2", 0}); k != "software written in c" {
		t.Fatalf("q2 atom 0 linked to %q", k)
	}
	// And it was wrong for q2 after all: split q2's use off again.
	nk := r.SplitKey("software written in c")
	if nk != "software written in c (2)" {
		t.Fatalf("split key %q", nk)
	}
	if err := r.Split("software written in c", []Use{{"q2", 0}}, nk, "C programs"); err != nil {
		t.Fatal(err)
	}
	a, _ = r.Atom("software written in c")
	b, _ := r.Atom(nk)
	if !reflect.DeepEqual(a.Uses, []Use{{"q1", 0}, {"q3", 0}}) || !reflect.DeepEqual(b.Uses, []Use{{"q2", 0}}) || b.Text != "C programs" {
		t.Fatalf("after split: %+v / %+v", a, b)
	}
	// Refusals.
	for name, err := range map[string]error{
		"merge into itself":   r.Merge("games", "games"),
		"merge unknown":       r.Merge("games", "nope"),
		"split all uses":      r.Split("games", []Use{{"q1", 1}}, "games (2)", "games"),
		"split a foreign use": r.Split("software written in c", []Use{{"q1", 1}}, "x", "x"),
		"split to taken key":  r.Split("software written in c", []Use{{"q1", 0}}, "games", "x"),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
