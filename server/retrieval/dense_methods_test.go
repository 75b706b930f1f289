package retrieval

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/pgvector/pgvector-go"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// wordEncoder is a deterministic toy encoder: one dimension per vocabulary
// word, the L2-normalised word counts of the text.
type wordEncoder struct{ vocab []string }

func (w wordEncoder) Name() string { return "toy-words" }
func (w wordEncoder) Dim() int     { return len(w.vocab) }
func (w wordEncoder) Encode(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(w.vocab))
		for _, tok := range strings.Fields(strings.ToLower(t)) {
			for j, word := range w.vocab {
				if tok == word {
					v[j]++
				}
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

var toyEncoder = wordEncoder{vocab: []string{"red", "apple", "fruit", "green", "cherry", "banana", "pie"}}

var denseDocs = map[string]string{
	"d1": "red apple fruit",
	"d2": "green apple fruit",
	"d3": "red cherry fruit",
	"d4": "apple pie",
	"d5": "banana fruit",
	"d6": "red red red",
	"d7": "red apple pie",
	"d8": "green apple pie",
}

// denseFixture stores the toy corpus and its vectors in a fresh database
// and returns the pgvector-backed Dense.
func denseFixture(t *testing.T) *Dense {
	t.Helper()
	ctx := context.Background()
	st := storetest.New(t)
	p, err := st.EnsureProject(ctx, "toy")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for id, text := range denseDocs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Body: text}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var encID int
	if err := st.Pool().QueryRow(ctx, `INSERT INTO encoders (name, kind, model_hash, dim) VALUES ('toy-words', 'dense', 'x', $1) RETURNING id`,
		toyEncoder.Dim()).Scan(&encID); err != nil {
		t.Fatal(err)
	}
	for id, text := range denseDocs {
		v, _ := toyEncoder.Encode(ctx, []string{text})
		if _, err := st.Pool().Exec(ctx, `INSERT INTO embeddings (encoder_id, document_id, content_hash, embedding, project_id)
			SELECT $1, d.id, d.content_hash, $2, d.project_id FROM documents d WHERE d.project_id = $3 AND d.ext_id = $4`,
			encID, pgvector.NewVector(v[0]), p.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := st.EncoderByName(ctx, "toy-words")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.EnsureHNSW(ctx, p.ID, enc); err != nil {
		t.Fatal(err)
	}
	return &Dense{Encoder: toyEncoder, Vectors: &PgVectors{Store: st, ProjectID: p.ID, Encoder: enc}}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func cosine(a, b []float32) float64 {
	na, nb := math.Sqrt(dot(a, a)), math.Sqrt(dot(b, b))
	if na == 0 || nb == 0 {
		return 0
	}
	return dot(a, b) / (na * nb)
}

// bruteForce ranks the toy corpus by cosine to v.
func bruteForce(v []float32) []Result {
	var out []Result
	for id, text := range denseDocs {
		dv, _ := toyEncoder.Encode(context.Background(), []string{text})
		out = append(out, Result{DocID: id, Score: cosine(v, dv[0])})
	}
	return sortResults(out, 0)
}

func TestDenseVanillaMatchesBruteForce(t *testing.T) {
	d := denseFixture(t)
	rs := retrieve(t, mustNew(t, "dense-vanilla", nil, Deps{Dense: d}), Query{ID: "q", Text: "red apple"})
	qv, _ := toyEncoder.Encode(context.Background(), []string{"red apple"})
	want := bruteForce(qv[0])
	if len(rs) != len(want) {
		t.Fatalf("got %d results, want %d", len(rs), len(want))
	}
	for i := range want {
		if math.Abs(rs[i].Score-want[i].Score) > 1e-5 {
			t.Errorf("rank %d: %v, want %v", i, rs[i], want[i])
		}
	}
	if rs[0].DocID != "d7" && rs[0].DocID != "d1" {
		t.Errorf("top = %v", rs[0])
	}
}

func TestDenseAlgebra(t *testing.T) {
	ctx := context.Background()
	vecs, _ := toyEncoder.Encode(ctx, []string{"apple", "red", "fruit"})
	notRed := boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))
	// apple and red are orthogonal in this toy space: make A lean on red.
	lean, _ := toyEncoder.Encode(ctx, []string{"apple apple red", "red"})
	orth := ComposeDense(notRed, lean, AlgebraOptions{Orthogonal: true})
	if math.Abs(dot(orth, lean[1])) > 1e-6 {
		t.Errorf("orthogonal negation keeps %v of the negated direction", dot(orth, lean[1]))
	}
	if orth[1] != lean[0][1] {
		t.Errorf("orthogonal negation changed the apple coordinate: %v", orth)
	}
	nrf := ComposeDense(notRed, lean, AlgebraOptions{Lambda: 0.5})
	if math.Abs(float64(nrf[0])-(float64(lean[0][0])-0.5)) > 1e-6 {
		t.Errorf("nrf = %v", nrf)
	}
	or := boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1))
	mx := ComposeDense(or, vecs, AlgebraOptions{MaxUnion: true})
	sum := ComposeDense(or, vecs, AlgebraOptions{})
	if mx[0] != 1 || mx[1] != 1 || sum[0] != 1 || sum[1] != 1 {
		t.Errorf("max %v sum %v", mx, sum)
	}
	// Retrieval: "apple AND NOT red" with orthogonal negation ranks the
	// apple documents without red first and never the red-only d6 near the top.
	d := denseFixture(t)
	q := Query{ID: "q", Text: "apple not red", Atoms: []string{"apple apple red", "red"}, Expr: notRed}
	rs := retrieve(t, mustNew(t, "dense-algebra", nil, Deps{Dense: d}), q)
	top := map[string]bool{rs[0].DocID: true, rs[1].DocID: true}
	if !top["d4"] && !top["d2"] && !top["d8"] {
		t.Errorf("orthogonal negation top two %v", rs[:2])
	}
	if rs[len(rs)-1].DocID != "d6" {
		t.Errorf("d6 (red only) should rank last, got %v", rs)
	}
}

func TestDenseDecomposed(t *testing.T) {
	d := denseFixture(t)
	ctx := context.Background()
	// per_atom = 4: "fruit" retrieves d5 (banana fruit, cos .707) and the
	// three 3-word fruit documents (.577): d1, d2, d3.
	q := Query{ID: "q", Text: "fruit not red", Atoms: []string{"fruit", "red"},
		Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))}
	rs := retrieve(t, mustNew(t, "dense-decomposed", map[string]string{"per_atom": "4"}, Deps{Dense: d}), q)
	got := ids(rs)
	sort.Strings(got)
	// red's top 4: d6 (1.0), d1, d3, d7 (.577): removed from fruit's list.
	if strings.Join(got, ",") != "d2,d5" {
		t.Fatalf("fruit − red = %v", rs)
	}
	// Survivors keep fruit similarity minus their exact red similarity (0).
	for _, r := range rs {
		fv, _ := toyEncoder.Encode(ctx, []string{"fruit", denseDocs[r.DocID], "red"})
		want := cosine(fv[0], fv[1]) - cosine(fv[2], fv[1])
		if math.Abs(r.Score-want) > 1e-5 {
			t.Errorf("%s score %v, want %v", r.DocID, r.Score, want)
		}
	}
	// AND: intersection with summed scores; OR: union with max.
	and := Query{ID: "q", Text: "apple and pie", Atoms: []string{"apple", "pie"}, Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Atom(1))}
	rs = retrieve(t, mustNew(t, "dense-decomposed", map[string]string{"per_atom": "8"}, Deps{Dense: d}), and)
	for _, r := range rs {
		if !strings.Contains(denseDocs[r.DocID], "apple") && !strings.Contains(denseDocs[r.DocID], "pie") {
			continue
		}
		fv, _ := toyEncoder.Encode(ctx, []string{"apple", "pie", denseDocs[r.DocID]})
		want := cosine(fv[0], fv[2]) + cosine(fv[1], fv[2])
		if math.Abs(r.Score-want) > 1e-5 {
			t.Errorf("AND %s score %v, want %v", r.DocID, r.Score, want)
		}
	}
	if rs[0].DocID != "d4" {
		t.Errorf("apple AND pie top = %v", rs[0])
	}
	or := Query{ID: "q", Text: "cherry or banana", Atoms: []string{"cherry", "banana"}, Expr: boolexpr.Or(boolexpr.Atom(0), boolexpr.Atom(1))}
	rs = retrieve(t, mustNew(t, "dense-decomposed", map[string]string{"per_atom": "1"}, Deps{Dense: d}), or)
	if got := ids(rs); len(got) != 2 || got[0] != "d5" || got[1] != "d3" {
		t.Errorf("cherry OR banana = %v", rs)
	}
}

func TestMemoryVectorsMatchPgvector(t *testing.T) {
	d := denseFixture(t)
	ctx := context.Background()
	var ids []string
	var vecs [][]float32
	for id, text := range denseDocs {
		v, _ := toyEncoder.Encode(ctx, []string{text})
		ids = append(ids, id)
		vecs = append(vecs, v[0])
	}
	mem, err := NewMemoryVectors(ids, vecs)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"red apple", "fruit", "pie green"} {
		qv, _ := toyEncoder.Encode(ctx, []string{text})
		a, err := mem.Search(ctx, qv[0], 5)
		if err != nil {
			t.Fatal(err)
		}
		b, err := d.Vectors.Search(ctx, qv[0], 5)
		if err != nil {
			t.Fatal(err)
		}
		b = sortResults(b, 5)
		for i := range a {
			if a[i].DocID != b[i].DocID || math.Abs(a[i].Score-b[i].Score) > 1e-5 {
				t.Errorf("%q rank %d: memory %v, pgvector %v", text, i, a[i], b[i])
			}
		}
	}
}

// stringVectors hides PgVectors' store-id methods: dense-decomposed then
// takes its external-id path.
type stringVectors struct{ VectorIndex }

// TestDenseDecomposedByIDMatchesByExtID: dense-decomposed over pgvector by
// store ids (external ids read for the final results only) returns exactly
// what it returns by external ids, ties included — the toy corpus ties
// d1, d3 and d7 for "red" and has equal scores at most cut-offs — and
// SearchIDs keeps the documents Search keeps at every depth.
func TestDenseDecomposedByIDMatchesByExtID(t *testing.T) {
	d := denseFixture(t)
	ctx := context.Background()
	if _, ok := d.Vectors.(idVectors); !ok {
		t.Fatal("PgVectors does not search by store id")
	}
	byExt := &Dense{Encoder: d.Encoder, Vectors: stringVectors{d.Vectors}}
	a, b, n := boolexpr.Atom(0), boolexpr.Atom(1), boolexpr.Not
	queries := []Query{
		{ID: "and-not", Atoms: []string{"fruit", "red"}, Expr: boolexpr.And(a, n(b))},
		{ID: "and", Atoms: []string{"apple", "pie"}, Expr: boolexpr.And(a, b)},
		{ID: "or", Atoms: []string{"red", "green"}, Expr: boolexpr.Or(a, b)},
		{ID: "or-and-not", Atoms: []string{"apple", "cherry", "pie"}, Expr: boolexpr.And(boolexpr.Or(a, b), n(boolexpr.Atom(2)))},
		{ID: "not-or", Atoms: []string{"fruit", "red", "green"}, Expr: boolexpr.And(a, n(boolexpr.Or(b, boolexpr.Atom(2))))},
	}
	for _, q := range queries {
		q.Text = strings.Join(q.Atoms, " ")
		for perAtom := 1; perAtom <= len(denseDocs); perAtom++ {
			params := map[string]string{"per_atom": fmt.Sprint(perAtom)}
			for _, k := range []int{1, 2, 3, 10} {
				got := retrieveK(t, mustNew(t, "dense-decomposed", params, Deps{Dense: d}), q, k)
				want := retrieveK(t, mustNew(t, "dense-decomposed", params, Deps{Dense: byExt}), q, k)
				if len(got) != len(want) {
					t.Fatalf("%s per_atom %d k %d: by id %v, by external id %v", q.ID, perAtom, k, got, want)
				}
				for i := range got {
					if got[i].DocID != want[i].DocID || got[i].Score != want[i].Score {
						t.Fatalf("%s per_atom %d k %d rank %d: by id %v, by external id %v", q.ID, perAtom, k, i, got, want)
					}
				}
			}
		}
	}
	iv := d.Vectors.(idVectors)
	for _, text := range []string{"red", "fruit", "apple pie", "green"} {
		qv, _ := toyEncoder.Encode(ctx, []string{text})
		for k := 1; k <= len(denseDocs); k++ {
			ext, err := d.Vectors.Search(ctx, qv[0], k)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := iv.SearchIDs(ctx, qv[0], k)
			if err != nil {
				t.Fatal(err)
			}
			idList := make([]int64, len(ids))
			for i, r := range ids {
				idList[i] = r.ID
			}
			names, err := iv.ExtIDs(ctx, idList)
			if err != nil {
				t.Fatal(err)
			}
			var a, b []string
			for _, r := range ext {
				a = append(a, r.DocID)
			}
			for _, r := range ids {
				b = append(b, names[r.ID])
			}
			sort.Strings(a)
			sort.Strings(b)
			if strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("%q k %d: Search keeps %v, SearchIDs %v", text, k, a, b)
			}
		}
	}
}

// retrieveK is retrieve with k results.
func retrieveK(t *testing.T, m Method, q Query, k int) []Result {
	t.Helper()
	rs, err := m.Retrieve(context.Background(), q, k)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
