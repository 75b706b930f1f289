package cal

import (
	"context"
	"fmt"
	"math"
	"testing"

	"boolpool/server/lexical"
)

// denseFixture: ten documents whose words say nothing about the query
// ("gizmo"), two of them ("target-8", "target-9") with embeddings next to
// the query's; the others point elsewhere.
func denseFixture(t *testing.T, w float64) (*Features, [][]float32) {
	t.Helper()
	var docs []lexical.Doc
	var vecs [][]float32
	for i := range 10 {
		id := fmt.Sprintf("other-%d", i)
		v := []float32{0, 1, float32(i) / 10}
		if i >= 8 { // the last two: ties go to lower document numbers
			id = fmt.Sprintf("target-%d", i)
			v = []float32{1, 0.1 * float32(i-8), 0}
		}
		docs = append(docs, lexical.Doc{ExtID: id, Title: id, Body: fmt.Sprintf("word%d filler common", i)})
		vecs = append(vecs, v)
	}
	docs = append(docs, lexical.Doc{ExtID: "gizmo", Title: "gizmo", Body: "gizmo common"})
	vecs = append(vecs, []float32{0, 1, 1})
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := FromIndexWith(ix, FeatureOptions{Dense: vecs, DenseWeight: w})
	if err != nil {
		t.Fatal(err)
	}
	return f, vecs
}

// TestDenseBlock: each row is the lexical row scaled to norm √(1−w²)
// followed by the normalised embedding scaled to w, in columns above the
// vocabulary; the cosines are those of the embeddings.
func TestDenseBlock(t *testing.T) {
	const w = 0.6
	f, vecs := denseFixture(t, w)
	nt := f.ix.NumTerms()
	if f.Dim() != nt+3 || f.DenseDim() != 3 {
		t.Fatalf("dim %d dense %d, want %d and 3", f.Dim(), f.DenseDim(), nt+3)
	}
	for d := range f.NumDocs() {
		r := f.Row(uint32(d))
		var lex, dense float64
		for i, c := range r.Idx {
			x := float64(r.Val[i])
			if int(c) < nt {
				lex += x * x
			} else {
				dense += x * x
			}
		}
		if math.Abs(lex-(1-w*w)) > 1e-5 || math.Abs(dense-w*w) > 1e-5 {
			t.Fatalf("doc %d: lexical norm² %g dense %g, want %g and %g", d, lex, dense, 1-w*w, w*w)
		}
	}
	cos := make([]float64, f.NumDocs())
	if err := f.Cosines([]float32{2, 0, 0}, cos); err != nil {
		t.Fatal(err)
	}
	for d, v := range vecs {
		n := math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
		if want := float64(v[0]) / n; math.Abs(cos[d]-want) > 1e-6 {
			t.Fatalf("cos of doc %d %g, want %g", d, cos[d], want)
		}
	}
	if err := f.Cosines([]float32{1, 0}, cos); err == nil {
		t.Fatal("a 2-d query vector against a 3-d block: no error")
	}
	ix := f.ix
	if _, err := FromIndexWith(ix, FeatureOptions{Dense: vecs[:3], DenseWeight: w}); err == nil {
		t.Fatal("3 vectors for 11 documents: no error")
	}
	if _, err := FromIndexWith(ix, FeatureOptions{Dense: vecs, DenseWeight: 1}); err == nil {
		t.Fatal("dense weight 1: no error")
	}
}

// TestDenseFindsWhatWordsMiss: the query shares no word with its targets;
// with the query's embedding (pseudo-document's dense block and the cosine
// feature) the first round serves both targets first, while the lexical
// engine cannot tell them from the rest.
func TestDenseFindsWhatWordsMiss(t *testing.T) {
	f, _ := denseFixture(t, 0.5)
	opt := Options{Negatives: 4, QueryCosine: 1, Train: DefaultTrainOptions()}
	e := NewEngine(f, opt)
	q := []float32{1, 0.05, 0}
	got, err := e.NextBatch(context.Background(), Request{Query: "gizmo", QueryVec: q, Labels: map[string]bool{"gizmo": false}, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0][:6] != "target" || got[1][:6] != "target" {
		t.Fatalf("dense first batch %v, want both targets", got)
	}
	// A session learns from a judged target too.
	s := e.NewSessionVec("gizmo", q, nil)
	b, err := s.Next(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1 || b[0][:6] != "target" {
		t.Fatalf("session's first document %v, want a target", b)
	}
	// Lexical features only: the targets are not the first two.
	lex := NewEngine(FromIndex(f.ix), Options{Negatives: 4, Train: DefaultTrainOptions()})
	got, err = lex.NextBatch(context.Background(), Request{Query: "gizmo", Labels: map[string]bool{"gizmo": false}, Size: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 2 && got[0][:6] == "target" && got[1][:6] == "target" {
		t.Fatalf("lexical first batch %v: the fixture does not need the dense features", got)
	}
	if e.cosines(nil) != nil {
		t.Fatal("cosine feature without a query vector")
	}
}
