package atoms

import (
	"fmt"
	"testing"

	"boolpool/server/boolexpr"
)

// TestInconsistenciesCraftedContradiction: relevant to A AND B but not
// relevant to A is flagged with its reason; so is a direct judgment the atom
// labels contradict; consistent judgments are not flagged.
func TestInconsistenciesCraftedContradiction(t *testing.T) {
	and, _ := boolexpr.FromTemplate(boolexpr.TemplateAnd2, 2)
	single, _ := boolexpr.FromTemplate(boolexpr.TemplateSingle, 1)
	or, _ := boolexpr.FromTemplate(boolexpr.TemplateOr2, 2)
	qs := []Query{
		{ID: "q1", Expr: and, Atoms: []string{"board games", "xlib programs"}},
		{ID: "q2", Expr: single, Atoms: []string{"board games"}},
		{ID: "q3", Expr: or, Atoms: []string{"board games", "editors"}},
		{ID: "q4", Expr: single, Atoms: []string{"editors"}},
	}
	texts := map[string]string{"q1": "board games that are also Xlib programs", "q2": "board games", "q3": "board games or editors", "q4": "editors"}
	atomTexts := map[string]string{"board games": "board games", "xlib programs": "Xlib programs", "editors": "editors"}
	l := Labels{}
	l.Set("xlib programs", "xboard", boolexpr.False) // contradicts q1 relevant for xboard
	direct := map[string]map[string]bool{
		"q1": {"xvier": true, "xboard": true},
		"q2": {"xvier": false, "chess": true}, // xvier: relevant to A∧B but not to A
		"q3": {"chess": true, "vim": true},    // consistent with q2
		"q4": {"vim": false},                  // vim relevant to A∨C, not C: fine (A may hold)
	}
	flags, err := Inconsistencies(qs, texts, atomTexts, l, direct)
	if err != nil {
		t.Fatal(err)
	}
	want := []Flag{
		{Doc: "xboard", Query: "q1", Reason: `judged relevant to "board games that are also Xlib programs" but its constraint judgments say not relevant ("board games" unjudged, "Xlib programs" no)`},
		{Doc: "xvier", Query: "q1", Other: "q2", Reason: `judged relevant to "board games that are also Xlib programs" but not relevant to "board games"`},
	}
	if fmt.Sprint(flags) != fmt.Sprint(want) {
		t.Fatalf("flags:\n got %+v\nwant %+v", flags, want)
	}
	// Adding "vim is not a board game" makes vim relevant to A∨C but to
	// neither A (by its label) nor C (judged): now a contradiction.
	l.Set("board games", "vim", boolexpr.False)
	flags, err = Inconsistencies(qs, texts, atomTexts, l, direct)
	if err != nil {
		t.Fatal(err)
	}
	if len(flags) != 3 || flags[0].Doc != "vim" || flags[0].Query != "q3" || flags[0].Other != "q4" ||
		flags[0].Reason != `judged relevant to "board games or editors" but not relevant to "editors"` {
		t.Fatalf("after the vim label: %+v", flags)
	}
}
