package retrieval

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
)

// fruitCorpus is built so that the right answers are known by construction.
func fruitCorpus(t *testing.T) *lexical.Index {
	t.Helper()
	docs := []lexical.Doc{
		{ExtID: "d1", Body: "red apple fruit"},
		{ExtID: "d2", Body: "green apple fruit"},
		{ExtID: "d3", Body: "red cherry fruit"},
		{ExtID: "d4", Body: "apple pie recipe"},
		{ExtID: "d5", Body: "banana fruit"},
		{ExtID: "d6", Body: "red red red"},
		{ExtID: "d7", Body: "red apple pie"},
		{ExtID: "d8", Body: "green apple pie"},
	}
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 2)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func ids(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.DocID
	}
	return out
}

func mustNew(t *testing.T, name string, params map[string]string, d Deps) Method {
	t.Helper()
	m, err := New(name, params, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func retrieve(t *testing.T, m Method, q Query) []Result {
	t.Helper()
	rs, err := m.Retrieve(context.Background(), q, 100)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(rs); i++ {
		if rs[i-1].Score < rs[i].Score || (rs[i-1].Score == rs[i].Score && rs[i-1].DocID > rs[i].DocID) {
			t.Fatalf("%s: results out of order: %v", m.Name(), rs)
		}
	}
	return rs
}

var notRed = Query{ID: "q1", Text: "apple fruit that are not red", Atoms: []string{"apple fruit", "red"},
	Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))}

func TestStrictBoolean(t *testing.T) {
	ix := fruitCorpus(t)
	d := Deps{Lexical: ix}
	all := map[string]string{"atom_match": "all"}
	cases := []struct {
		name   string
		params map[string]string
		q      Query
		want   []string
	}{
		{"and-not all", all, notRed, []string{"d2"}},
		// any: apple OR fruit, minus red.
		{"and-not any", map[string]string{"atom_match": "any"}, notRed, []string{"d2", "d8", "d5", "d4"}},
		// content with max_df 0.6 (4.8 of 8 documents): "fruit" (df 4) and
		// "apple" (df 5) — apple is too common to be required: fruit − red.
		{"and-not content", map[string]string{"atom_match": "content", "max_df": "0.6"}, notRed, []string{"d2", "d5"}},
		// every term too common: the rarest one ("fruit", df 4) is required.
		{"and-not content rarest", map[string]string{"atom_match": "content", "max_df": "0.1"}, notRed, []string{"d2", "d5"}},
		{"or", all, Query{ID: "q2", Text: "cherry or banana", Atoms: []string{"cherry", "banana"},
			Expr: boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1))}, []string{"d3", "d5"}},
		{"and", all, Query{ID: "q3", Text: "red and pie", Atoms: []string{"red", "pie"},
			Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1))}, []string{"d7"}},
		{"bare not", all, Query{ID: "q4", Text: "not fruit", Atoms: []string{"fruit"},
			Expr: boolexpr.Not(boolexpr.Atom(0))}, []string{"d4", "d6", "d7", "d8"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := retrieve(t, mustNew(t, "bm25-strict-boolean", c.params, d), c.q)
			got := ids(rs)
			if !sameSet(got, c.want) {
				t.Fatalf("got %v, want (as a set) %v", got, c.want)
			}
		})
	}
	// A NOT query never returns a document carrying the negated atom, in
	// particular not d6, which has only the negated atom's terms.
	for _, mode := range []string{"all", "any", "content"} {
		for _, r := range retrieve(t, mustNew(t, "bm25-strict-boolean", map[string]string{"atom_match": mode}, d), notRed) {
			if r.DocID == "d6" || r.DocID == "d1" || r.DocID == "d3" || r.DocID == "d7" {
				t.Errorf("%s: NOT red returned %s", mode, r.DocID)
			}
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

func TestBM25MethodMatchesIndex(t *testing.T) {
	ix := fruitCorpus(t)
	rs := retrieve(t, mustNew(t, "bm25", nil, Deps{Lexical: ix}), Query{ID: "q", Text: "red apples"})
	want := ix.Search(ix.QueryVector(lexical.NewAnalyzer(), "red apple"), 0)
	if len(rs) != len(want) {
		t.Fatalf("got %d results, want %d", len(rs), len(want))
	}
	for i := range rs {
		if rs[i].DocID != ix.DocID(want[i].Doc) || rs[i].Score != want[i].Score {
			t.Fatalf("rank %d: %v vs %v", i, rs[i], want[i])
		}
	}
	// d1 and d7 have both terms and the same length: a tie broken by id.
	if rs[0].DocID != "d1" || rs[1].DocID != "d7" || rs[0].Score != rs[1].Score {
		t.Fatalf("top two = %v", rs[:2])
	}
}

func TestPNormLimits(t *testing.T) {
	exprs := []*boolexpr.Expr{
		boolexpr.Atom(0),
		boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1)),
		boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Atom(2)),
		boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1)),
		boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Atom(2)),
		boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1))),
		boolexpr.And(boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1)), boolexpr.Not(boolexpr.Atom(2))),
	}
	for _, e := range exprs {
		// On 0/1 atom scores, p = ∞ is exactly the Boolean truth value, and
		// for any large p every satisfying assignment outranks every other.
		for _, p := range []float64{inf, 50} {
			var minTrue, maxFalse = 2.0, -1.0
			for mask := 0; mask < 8; mask++ {
				x := []float64{float64(mask & 1), float64(mask >> 1 & 1), float64(mask >> 2 & 1)}
				b := e.EvalBool([]bool{x[0] == 1, x[1] == 1, x[2] == 1})
				v := PNorm(e, x, p)
				if math.IsInf(p, 1) && v != map[bool]float64{true: 1, false: 0}[b] {
					t.Errorf("%s p=inf x=%v: %v, want %v", e, x, v, b)
				}
				if b {
					minTrue = math.Min(minTrue, v)
				} else {
					maxFalse = math.Max(maxFalse, v)
				}
			}
			if minTrue <= maxFalse {
				t.Errorf("%s p=%v: a non-satisfying assignment scores %v >= a satisfying one %v", e, p, maxFalse, minTrue)
			}
		}
		// Graded scores converge to the fuzzy min/max model as p grows.
		x := []float64{0.9, 0.3, 0.6}
		if d := math.Abs(PNorm(e, x, 2000) - PNorm(e, x, inf)); d > 1e-3 {
			t.Errorf("%s: p=2000 is %v away from p=inf", e, d)
		}
	}
	// p = 1 averages: AND and OR coincide.
	x := []float64{0.2, 0.8}
	a, o := PNorm(exprs[3], x, 1), PNorm(exprs[1], x, 1)
	if math.Abs(a-0.5) > 1e-12 || math.Abs(o-0.5) > 1e-12 {
		t.Errorf("p=1: AND %v OR %v, want 0.5", a, o)
	}
}

func TestPNormRanking(t *testing.T) {
	ix := fruitCorpus(t)
	for _, p := range []string{"1", "2", "inf"} {
		rs := retrieve(t, mustNew(t, "pnorm", map[string]string{"p": p}, Deps{Lexical: ix}), notRed)
		if rs[0].DocID != "d2" {
			t.Errorf("p=%s: top = %v, want d2 (the only apple fruit that is not red)", p, rs[0])
		}
		for _, r := range rs {
			if r.DocID == "d6" {
				t.Errorf("p=%s: returned d6, which matches only the negated atom", p)
			}
		}
	}
	// At p = inf the strict Boolean answers come first.
	rs := retrieve(t, mustNew(t, "pnorm", map[string]string{"p": "inf"}, Deps{Lexical: ix}), Query{ID: "q", Text: "red pie",
		Atoms: []string{"red", "pie"}, Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1))})
	if rs[0].DocID != "d7" || rs[1].Score != 0 {
		t.Errorf("red AND pie at p=inf: %v", rs)
	}
}

func TestSparseAlgebra(t *testing.T) {
	ix := fruitCorpus(t)
	a := lexical.NewAnalyzer()
	term := func(s string) lexical.TermID {
		id, ok := ix.Term(a.Analyze(s)[0])
		if !ok {
			t.Fatalf("no term %q", s)
		}
		return id
	}
	red, apple, fruit, pie := term("red"), term("apple"), term("fruit"), term("pie")
	// "red apple" AND NOT "red fruit": plain subtraction cancels "red", the
	// very term the positive part asks for; Disentangled Negation keeps it.
	q := Query{ID: "q", Text: "red apple not red fruit", Atoms: []string{"red apple", "red fruit"},
		Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))}
	vecs := atomVectors(ix, q.Atoms, false)
	plain := ComposeSparse(q.Expr, vecs, SparseOptions{NegWeight: 1})
	dis := ComposeSparse(q.Expr, vecs, SparseOptions{NegWeight: 1, Disentangled: true})
	if plain.Get(red) != 0 || plain.Get(fruit) >= 0 {
		t.Fatalf("plain = %v", plain)
	}
	if dis.Get(red) != ix.IDF(red) || dis.Get(apple) != ix.IDF(apple) || dis.Get(fruit) != -ix.IDF(fruit) {
		t.Fatalf("disentangled = %v", dis)
	}
	score := func(rs []Result, id string) float64 {
		for _, r := range rs {
			if r.DocID == id {
				return r.Score
			}
		}
		t.Fatalf("%s not retrieved: %v", id, rs)
		return 0
	}
	rsD := retrieve(t, mustNew(t, "sparse-disentangled-negation", nil, Deps{Lexical: ix}), q)
	rsP := retrieve(t, mustNew(t, "sparse-disentangled-negation", map[string]string{"negation": "plain"}, Deps{Lexical: ix}), q)
	// d7 "red apple pie" and d8 "green apple pie" differ only in "red".
	if rsD[0].DocID != "d7" || score(rsD, "d7") <= score(rsD, "d8") {
		t.Errorf("disentangled: %v", rsD)
	}
	if score(rsP, "d7") != score(rsP, "d8") {
		t.Errorf("plain: d7 %v != d8 %v", score(rsP, "d7"), score(rsP, "d8"))
	}

	// MaxPool union does not double-count a term both atoms share.
	or := Query{ID: "q", Text: "apple pie or apple", Atoms: []string{"apple pie", "apple"}, Expr: boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1))}
	ov := atomVectors(ix, or.Atoms, false)
	mx := ComposeSparse(or.Expr, ov, SparseOptions{MaxUnion: true})
	sm := ComposeSparse(or.Expr, ov, SparseOptions{})
	if mx.Get(apple) != ix.IDF(apple) || sm.Get(apple) != 2*ix.IDF(apple) || mx.Get(pie) != ix.IDF(pie) {
		t.Fatalf("max %v sum %v", mx, sm)
	}
	rsM := retrieve(t, mustNew(t, "sparse-maxpool-union", nil, Deps{Lexical: ix}), or)
	if !sameSet(ids(rsM), []string{"d1", "d2", "d4", "d7", "d8"}) {
		t.Errorf("maxpool union retrieved %v", ids(rsM))
	}

	// CPT adds sqrt(w_red·w_pie)·sqrt(wd_red·wd_pie) exactly to the documents
	// with both terms and nothing to the others.
	and := Query{ID: "q", Text: "red and pie", Atoms: []string{"red", "pie"}, Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1))}
	pts := CombinedPseudoTerms(and.Expr, atomVectors(ix, and.Atoms, false), SparseOptions{}, 5)
	if len(pts) != 1 || math.Abs(pts[0].Weight-math.Sqrt(ix.IDF(red)*ix.IDF(pie))) > 1e-12 {
		t.Fatalf("pseudo-terms %v", pts)
	}
	base := retrieve(t, mustNew(t, "sparse-cpt", map[string]string{"cpt_weight": "0"}, Deps{Lexical: ix}), and)
	cpt := retrieve(t, mustNew(t, "sparse-cpt", nil, Deps{Lexical: ix}), and)
	d7, _ := ix.DocNum("d7")
	extra := pts[0].Weight * math.Sqrt(ix.DocWeight(red, d7)*ix.DocWeight(pie, d7))
	for _, r := range base {
		want := r.Score
		if r.DocID == "d7" {
			want += extra
		}
		if math.Abs(score(cpt, r.DocID)-want) > 1e-12 {
			t.Errorf("cpt %s = %v, want %v", r.DocID, score(cpt, r.DocID), want)
		}
	}
	if cpt[0].DocID != "d7" {
		t.Errorf("cpt top = %v", cpt[0])
	}
}

func TestRRFHandComputed(t *testing.T) {
	runs := map[string]map[string][]Result{
		"a": {"q": {{"x", 9}, {"y", 8}, {"z", 7}}},
		"b": {"q": {{"y", 3}, {"w", 2}}},
	}
	m := mustNew(t, "rrf", map[string]string{"runs": "a,b"}, Deps{Runs: runs})
	rs := retrieve(t, m, Query{ID: "q"})
	want := []Result{{"y", 1.0/62 + 1.0/61}, {"x", 1.0 / 61}, {"w", 1.0 / 62}, {"z", 1.0 / 63}}
	if !reflect.DeepEqual(ids(rs), ids(want)) {
		t.Fatalf("order %v, want %v", ids(rs), ids(want))
	}
	for i := range want {
		if math.Abs(rs[i].Score-want[i].Score) > 1e-15 {
			t.Errorf("%s = %v, want %v", want[i].DocID, rs[i].Score, want[i].Score)
		}
	}
	// Tie: x and w both 1/61 with k=60 when w is first in b.
	runs["b"]["q"] = []Result{{"w", 1}}
	rs = retrieve(t, mustNew(t, "rrf", map[string]string{"runs": "a,b", "k": "60"}, Deps{Runs: runs}), Query{ID: "q"})
	if rs[0].DocID != "w" || rs[1].DocID != "x" || rs[0].Score != rs[1].Score {
		t.Errorf("tie not broken by id: %v", rs)
	}
}

func TestParamsAndRegistry(t *testing.T) {
	ix := fruitCorpus(t)
	if _, err := New("nope", nil, Deps{}); err == nil || !strings.Contains(err.Error(), "bm25") {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := New("bm25", map[string]string{"x": "1"}, Deps{Lexical: ix}); err == nil {
		t.Error("unknown parameter accepted")
	}
	if _, err := New("pnorm", map[string]string{"p": "0.5"}, Deps{Lexical: ix}); err == nil {
		t.Error("p < 1 accepted")
	}
	if _, err := New("dense-vanilla", nil, Deps{}); err == nil {
		t.Error("dense without encoder accepted")
	}
	if _, err := New("rrf", map[string]string{"runs": "a"}, Deps{}); err == nil {
		t.Error("rrf of one run accepted")
	}
	for _, s := range Specs() {
		if s.Summary == "" {
			t.Errorf("%s has no summary", s.Name)
		}
		for _, p := range s.Params {
			if p.Doc == "" {
				t.Errorf("%s.%s undocumented", s.Name, p.Name)
			}
		}
	}
}

func TestRunAllParallelDeterministic(t *testing.T) {
	ix := fruitCorpus(t)
	m := mustNew(t, "sparse-disentangled-negation", nil, Deps{Lexical: ix})
	var qs []Query
	for i := 0; i < 40; i++ {
		q := notRed
		q.ID = string(rune('A' + i))
		qs = append(qs, q)
	}
	var sb strings.Builder
	one, err := RunAll(context.Background(), m, qs, 10, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	many, err := RunAll(context.Background(), m, qs, 10, 4, &sb)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, many) {
		t.Fatal("parallel run differs from the sequential one")
	}
	if !strings.Contains(sb.String(), "40/40") {
		t.Errorf("progress output %q", sb.String())
	}
}

// TestQueryTermWeighting: qtf=count (the default, Anserini's bag of words)
// weighs the head word repeated in "… software or … software or …
// software" three times; qtf=unique once, in bm25 and in the ranking
// vector of bm25-strict-boolean alike.
func TestQueryTermWeighting(t *testing.T) {
	docs := []lexical.Doc{
		{ExtID: "generic", Body: "software software software tools"},
		{ExtID: "python", Body: "python web framework"},
		{ExtID: "java", Body: "java build software"},
		{ExtID: "f1", Body: "office software"},
		{ExtID: "f2", Body: "garden tools"},
		{ExtID: "f3", Body: "kitchen knives"},
		{ExtID: "f4", Body: "mountain bikes"},
	}
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	d := Deps{Lexical: ix}
	q := Query{ID: "q", Text: "python software or java software or rust software",
		Atoms: []string{"python software", "java software", "rust software"},
		Expr:  boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Atom(2))}
	score := func(rs []Result, doc string) float64 {
		for _, r := range rs {
			if r.DocID == doc {
				return r.Score
			}
		}
		t.Fatalf("%s not retrieved: %v", doc, rs)
		return 0
	}
	count := retrieve(t, mustNew(t, "bm25", nil, d), q)
	if explicit := retrieve(t, mustNew(t, "bm25", map[string]string{"qtf": "count"}, d), q); !reflect.DeepEqual(explicit, count) {
		t.Fatalf("default is not qtf=count: %v vs %v", count, explicit)
	}
	unique := retrieve(t, mustNew(t, "bm25", map[string]string{"qtf": "unique"}, d), q)
	if got, want := ids(count), []string{"java", "generic", "f1", "python"}; !reflect.DeepEqual(got, want) {
		t.Errorf("count: %v, want %v", got, want)
	}
	if got, want := ids(unique), []string{"java", "python", "generic", "f1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("unique: %v, want %v", got, want)
	}
	// generic matches "software" only: three times its unique score.
	if c, u := score(count, "generic"), score(unique, "generic"); math.Abs(c-3*u) > 1e-9 {
		t.Errorf("generic: count %v, unique %v", c, u)
	}
	// python matches "python" once either way.
	if c, u := score(count, "python"), score(unique, "python"); c != u {
		t.Errorf("python: count %v, unique %v", c, u)
	}
	any := map[string]string{"atom_match": "any"}
	strictCount := retrieve(t, mustNew(t, "bm25-strict-boolean", any, d), q)
	strictUnique := retrieve(t, mustNew(t, "bm25-strict-boolean", map[string]string{"atom_match": "any", "qtf": "unique"}, d), q)
	if !reflect.DeepEqual(ids(strictCount), ids(count)) || !reflect.DeepEqual(ids(strictUnique), ids(unique)) {
		t.Errorf("strict: count %v, unique %v", ids(strictCount), ids(strictUnique))
	}
	for _, m := range []string{"pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"} {
		mustNew(t, m, map[string]string{"qtf": "unique"}, d)
	}
	if _, err := New("bm25", map[string]string{"qtf": "twice"}, d); err == nil || !strings.Contains(err.Error(), `qtf="twice" must be one of count, unique`) {
		t.Errorf("bad qtf: %v", err)
	}
}

// TestPNormFastPowersAreExact: p = 1 and p = 2 (the default) skip
// math.Pow; the scores must be the very same float64s math.Pow gives, so
// rankings and ties do not move.
func TestPNormFastPowersAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for range 100_000 {
		x := rng.Float64()
		if rng.IntN(10) == 0 {
			x = math.Ldexp(x, -rng.IntN(60)) // small values too
		}
		for _, p := range []float64{1, 2} {
			if got, want := pow(x, p), math.Pow(x, p); got != want {
				t.Fatalf("pow(%v, %v) = %v, math.Pow gives %v", x, p, got, want)
			}
			if got, want := root(x, p), math.Pow(x, 1/p); got != want {
				t.Fatalf("root(%v, %v) = %v, math.Pow gives %v", x, p, got, want)
			}
		}
	}
}

// TestPNormAllocatesNothing: PNorm runs once per candidate (millions per
// query at MS MARCO size); operators of up to maxOperands operands are
// evaluated without a heap allocation, and a wider one still gives the
// average it defines.
func TestPNormAllocatesNothing(t *testing.T) {
	e := boolexpr.And(boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Atom(2)), boolexpr.Not(boolexpr.Atom(3)))
	x := []float64{0.9, 0.2, 0.5, 0.4}
	var v float64
	if n := testing.AllocsPerRun(100, func() { v = PNorm(e, x, 2) }); n != 0 {
		t.Errorf("PNorm allocates %v times per call, want 0", n)
	}
	or := math.Sqrt((0.81 + 0.04 + 0.25) / 3)
	want := 1 - math.Sqrt(((1-or)*(1-or)+0.16)/2)
	if math.Abs(v-want) > 1e-12 {
		t.Errorf("PNorm = %v, want %v", v, want)
	}
	// 20 operands (over maxOperands): OR at p = 1 is their mean.
	args := make([]*boolexpr.Expr, 20)
	xs := make([]float64, 20)
	var sum float64
	for i := range args {
		args[i], xs[i] = boolexpr.Atom(i), float64(i)/20
		sum += xs[i]
	}
	if got := PNorm(boolexpr.Or(args...), xs, 1); math.Abs(got-sum/20) > 1e-12 {
		t.Errorf("OR of 20 at p=1: %v, want %v", got, sum/20)
	}
}

// TestPNormScratchReuse: a pnorm method reuses its working memory across
// queries; a query after a larger one (more candidates and atoms) ranks
// exactly as on a fresh method.
func TestPNormScratchReuse(t *testing.T) {
	ix := fruitCorpus(t)
	big := Query{ID: "big", Text: "apple or pie or red", Expr: boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Atom(2)),
		Atoms: []string{"apple", "pie", "red"}}
	reused := mustNew(t, "pnorm", nil, Deps{Lexical: ix})
	retrieve(t, reused, big)
	got := retrieve(t, reused, notRed)
	want := retrieve(t, mustNew(t, "pnorm", nil, Deps{Lexical: ix}), notRed)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after a larger query: %v, fresh: %v", got, want)
	}
}
