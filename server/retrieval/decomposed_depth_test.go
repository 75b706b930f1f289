package retrieval

import (
	"context"
	"fmt"
	"testing"

	"boolpool/server/boolexpr"
)

func TestAutoPerAtom(t *testing.T) {
	for size, want := range map[int]int{0: 1, 5: 1, 646: 64, 20000: 2000, 60535: 2000} {
		if got := AutoPerAtom(size); got != want {
			t.Errorf("AutoPerAtom(%d) = %d, want %d", size, got, want)
		}
	}
}

// TestDenseDecomposedSmallCorpus: with default parameters on a corpus
// smaller than 2000 documents, A AND NOT B is not empty (a fixed top-2000
// per atom took every document for B and removed them all).
func TestDenseDecomposedSmallCorpus(t *testing.T) {
	ctx := context.Background()
	var ids []string
	var texts []string
	for i := 0; i < 10; i++ {
		for _, d := range []struct{ prefix, text string }{
			{"a", "red apple"}, {"g", "green apple fruit"}, {"c", "red red cherry"}, {"b", "banana fruit"},
		} {
			ids = append(ids, fmt.Sprintf("%s%02d", d.prefix, i))
			texts = append(texts, d.text)
		}
	}
	vecs, err := toyEncoder.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := NewMemoryVectors(ids, vecs)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New("dense-decomposed", nil, Deps{Dense: &Dense{Encoder: toyEncoder, Vectors: mem}})
	if err != nil {
		t.Fatal(err)
	}
	q := Query{ID: "q", Text: "apple not red", Atoms: []string{"apple", "red"},
		Expr: boolexpr.And(boolexpr.Atom(0), boolexpr.Not(boolexpr.Atom(1)))}
	rs, err := m.Retrieve(ctx, q, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || len(rs) > AutoPerAtom(len(ids)) {
		t.Fatalf("apple AND NOT red on %d documents: %d results, want 1..%d", len(ids), len(rs), AutoPerAtom(len(ids)))
	}
	for _, r := range rs {
		if r.DocID[0] == 'c' {
			t.Errorf("a red cherry document survived NOT red: %v", rs)
		}
	}
	// An explicit per_atom is honoured: the whole corpus empties the NOT.
	all, err := New("dense-decomposed", map[string]string{"per_atom": "2000"}, Deps{Dense: &Dense{Encoder: toyEncoder, Vectors: mem}})
	if err != nil {
		t.Fatal(err)
	}
	if rs, _ := all.Retrieve(ctx, q, 100); len(rs) != 0 {
		t.Fatalf("per_atom=2000 on 40 documents: %d results", len(rs))
	}
	if _, err := New("dense-decomposed", map[string]string{"per_atom": "many"}, Deps{Dense: &Dense{Encoder: toyEncoder, Vectors: mem}}); err == nil {
		t.Fatal("per_atom=many accepted")
	}
}
