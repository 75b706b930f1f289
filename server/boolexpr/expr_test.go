package boolexpr

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// templateCases pins every QUEST template: its expression, printed form and
// truth table over the atoms (row = atom values as bits, atom 0 lowest).
var templateCases = []struct {
	template string
	n        int
	printed  string
	truth    []bool
}{
	{TemplateSingle, 1, "A", []bool{false, true}},
	{TemplateOr2, 2, "A OR B", []bool{false, true, true, true}},
	{TemplateOr3, 3, "A OR B OR C", []bool{false, true, true, true, true, true, true, true}},
	{TemplateAnd2, 2, "A AND B", []bool{false, false, false, true}},
	{TemplateAnd3, 3, "A AND B AND C", []bool{false, false, false, false, false, false, false, true}},
	{TemplateNot, 2, "A AND NOT B", []bool{false, true, false, false}},
	{TemplateAndNot, 3, "(A AND B) AND NOT C", []bool{false, false, false, true, false, false, false, false}},
}

func TestTemplates(t *testing.T) {
	if len(templateCases) != len(Templates()) {
		t.Fatalf("cases cover %d templates, Templates() has %d", len(templateCases), len(Templates()))
	}
	for _, tc := range templateCases {
		t.Run(tc.template, func(t *testing.T) {
			n, err := TemplateAtoms(tc.template)
			if err != nil || n != tc.n {
				t.Fatalf("TemplateAtoms = %d, %v; want %d", n, err, tc.n)
			}
			e, err := FromTemplate(tc.template, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Validate(tc.n); err != nil {
				t.Fatal(err)
			}
			if got := e.String(); got != tc.printed {
				t.Errorf("String = %q, want %q", got, tc.printed)
			}
			back, err := Parse(tc.printed)
			if err != nil {
				t.Fatal(err)
			}
			if !Equal(back, e) {
				t.Errorf("Parse(String) = %s, not the same tree", back)
			}
			if got, ok := TemplateOf(e); !ok || got != tc.template {
				t.Errorf("TemplateOf = %q, %v", got, ok)
			}
			for row, want := range tc.truth {
				vals := make([]bool, tc.n)
				for i := range vals {
					vals[i] = row&(1<<i) != 0
				}
				if got := e.EvalBool(vals); got != want {
					t.Errorf("EvalBool(%v) = %v, want %v", vals, got, want)
				}
			}
			if _, err := FromTemplate(tc.template, tc.n+1); err == nil {
				t.Error("FromTemplate accepted the wrong atom count")
			}
		})
	}
	if _, err := FromTemplate("_ xor _", 2); err == nil {
		t.Error("unknown template accepted")
	}
}

func TestTemplateOfNonTemplate(t *testing.T) {
	for _, e := range []*Expr{Or(Atom(1), Atom(0)), Not(Atom(0)), And(Atom(0), Not(Or(Atom(1), Atom(2))))} {
		if tmpl, ok := TemplateOf(e); ok {
			t.Errorf("TemplateOf(%s) = %q, want no template", e, tmpl)
		}
	}
}

// Eval over hand-made sets: docs named by the atoms they carry.
func TestEvalSets(t *testing.T) {
	universe := map[string]bool{"a": true, "b": true, "c": true, "ab": true, "ac": true, "bc": true, "abc": true, "none": true}
	sets := make([]map[string]bool, 3)
	for i := range sets {
		sets[i] = map[string]bool{}
		for id := range universe {
			if strings.ContainsRune(id, rune('a'+i)) && id != "none" {
				sets[i][id] = true
			}
		}
	}
	want := map[string][]string{
		TemplateSingle: {"a", "ab", "abc", "ac"},
		TemplateOr2:    {"a", "ab", "abc", "ac", "b", "bc"},
		TemplateOr3:    {"a", "ab", "abc", "ac", "b", "bc", "c"},
		TemplateAnd2:   {"ab", "abc"},
		TemplateAnd3:   {"abc"},
		TemplateNot:    {"a", "ac"},
		TemplateAndNot: {"ab"},
	}
	for _, tc := range templateCases {
		e, _ := FromTemplate(tc.template, tc.n)
		// nil universe: every template must work without it.
		got, err := e.Eval(sets[:tc.n], nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.template, err)
		}
		if k := keys(got); !reflect.DeepEqual(k, want[tc.template]) {
			t.Errorf("%s: Eval = %v, want %v", tc.template, k, want[tc.template])
		}
	}
	// A bare NOT needs the universe.
	if _, err := Not(Atom(0)).Eval(sets, nil); err == nil {
		t.Error("NOT without universe: no error")
	}
	got, err := Or(Atom(2), Not(Atom(0))).Eval(sets, universe)
	if err != nil {
		t.Fatal(err)
	}
	if k := keys(got); !reflect.DeepEqual(k, []string{"abc", "ac", "b", "bc", "c", "none"}) {
		t.Errorf("C OR NOT A = %v", k)
	}
	if _, err := Atom(3).Eval(sets, universe); err == nil {
		t.Error("out-of-range atom: no error")
	}
	// Explicit negatives: satisfy the positive part and carry the negated atom.
	e, _ := FromTemplate(TemplateAndNot, 3)
	neg, err := e.ExplicitNegatives(sets, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := keys(neg); !reflect.DeepEqual(k, []string{"abc"}) {
		t.Errorf("explicit negatives = %v, want [abc]", k)
	}
	e, _ = FromTemplate(TemplateOr2, 2)
	if neg, _ := e.ExplicitNegatives(sets, nil); len(neg) != 0 {
		t.Errorf("OR query has explicit negatives %v", keys(neg))
	}
}

func keys(s map[string]bool) []string {
	var out []string
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestNegationHelpers(t *testing.T) {
	tests := []struct {
		expr     string
		negated  []int
		positive string
	}{
		{"A", nil, "A"},
		{"A OR B", nil, "A OR B"},
		{"A AND NOT B", []int{1}, "A"},
		{"(A AND B) AND NOT C", []int{2}, "A AND B"},
		{"A AND NOT NOT B", []int{0}[:0], "A"},
		{"NOT A", []int{0}, ""},
	}
	for _, tc := range tests {
		e, err := Parse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		got := e.NegatedAtoms()
		if len(got) != len(tc.negated) || (len(got) > 0 && !reflect.DeepEqual(got, tc.negated)) {
			t.Errorf("%s: NegatedAtoms = %v, want %v", tc.expr, got, tc.negated)
		}
		pos := ""
		if p := e.Positive(); p != nil {
			pos = p.String()
		}
		if pos != tc.positive {
			t.Errorf("%s: Positive = %q, want %q", tc.expr, pos, tc.positive)
		}
	}
	e, _ := FromTemplate(TemplateAndNot, 3)
	if e.Negated(0) || e.Negated(1) || !e.Negated(2) {
		t.Error("Negated wrong for (A AND B) AND NOT C")
	}
	if !e.HasNot() {
		t.Error("HasNot false")
	}
	// Malformed trees never panic.
	bad := And(nil, &Expr{Op: OpNot})
	_ = bad.EvalBool([]bool{true})
	_ = bad.Eval3([]Truth{True})
	_ = bad.String()
	_ = bad.Positive()
	_ = bad.NegatedAtoms()
}

func TestEval3(t *testing.T) {
	const y, n, u = True, False, Unknown
	tests := []struct {
		expr string
		vals []Truth
		want Truth
	}{
		{"A AND B", []Truth{y, y}, y},
		{"A AND B", []Truth{y, u}, u},
		{"A AND B", []Truth{n, u}, n},
		{"A OR B", []Truth{u, y}, y},
		{"A OR B", []Truth{u, n}, u},
		{"A AND NOT B", []Truth{y, n}, y},
		{"A AND NOT B", []Truth{y, y}, n},
		{"A AND NOT B", []Truth{y, u}, u},
		{"(A AND B) AND NOT C", []Truth{y, y, n}, y},
		{"(A AND B) AND NOT C", []Truth{u, y, y}, n},
		{"A", nil, u},
	}
	for _, tc := range tests {
		e, err := Parse(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.Eval3(tc.vals); got != tc.want {
			t.Errorf("%s %v: Eval3 = %v, want %v", tc.expr, tc.vals, got, tc.want)
		}
	}
	e, _ := FromTemplate(TemplateNot, 2)
	if !e.Contradicts(true, []Truth{y, y}) {
		t.Error("relevant although the negated atom holds: not flagged")
	}
	if e.Contradicts(true, []Truth{y, u}) {
		t.Error("unsure label flagged as a contradiction")
	}
	if !e.Contradicts(false, []Truth{y, n}) {
		t.Error("not relevant although all constraints hold: not flagged")
	}
	for label, want := range map[string]Truth{"yes": y, "no": n, "unsure": u} {
		if got, err := TruthFromLabel(label); err != nil || got != want {
			t.Errorf("TruthFromLabel(%q) = %v, %v", label, got, err)
		}
	}
	if _, err := TruthFromLabel("maybe"); err == nil {
		t.Error("bad label accepted")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		e    *Expr
		n    int
		want string // substring of the error; "" = valid
	}{
		{"ok", And(Atom(0), Not(Atom(1))), 2, ""},
		{"range", Or(Atom(0), Atom(2)), 2, "out of range"},
		{"negative", Atom(-1), 2, "negative"},
		{"not arity", &Expr{Op: OpNot, Args: []*Expr{Atom(0), Atom(1)}}, 2, "want exactly 1"},
		{"and arity", And(Atom(0)), 2, "at least 2"},
		{"or arity", Or(), 2, "at least 2"},
		{"unknown op", &Expr{Op: "XOR"}, 2, "unknown operator"},
		{"atom args", &Expr{Op: OpAtom, Args: []*Expr{Atom(0)}}, 2, "ATOM node"},
		{"nil child", And(Atom(0), nil), 2, "nil node"},
		{"no range check", Atom(7), -1, ""},
	}
	for _, tc := range tests {
		err := tc.e.Validate(tc.n)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string // want "" = error
	}{
		{"A", "A"},
		{"a or b", ""},       // lower-case letters are not atoms
		{"A or B", "A OR B"}, // operators in any case
		{"A AND B OR C", "(A AND B) OR C"},
		{"A OR B AND C", "A OR (B AND C)"},
		{"NOT (A OR B)", "NOT (A OR B)"},
		{"NOT NOT A", "NOT NOT A"},
		{"((A))", "A"},
		{"A AND (B AND C)", "A AND (B AND C)"},
		{"#30 OR Z", "#30 OR Z"},
		{"", ""},
		{"A AND", ""},
		{"(A", ""},
		{"A)", ""},
		{"A B", ""},
		{"AB", ""},
		{"A & B", ""},
		{`"x" AND B`, ""},
		{strings.Repeat("(", 300) + "A" + strings.Repeat(")", 300), ""},
	}
	for _, tc := range tests {
		e, err := Parse(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) = %s, want error", tc.in, e)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := e.String(); got != tc.want {
			t.Errorf("Parse(%q) prints %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFormatRoundTrip(t *testing.T) {
	atoms := []string{"Mammals", "Cetaceans", `Films "quoted" (1999)`}
	e, _ := FromTemplate(TemplateAndNot, 3)
	s := e.Format(atoms)
	want := `("Mammals" AND "Cetaceans") AND NOT "Films \"quoted\" (1999)"`
	if s != want {
		t.Fatalf("Format = %s, want %s", s, want)
	}
	back, gotAtoms, err := ParseWithAtoms(s)
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(back, e) || !reflect.DeepEqual(gotAtoms, atoms) {
		t.Errorf("round trip: %s %q", back, gotAtoms)
	}
	// A repeated text is one atom.
	back, gotAtoms, err = ParseWithAtoms(`"x" AND NOT "y" OR "x"`)
	if err != nil || len(gotAtoms) != 2 || back.String() != "(A AND NOT B) OR A" {
		t.Errorf("repeated atom: %v %q %v", back, gotAtoms, err)
	}
	if _, _, err := ParseWithAtoms(`"x" AND B`); err == nil {
		t.Error("mixed letters and texts accepted")
	}
	if _, _, err := ParseWithAtoms(`A AND B`); err == nil {
		t.Error("letters accepted by ParseWithAtoms")
	}
}

func TestJSON(t *testing.T) {
	e, _ := FromTemplate(TemplateNot, 2)
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"op":"AND","atom":0,"args":[{"op":"ATOM","atom":0},{"op":"NOT","atom":0,"args":[{"op":"ATOM","atom":1}]}]}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
	back, err := ParseJSON(b, 2)
	if err != nil || !Equal(back, e) {
		t.Errorf("ParseJSON: %v %v", back, err)
	}
	if _, err := ParseJSON([]byte(`{"op":"NOT","args":[]}`), 2); err == nil {
		t.Error("invalid tree accepted")
	}
	if _, err := ParseJSON([]byte(`{"op":`), 2); err == nil {
		t.Error("bad JSON accepted")
	}
}

func TestParseMarked(t *testing.T) {
	tests := []struct {
		in    string
		text  string
		atoms []AtomSpan
		err   string
	}{
		{"<mark>Fish of Egypt</mark>", "Fish of Egypt", []AtomSpan{{"Fish of Egypt", Span{0, 13}}}, ""},
		{"<mark>A b</mark> that are not <mark>C</mark>", "A b that are not C",
			[]AtomSpan{{"A b", Span{0, 3}}, {"C", Span{17, 18}}}, ""},
		{"Über <mark>Flora of Málaga</mark>!", "Über Flora of Málaga!", []AtomSpan{{"Flora of Málaga", Span{6, 22}}}, ""},
		{"no marks", "no marks", nil, ""},
		{"<mark>open", "", nil, "unclosed"},
		{"x</mark>", "", nil, "without"},
		{"<mark>a<mark>b</mark></mark>", "", nil, "nested"},
		{"<mark> </mark>", "", nil, "empty"},
	}
	for _, tc := range tests {
		atoms, text, err := ParseMarked(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMarked(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseMarked(%q): %v", tc.in, err)
			continue
		}
		if text != tc.text || !reflect.DeepEqual(atoms, tc.atoms) {
			t.Errorf("ParseMarked(%q) = %q %+v, want %q %+v", tc.in, text, atoms, tc.text, tc.atoms)
		}
		for _, a := range atoms {
			if text[a.Start:a.End] != a.Text {
				t.Errorf("span %v of %q is %q, not %q", a.Span, text, text[a.Start:a.End], a.Text)
			}
		}
	}
}

func TestQueryFromQuest(t *testing.T) {
	orig := "<mark>Mammals</mark> that are also <mark>Cetaceans</mark> but not <mark>Miocene mammals</mark>"
	q, err := QueryFromQuest(orig, TemplateAndNot)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatal(err)
	}
	if q.Text != "Mammals that are also Cetaceans but not Miocene mammals" ||
		!reflect.DeepEqual(q.Atoms, []string{"Mammals", "Cetaceans", "Miocene mammals"}) ||
		q.Expr.String() != "(A AND B) AND NOT C" {
		t.Errorf("query = %+v", q)
	}
	if q.Marked() != orig {
		t.Errorf("Marked = %q", q.Marked())
	}
	if _, err := QueryFromQuest("<mark>a</mark> or <mark>b</mark>", TemplateOr3); err == nil {
		t.Error("mark count / template mismatch accepted")
	}
	q.Template = TemplateOr3
	if err := q.Validate(); err == nil {
		t.Error("wrong template accepted by Validate")
	}
	q.Template = TemplateAndNot
	q.Spans[0].End = 999
	if err := q.Validate(); err == nil {
		t.Error("span out of text accepted")
	}
	b, err := json.Marshal(&Query{Text: "x", Atoms: []string{"x"}, Expr: Atom(0)})
	if err != nil || string(b) != `{"text":"x","atoms":["x"],"expression":{"op":"ATOM","atom":0}}` {
		t.Errorf("Query JSON = %s %v", b, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"A", "(A AND B) AND NOT C", `"x" OR NOT ("y" AND "z")`, "NOT NOT #12", "((", `"\"`, "A AND OR B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		if err == nil {
			if err := e.Validate(-1); err != nil {
				t.Fatalf("Parse(%q) gave invalid tree: %v", s, err)
			}
			back, err := Parse(e.String())
			if err != nil || !Equal(back, e) {
				t.Fatalf("round trip of %q via %q: %v", s, e.String(), err)
			}
		}
		if e, atoms, err := ParseWithAtoms(s); err == nil {
			back, atoms2, err := ParseWithAtoms(e.Format(atoms))
			if err != nil || !Equal(back, e) || !reflect.DeepEqual(atoms, atoms2) {
				t.Fatalf("text round trip of %q: %v", s, err)
			}
		}
		_, _, _ = ParseMarked(s)
	})
}
