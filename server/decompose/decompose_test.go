package decompose

import (
	"math"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
)

func TestDecompose(t *testing.T) {
	tests := []struct {
		query    string
		template string
		expr     string
		atoms    []string
	}{
		// Templated QUEST wording.
		{"Cetaceans that are also Prehistoric mammals excluding Miocene mammals", boolexpr.TemplateAndNot, "(A AND B) AND NOT C",
			[]string{"Cetaceans", "Prehistoric mammals", "Miocene mammals"}},
		{"Mammals that are also Cetaceans but not Miocene mammals", boolexpr.TemplateAndNot, "(A AND B) AND NOT C",
			[]string{"Mammals", "Cetaceans", "Miocene mammals"}},
		{"Flora of Kenya that are also both Flora of Papuasia and Flora of Malesia", boolexpr.TemplateAnd3, "A AND B AND C",
			[]string{"Flora of Kenya", "Flora of Papuasia", "Flora of Malesia"}},
		{"Neognathae that are also Fauna of Seychelles", boolexpr.TemplateAnd2, "A AND B",
			[]string{"Neognathae", "Fauna of Seychelles"}},
		{"Films set in Lebanon that are not Spy films", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Films set in Lebanon", "Spy films"}},
		{"Fauna of Masbate or Birds of Mindoro", boolexpr.TemplateOr2, "A OR B",
			[]string{"Fauna of Masbate", "Birds of Mindoro"}},
		{"Flora of Maryland", boolexpr.TemplateSingle, "A", []string{"Flora of Maryland"}},
		// Question wording and punctuation are dropped.
		{"what are some Novels by Ernst Jünger?", boolexpr.TemplateSingle, "A", []string{"Novels by Ernst Jünger"}},
		// Head sharing: later disjuncts borrow "Birds of", "Orchids of".
		{"Birds from Saint Lucia, Dominica, or Guadeloupe", boolexpr.TemplateOr3, "A OR B OR C",
			[]string{"Birds of Saint Lucia", "Birds of Dominica", "Birds of Guadeloupe"}},
		{"what are Flora of Morelos or of Tlaxcala", boolexpr.TemplateOr2, "A OR B",
			[]string{"Flora of Morelos", "Flora of Tlaxcala"}},
		// An adjective-only first disjunct borrows the second's tail.
		{"Dutch or Swiss war films", boolexpr.TemplateOr2, "A OR B", []string{"Dutch war films", "Swiss war films"}},
		// Negation markers.
		{"Fish of Bolivia but not of Brazil", boolexpr.TemplateNot, "A AND NOT B", []string{"Fish of Bolivia", "Fish of Brazil"}},
		{"Novels set in Vietnam but not about disasters", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Novels set in Vietnam", "Novels about disasters"}},
		{"Books from Iceland that aren't about Iceland", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Icelandic books", "Books about Iceland"}},
		{"Novels not set in the 1930s that are about poverty", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Novels about poverty", "Novels set in the 1930s"}},
		{"Non-war novels set in the 1810s", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Novels set in the 1810s", "War novels"}},
		{"software for email without a graphical interface", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Software for email", "Graphical interface software"}},
		{"birds of the Venezuelan Andes other than those of Colombia", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Birds of the Venezuelan Andes", "Birds of Colombia"}},
		{"what causes upper abdomen pain but is unrelated to liver issues", boolexpr.TemplateNot, "A AND NOT B",
			[]string{"Causes upper abdomen pain", "Liver issues"}},
		{"Trees of Peru except Trees of Bolivia", boolexpr.TemplateNot, "A AND NOT B", []string{"Trees of Peru", "Trees of Bolivia"}},
		// "non-fiction" is not a negation.
		{"non-fiction books about elections", boolexpr.TemplateSingle, "A", []string{"Non-fiction books about elections"}},
		// Compressed intersections.
		{"Crime novels set in the Middle Ages but not set in Italy", boolexpr.TemplateAndNot, "(A AND B) AND NOT C",
			[]string{"Crime novels", "Novels set in the Middle Ages", "Novels set in Italy"}},
		{"1974 books about the American Revolution", boolexpr.TemplateAnd2, "A AND B",
			[]string{"1974 books", "Books about the American Revolution"}},
		{"Horror films from Serbia", boolexpr.TemplateSingle, "A", []string{"Serbian horror films"}},
		{"Moths of Asia and Seychelles but not Mauritius", boolexpr.TemplateAndNot, "(A AND B) AND NOT C",
			[]string{"Moths of Asia", "Moths of Seychelles", "Moths of Mauritius"}},
		// Canonical category spellings.
		{"movies set in Buckinghamshire", boolexpr.TemplateSingle, "A", []string{"Films set in Buckinghamshire"}},
		{"Debut novels from 1957", boolexpr.TemplateSingle, "A", []string{"1957 debut novels"}},
		{"Fish found in Egypt", boolexpr.TemplateSingle, "A", []string{"Fish of Egypt"}},
		{"plants from Belarus", boolexpr.TemplateSingle, "A", []string{"Flora of Belarus"}},
		{"Plant species that are only found in Ghana", boolexpr.TemplateSingle, "A", []string{"Endemic flora of Ghana"}},
		{"Croatian Endemic Flora", boolexpr.TemplateSingle, "A", []string{"Endemic flora of Croatia"}},
		{"Ontario's Endemic fauna", boolexpr.TemplateSingle, "A", []string{"Endemic fauna of Ontario"}},
		{"Marlon James Novels", boolexpr.TemplateSingle, "A", []string{"Novels by Marlon James"}},
		{"Novels written by Val McDermid", boolexpr.TemplateSingle, "A", []string{"Novels by Val McDermid"}},
		{"buddy comedy films of the 1930's", boolexpr.TemplateSingle, "A", []string{"1930s buddy comedy films"}},
		{"Birds from 1961", boolexpr.TemplateSingle, "A", []string{"Birds described in 1961"}},
		{"Australian 1993 novels", boolexpr.TemplateSingle, "A", []string{"1993 Australian novels"}},
		{"Silent Romanian films", boolexpr.TemplateSingle, "A", []string{"Romanian silent films"}},
		{"Lost Indian films", boolexpr.TemplateSingle, "A", []string{"Lost Indian films"}},
		{"New American Library books", boolexpr.TemplateSingle, "A", []string{"New American Library books"}},
		{"Insects from the late Cretaceous period", boolexpr.TemplateSingle, "A", []string{"Late Cretaceous insects"}},
		{"Rosales genera of Europe", boolexpr.TemplateAnd2, "A AND B", []string{"Rosales genera", "Flora of Europe"}},
		{"Holarctic plants", boolexpr.TemplateSingle, "A", []string{"Holarctic flora"}},
		{"Plants Afghanistan and Israel have in common", boolexpr.TemplateAnd2, "A AND B",
			[]string{"Flora of Afghanistan", "Flora of Israel"}},
		// Repeated atoms collapse; a relative-clause adjective is a modifier.
		{"Flora or plants from the Gambia", boolexpr.TemplateSingle, "A", []string{"Flora of the Gambia"}},
		{"Adventure films that are dutch", boolexpr.TemplateSingle, "A", []string{"Dutch adventure films"}},
		// A bare head before a link conjunct is its head, not a conjunct.
		{"Fish that are from both Macaronesia and the Atlantic Ocean.", boolexpr.TemplateAnd2, "A AND B",
			[]string{"Fish of Macaronesia", "Fish of the Atlantic Ocean"}},
		// After a plain "and" a topic shares "Films about".
		{"Films about security and surveillance", boolexpr.TemplateAnd2, "A AND B",
			[]string{"Films about security", "Films about surveillance"}},
		// A clause-level negation wins over "without" inside a category.
		{"British sports films without speech that are not about Horse racing", boolexpr.TemplateAndNot, "(A AND B) AND NOT C",
			[]string{"British sports films", "Films without speech", "Films about Horse racing"}},
		// A year post-modifier folds into the first category.
		{"Teen drama films from the 1980s about abortion", boolexpr.TemplateAnd2, "A AND B",
			[]string{"1980s teen drama films", "Films about abortion"}},
		// Beyond QUEST: a disjunction of exclusions.
		{"Web browsers but not Firefox or Chromium", "", "A AND NOT (B OR C)",
			[]string{"Web browsers", "Firefox", "Chromium"}},
		// Beyond QUEST: four disjuncts fit no template.
		{"Ada or Pascal or Prolog or Lisp development tools", "", "A OR B OR C OR D",
			[]string{"Ada development tools", "Pascal development tools", "Prolog development tools", "Lisp development tools"}},
		// Degenerate input never panics and stays one atom.
		{"", boolexpr.TemplateSingle, "A", []string{""}},
		{"   ?  ", boolexpr.TemplateSingle, "A", []string{""}},
		{"not", boolexpr.TemplateSingle, "A", []string{"Not"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			r := Rules(tc.query)
			if r.Template != tc.template {
				t.Errorf("template = %q, want %q", r.Template, tc.template)
			}
			if got := r.Expression.String(); got != tc.expr {
				t.Errorf("expression = %s, want %s", got, tc.expr)
			}
			if strings.Join(r.Atoms, "|") != strings.Join(tc.atoms, "|") {
				t.Errorf("atoms = %q, want %q", r.Atoms, tc.atoms)
			}
			if err := r.Expression.Validate(len(r.Atoms)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestAtomF1(t *testing.T) {
	notExpr, _ := boolexpr.FromTemplate(boolexpr.TemplateNot, 2)
	andExpr, _ := boolexpr.FromTemplate(boolexpr.TemplateAnd2, 2)
	tests := []struct {
		name         string
		pred         []string
		predExpr     *boolexpr.Expr
		gold         []string
		goldExpr     *boolexpr.Expr
		exact, token float64
	}{
		{"identical, any order", []string{"Flora of Peru", "Trees"}, andExpr, []string{"trees", "Flora of  Peru."}, andExpr, 1, 1},
		// Stop words and plurals do not count; "plants" vs "flora" does.
		{"paraphrase", []string{"Plants from Peru"}, nil, []string{"Flora of Peru"}, nil, 0, 0.5},
		{"plural", []string{"Novel set in the 1930s"}, nil, []string{"Novels set in 1930s"}, nil, 0, 1},
		// Polarity must agree: the negated atom cannot match a positive one.
		{"polarity", []string{"A", "B"}, notExpr, []string{"B", "A"}, notExpr, 0, 0},
		// One of two gold atoms found: P = 1, R = 1/2.
		{"partial", []string{"Fish of Egypt"}, nil, []string{"Fish of Egypt", "Fish of Sudan"}, nil, 2.0 / 3, 2.0 / 3},
		{"empty", nil, nil, []string{"x"}, nil, 0, 0},
	}
	for _, tc := range tests {
		exact, token := AtomF1(tc.pred, tc.predExpr, tc.gold, tc.goldExpr)
		if math.Abs(exact-tc.exact) > 1e-9 || math.Abs(token-tc.token) > 1e-9 {
			t.Errorf("%s: AtomF1 = %.3f, %.3f; want %.3f, %.3f", tc.name, exact, token, tc.exact, tc.token)
		}
	}
}

func TestEvaluate(t *testing.T) {
	gold := func(q, orig, tmpl string) Gold { return questGold(t, q, orig, tmpl) }
	items := []Gold{
		gold("Fish of Bolivia but not of Brazil", "<mark>Fish of Bolivia</mark> that are not <mark>Fish of Brazil</mark>", boolexpr.TemplateNot),
		gold("Trees of Guerrero", "<mark>Trees of Guerrero</mark> or <mark>Trees of the State of Mexico</mark>", boolexpr.TemplateOr2),
	}
	rep := EvaluateWith(items, Rules)
	if rep.N != 2 || rep.TemplateCorrect != 1 || rep.TemplateAccuracy != 0.5 {
		t.Errorf("scores = %+v", rep.Scores)
	}
	// Query 1 exact 1; query 2 one of two atoms: F1 2/3.
	if want := (1 + 2.0/3) / 2; math.Abs(rep.ExactF1-want) > 1e-9 {
		t.Errorf("exact F1 = %v, want %v", rep.ExactF1, want)
	}
	if s := rep.PerTemplate[boolexpr.TemplateOr2]; s == nil || s.N != 1 || s.TemplateCorrect != 0 {
		t.Errorf("per template = %+v", s)
	}
	if rep.Confusion[boolexpr.TemplateOr2][boolexpr.TemplateSingle] != 1 {
		t.Errorf("confusion = %v", rep.Confusion)
	}
	var b strings.Builder
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"_ or _"`) || !strings.Contains(b.String(), "all") {
		t.Errorf("report:\n%s", b.String())
	}
}

func TestReadQuestErrors(t *testing.T) {
	for _, in := range []string{
		"{not json}\n",
		`{"query": "x", "original_query": "<mark>x</mark> or <mark>y</mark>", "metadata": {"template": "_"}}` + "\n",
		`{"query": "x", "original_query": "<mark>x", "metadata": {"template": "_"}}` + "\n",
	} {
		if _, err := ReadQuest(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ReadQuest(%q) err = %v, want a line-1 error", in, err)
		}
	}
}

func FuzzDecompose(f *testing.F) {
	for _, s := range []string{
		"Cetaceans that are also Prehistoric mammals excluding Miocene mammals",
		"Birds from Saint Lucia, Dominica, or Guadeloupe", "Non-war novels set in the 1810s",
		"not", "non-", "non", "or or or", "and, and", "that are also both and", "but not",
		"1990's", "a", "É non É", "either or", ", , ,", "Films from the", "Birds of 1961 from",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Decompose(s)
		if r.Expression == nil {
			t.Fatalf("nil expression for %q", s)
		}
		if err := r.Expression.Validate(len(r.Atoms)); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if len(r.Expression.AtomIndices()) != len(r.Atoms) {
			t.Fatalf("%q: %d atoms, expression uses %d", s, len(r.Atoms), len(r.Expression.AtomIndices()))
		}
		if r.Template != "" {
			if tmpl, ok := boolexpr.TemplateOf(r.Expression); !ok || tmpl != r.Template {
				t.Fatalf("%q: template %q does not match %s", s, r.Template, r.Expression)
			}
		}
	})
}
