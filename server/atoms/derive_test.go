package atoms

import (
	"fmt"
	"testing"

	"boolpool/server/boolexpr"
)

var truths = []boolexpr.Truth{boolexpr.False, boolexpr.True, boolexpr.Unknown}

// supervaluation is the reference three-valued semantics: True when every
// completion of the Unknown atoms makes e true, False when every one makes
// it false, Unknown otherwise. Kleene's Eval3 agrees with it on QUEST's
// templates because each atom occurs once.
func supervaluation(e *boolexpr.Expr, vals []boolexpr.Truth) boolexpr.Truth {
	var unknown []int
	for i, v := range vals {
		if v == boolexpr.Unknown {
			unknown = append(unknown, i)
		}
	}
	seenT, seenF := false, false
	for m := 0; m < 1<<len(unknown); m++ {
		b := make([]bool, len(vals))
		for i, v := range vals {
			b[i] = v == boolexpr.True
		}
		for j, i := range unknown {
			b[i] = m&(1<<j) != 0
		}
		if e.EvalBool(b) {
			seenT = true
		} else {
			seenF = true
		}
	}
	switch {
	case seenT && !seenF:
		return boolexpr.True
	case seenF && !seenT:
		return boolexpr.False
	}
	return boolexpr.Unknown
}

// TestDeriveEveryTemplateThreeValued derives a query's label over every
// QUEST template for every assignment of yes / no / unsure-or-unjudged to
// its atoms (unsure as an explicit Unknown label, unjudged as a missing
// one), against the supervaluation reference, open and closed world.
func TestDeriveEveryTemplateThreeValued(t *testing.T) {
	for _, tmpl := range boolexpr.Templates() {
		n, _ := boolexpr.TemplateAtoms(tmpl)
		e, err := boolexpr.FromTemplate(tmpl, n)
		if err != nil {
			t.Fatal(err)
		}
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("atom %d", i)
		}
		q := Query{ID: tmpl, Expr: e, Atoms: keys}
		counts := map[boolexpr.Truth]int{}
		rows := 1
		for i := 0; i < n; i++ {
			rows *= 4 // false, true, unsure, unjudged
		}
		for row := 0; row < rows; row++ {
			l := Labels{}
			vals := make([]boolexpr.Truth, n)
			closed := make([]boolexpr.Truth, n)
			r := row
			for i := 0; i < n; i++ {
				switch r % 4 {
				case 0, 1, 2:
					vals[i] = truths[r%4]
					closed[i] = vals[i]
					l.Set(keys[i], "d", vals[i])
				case 3: // unjudged: Unknown, or False in a closed world
					vals[i] = boolexpr.Unknown
					closed[i] = boolexpr.False
				}
				r /= 4
			}
			want := supervaluation(e, vals)
			if got := Derive(q, l, "d", false); got != want {
				t.Errorf("%q %v: Derive = %v, want %v", tmpl, vals, got, want)
			}
			if got, want := Derive(q, l, "d", true), supervaluation(e, closed); got != want {
				t.Errorf("%q %v closed world: Derive = %v, want %v", tmpl, closed, got, want)
			}
			counts[want]++
		}
		// Every template reaches all three values.
		if counts[boolexpr.True] == 0 || counts[boolexpr.False] == 0 || counts[boolexpr.Unknown] == 0 {
			t.Errorf("%q: outcome counts %v", tmpl, counts)
		}
	}
	// Spot checks with the reasoning spelled out.
	and, _ := boolexpr.FromTemplate(boolexpr.TemplateAnd2, 2)
	q := Query{ID: "q", Expr: and, Atoms: []string{"a", "b"}}
	l := Labels{}
	l.Set("a", "d", boolexpr.False) // A is false: A∧B is false whatever B is
	if got := Derive(q, l, "d", false); got != boolexpr.False {
		t.Errorf("A=no, B unjudged: %v, want false", got)
	}
	l.Set("a", "d", boolexpr.True) // A true, B unjudged: unknown
	if got := Derive(q, l, "d", false); got != boolexpr.Unknown {
		t.Errorf("A=yes, B unjudged: %v, want unknown", got)
	}
}

func TestDeriveQrelsMarksDerivedAndDirect(t *testing.T) {
	not, _ := boolexpr.FromTemplate(boolexpr.TemplateNot, 2) // A AND NOT B
	q := Query{ID: "q", Expr: not, Atoms: []string{"a", "b"}}
	l := Labels{}
	l.Set("a", "d1", boolexpr.True)
	l.Set("b", "d1", boolexpr.False) // derived true
	l.Set("a", "d2", boolexpr.True)
	l.Set("b", "d2", boolexpr.True) // derived false
	l.Set("a", "d3", boolexpr.True) // b unjudged: unknown
	l.Set("a", "d4", boolexpr.True)
	l.Set("b", "d4", boolexpr.False) // derived true, judged not relevant: conflict
	direct := map[string]bool{"d2": false, "d4": false, "d5": true}
	got, err := DeriveQrels(q, l, direct, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Qrel{
		{Query: "q", Doc: "d1", Label: boolexpr.True, Derived: boolexpr.True, Source: Derived},
		{Query: "q", Doc: "d2", Label: boolexpr.False, Derived: boolexpr.False, Source: Both},
		{Query: "q", Doc: "d3", Label: boolexpr.Unknown, Derived: boolexpr.Unknown, Source: Derived},
		{Query: "q", Doc: "d4", Label: boolexpr.False, Derived: boolexpr.True, Source: Direct, Conflict: true},
		{Query: "q", Doc: "d5", Label: boolexpr.True, Derived: boolexpr.Unknown, Source: Direct},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("qrels:\n got %+v\nwant %+v", got, want)
	}
	if _, err := DeriveQrels(Query{ID: "bad", Expr: not, Atoms: []string{"a"}}, l, nil, false); err == nil {
		t.Fatal("an expression with an atom index out of range was accepted")
	}
}
