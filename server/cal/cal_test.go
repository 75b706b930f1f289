package cal

import (
	"context"
	"math"
	"slices"
	"testing"

	"boolpool/server/lexical"
)

// fixture: two topics (fruit, vehicles) and a filler document.
var fixtureDocs = []lexical.Doc{
	{ExtID: "apple", Title: "apple", Body: "sweet red apple fruit orchard"},
	{ExtID: "pear", Title: "pear", Body: "sweet green pear fruit orchard"},
	{ExtID: "plum", Title: "plum", Body: "sweet purple plum fruit tree"},
	{ExtID: "cherry", Title: "cherry", Body: "small red cherry fruit tree orchard"},
	{ExtID: "car", Title: "car", Body: "fast red car engine wheels"},
	{ExtID: "truck", Title: "truck", Body: "heavy truck engine wheels cargo"},
	{ExtID: "bus", Title: "bus", Body: "city bus engine wheels passengers"},
	{ExtID: "bike", Title: "bike", Body: "light bike wheels pedals"},
	{ExtID: "misc", Title: "misc", Body: "weather report for tomorrow"},
}

func fixture(t *testing.T) *Features {
	t.Helper()
	ix, err := lexical.Build(context.Background(), fixtureDocs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return FromIndex(ix)
}

// TestFeatures: (1 + ln tf)·ln(N/df), L2-normalised rows.
func TestFeatures(t *testing.T) {
	f := fixture(t)
	if f.NumDocs() != 9 {
		t.Fatalf("docs %d", f.NumDocs())
	}
	d, _ := f.DocNum("misc")
	row := f.Row(d)
	// misc, weather, report, tomorrow ("for" is a stop word): tf 1, df 1
	// each, so equal weights 1/2.
	if len(row.Idx) != 4 {
		t.Fatalf("misc has %d terms: %v", len(row.Idx), row.Idx)
	}
	for _, v := range row.Val {
		if math.Abs(float64(v)-0.5) > 1e-6 {
			t.Fatalf("misc weights %v, want all 1/2", row.Val)
		}
	}
	// apple: "apple" tf 2 (title + text) df 1; "red" df 3; "fruit" df 4.
	a, _ := f.DocNum("apple")
	ra := f.Row(a)
	w := map[string]float64{}
	for i, t := range ra.Idx {
		w[f.ix.TermString(lexical.TermID(t))] = float64(ra.Val[i])
	}
	ratio := w["appl"] / w["fruit"]
	want := (1 + math.Log(2)) * math.Log(9) / math.Log(9.0/4)
	if math.Abs(ratio-want) > 1e-4 {
		t.Fatalf("apple/fruit weight ratio %.4f, want %.4f (weights %v)", ratio, want, w)
	}
	var norm float64
	for _, v := range ra.Val {
		norm += float64(v) * float64(v)
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Fatalf("row norm² %.6f", norm)
	}
	if q := f.Vectorize("red fruit, and an unknownword"); len(q.Idx) != 2 {
		t.Fatalf("query vector %v", q)
	}
}

// TestTrainSeparates: trained on two fruits vs two vehicles, the model
// scores the held-out fruits above the held-out vehicles and the filler.
func TestTrainSeparates(t *testing.T) {
	f := fixture(t)
	row := func(id string) Vec { d, _ := f.DocNum(id); return f.Row(d) }
	m, err := Train(f.Dim(), []Vec{row("apple"), row("pear")}, []Vec{row("car"), row("truck")}, DefaultTrainOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, fruit := range []string{"plum", "cherry"} {
		for _, other := range []string{"bus", "bike", "misc"} {
			if m.Score(row(fruit)) <= m.Score(row(other)) {
				t.Errorf("%s %.3f <= %s %.3f", fruit, m.Score(row(fruit)), other, m.Score(row(other)))
			}
		}
	}
	// ScoreAll agrees with Score.
	all := make([]float64, f.NumDocs())
	m.ScoreAll(f, all)
	d, _ := f.DocNum("plum")
	if math.Abs(all[d]-m.Score(row("plum"))) > 1e-12 {
		t.Fatalf("ScoreAll %v vs Score %v", all[d], m.Score(row("plum")))
	}
	if _, err := Train(f.Dim(), nil, []Vec{row("car")}, DefaultTrainOptions()); err == nil {
		t.Fatal("training without positives must fail")
	}
}

// TestNextBatch: the query seeds the first round; judged documents are
// never served again; rounds are deterministic.
func TestNextBatch(t *testing.T) {
	f := fixture(t)
	e := NewEngine(f, Options{Negatives: 3, Train: DefaultTrainOptions()})
	ctx := context.Background()
	first, err := e.NextBatch(ctx, Request{Query: "sweet fruit from the orchard", Size: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range first {
		if !slices.Contains([]string{"apple", "pear", "plum", "cherry"}, d) {
			t.Fatalf("first batch %v holds a non-fruit", first)
		}
	}
	labels := map[string]bool{"apple": true, "pear": true, "car": false}
	r := Request{Query: "sweet fruit from the orchard", Labels: labels, Size: 2, Round: 1}
	b1, err := e.NextBatch(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := e.NextBatch(ctx, r)
	if !slices.Equal(b1, b2) {
		t.Fatalf("not deterministic: %v vs %v", b1, b2)
	}
	slices.Sort(b1)
	if !slices.Equal(b1, []string{"cherry", "plum"}) {
		t.Fatalf("second batch %v, want the two unjudged fruits", b1)
	}
	// No query, no relevant label: the prior ranking is served.
	p, err := e.NextBatch(ctx, Request{Labels: map[string]bool{"bus": false}, Prior: []string{"bus", "misc", "bike"}, Size: 2})
	if err != nil || !slices.Equal(p, []string{"misc", "bike"}) {
		t.Fatalf("prior batch %v %v", p, err)
	}
	if _, err := e.NextBatch(ctx, Request{Labels: map[string]bool{"nope": true}, Size: 1}); err == nil {
		t.Fatal("a label for an unknown document must fail")
	}
}

func TestNextBatchSize(t *testing.T) {
	var got []int
	b := 0
	for range 14 {
		b = NextBatchSize(b)
		got = append(got, b)
	}
	want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17}
	if !slices.Equal(got, want) {
		t.Fatalf("batch sizes %v, want %v", got, want)
	}
}

// TestSessionFindsAll: a review of the fruit topic finds all four fruits
// in the first four judgments.
func TestSessionFindsAll(t *testing.T) {
	f := fixture(t)
	e := NewEngine(f, Options{Negatives: 3, Train: DefaultTrainOptions()})
	s := e.NewSession("fruit", nil)
	fruit := map[string]bool{"apple": true, "pear": true, "plum": true, "cherry": true}
	for len(s.Judgments()) < 4 {
		b, err := s.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range b {
			if err := s.Judge(d, fruit[d]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, r := range s.Judgments()[:4] {
		if !r {
			t.Fatalf("judgment %d not relevant: %v", i+1, s.Judgments())
		}
	}
}

// TestNameKeys: words split at letter/digit boundaries, the family prefixes
// and the character n-grams of a package name.
func TestNameKeys(t *testing.T) {
	var keys []string
	nameKeys("XEmacs21-mule-canna", func(k string) { keys = append(keys, k) })
	for _, want := range []string{"p1:xemacs21", "p2:xemacs21-mule", "w:xemacs", "w:21", "w:mule", "w:canna", "c:^xe", "c:^xem", "c:nna$", "c:s21-"} {
		if !slices.Contains(keys, want) {
			t.Errorf("keys of XEmacs21-mule-canna lack %q: %v", want, keys)
		}
	}
	if slices.Contains(keys, "p2:xemacs21-mule-canna") {
		t.Errorf("p2 must be the first two parts only: %v", keys)
	}
}

// TestNameFeatures: with a name block, documents whose names share a part
// share features, and rows keep norm 1 with the block's share.
func TestNameFeatures(t *testing.T) {
	docs := []lexical.Doc{
		{ExtID: "fp-units-gfx", Title: "fp-units-gfx", Body: "graphics units"},
		{ExtID: "fp-units-net", Title: "fp-units-net", Body: "network units"},
		{ExtID: "vim", Title: "vim", Body: "editor"},
		{ExtID: "emacs", Title: "emacs", Body: "editor"},
	}
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FromIndexWith(ix, FeatureOptions{NameWeight: 0.6, NameBits: 12})
	if err != nil {
		t.Fatal(err)
	}
	if f.Dim() != ix.NumTerms()+1<<12 {
		t.Fatalf("dim %d", f.Dim())
	}
	a, b := f.Row(0), f.Row(1)
	var dot, textNorm, nameNorm float64
	bw := map[uint32]float32{}
	for i, c := range b.Idx {
		bw[c] = b.Val[i]
	}
	for i, c := range a.Idx {
		dot += float64(a.Val[i] * bw[c])
		if int(c) < ix.NumTerms() {
			textNorm += float64(a.Val[i] * a.Val[i])
		} else {
			nameNorm += float64(a.Val[i] * a.Val[i])
		}
	}
	if math.Abs(nameNorm-0.36) > 1e-5 || math.Abs(textNorm-0.64) > 1e-5 {
		t.Fatalf("block norms² %.4f (name) %.4f (text), want 0.36 and 0.64", nameNorm, textNorm)
	}
	if dot <= 0.1 {
		t.Fatalf("fp-units-gfx · fp-units-net = %.3f: the shared name parts must count", dot)
	}
	if !slices.IsSorted(a.Idx) {
		t.Fatalf("row columns not ascending: %v", a.Idx)
	}
}

// TestPseudoDocs: with QueryParts, the negated part is dropped and each
// alternative is a pseudo-document of its own.
func TestPseudoDocs(t *testing.T) {
	f := fixture(t)
	e := NewEngine(f, Options{QueryParts: true, Negatives: 3, Train: DefaultTrainOptions()})
	p := e.pseudoDocs("red fruit or fast car that are not heavy trucks", nil)
	if len(p) != 2 {
		t.Fatalf("%d pseudo-documents, want 2", len(p))
	}
	truck, _ := f.ix.Term("truck")
	for _, v := range p {
		if slices.Contains(v.Idx, uint32(truck)) {
			t.Fatalf("negated term kept: %v", v)
		}
	}
	whole := NewEngine(f, Options{Negatives: 3, Train: DefaultTrainOptions()}).pseudoDocs("red fruit or fast car that are not heavy trucks", nil)
	if len(whole) != 1 || !slices.Contains(whole[0].Idx, uint32(truck)) {
		t.Fatalf("without QueryParts the whole text is one pseudo-document: %v", whole)
	}
}

// TestPriorFeature: the prior ranking as a feature lifts a document the
// runs rank high although its text shares nothing with the relevant ones.
func TestPriorFeature(t *testing.T) {
	f := fixture(t)
	ctx := context.Background()
	labels := map[string]bool{"apple": true, "pear": true, "car": false, "truck": false}
	prior := []string{"apple", "pear", "bike"}
	rank := func(w float64) int {
		e := NewEngine(f, Options{Negatives: 0, PriorWeight: w, PriorDepth: 1, Train: DefaultTrainOptions()})
		b, err := e.NextBatch(ctx, Request{Query: "sweet fruit", Labels: labels, Prior: prior, Size: 5, Round: 1})
		if err != nil {
			t.Fatal(err)
		}
		return slices.Index(b, "bike")
	}
	without, with := rank(0), rank(1)
	if with >= without {
		t.Fatalf("bike at %d with the prior feature, %d without: the prior must lift it", with, without)
	}
}
