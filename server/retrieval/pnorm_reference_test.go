package retrieval

import (
	"context"
	"math"
	"testing"

	"boolpool/server/lexical"
)

// pnormTermAtATime is pnorm as it was scored before the document-at-a-time
// merge (session 13): each atom's matches accumulated term by term
// (lexical.MatchAppend), the candidates numbered (lexical.Slots), a
// candidate × atom array of normalised scores, then the top k. It is the
// reference the merge must reproduce exactly.
func pnormTermAtATime(ix *lexical.Index, q Query, p float64, unique bool, k int) []Result {
	expr, atoms := q.Expression()
	vecs := atomVectors(ix, atoms, unique)
	matches := make([][]lexical.Hit, len(vecs))
	cands := ix.Slots()
	defer cands.Release()
	for i, v := range vecs {
		matches[i] = ix.MatchAppend(nil, v)
		if !expr.Negated(i) {
			for _, h := range matches[i] {
				cands.Add(h.Doc)
			}
		}
	}
	na := len(vecs)
	x := make([]float64, cands.Len()*na)
	for i, hits := range matches {
		best := 0.0
		for _, h := range hits {
			if h.Score > best {
				best = h.Score
			}
		}
		if best <= 0 {
			continue
		}
		for _, h := range hits {
			if c := cands.Of(h.Doc); c >= 0 {
				x[c*na+i] = h.Score / best
			}
		}
	}
	hits := make([]lexical.Hit, cands.Len())
	for c, d := range cands.Docs {
		hits[c] = lexical.Hit{Doc: d, Score: PNorm(expr, x[c*na:(c+1)*na], p)}
	}
	return hitsToResults(ix, ix.TopK(hits, k))
}

// TestPNormMatchesTermAtATime: on the DebQUEST corpus and every val query,
// pnorm's document-at-a-time merge returns exactly the reference's ranking
// and scores (same floats: each document's BM25 is summed in the same term
// order), for several p and depths, the whole list included.
func TestPNormMatchesTermAtATime(t *testing.T) {
	ix, qs := debquest(t)
	ctx := context.Background()
	for _, p := range []string{"1", "2", "3.5", "inf"} {
		m := mustNew(t, "pnorm", map[string]string{"p": p}, Deps{Lexical: ix})
		pv := m.(*pnormMethod).p
		for qi, q := range qs {
			if qi%7 != 0 && p != "2" {
				continue // every query at the default p, a sample at the others
			}
			for _, k := range []int{1000, 10} {
				got, err := m.Retrieve(ctx, q, k)
				if err != nil {
					t.Fatal(err)
				}
				want := pnormTermAtATime(ix, q, pv, false, k)
				if len(got) != len(want) {
					t.Fatalf("p %s %q k %d: %d results, the reference %d", p, q.Text, k, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("p %s %q k %d rank %d: %v, the reference %v", p, q.Text, k, i, got[i], want[i])
					}
				}
			}
		}
	}
	// The whole candidate list (k <= 0) on a few queries.
	m := mustNew(t, "pnorm", nil, Deps{Lexical: ix})
	for _, q := range qs[:5] {
		got, err := m.Retrieve(ctx, q, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := pnormTermAtATime(ix, q, 2, false, 0)
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%q all: %d results, the reference %d", q.Text, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] || math.IsNaN(got[i].Score) {
				t.Fatalf("%q all, rank %d: %v, the reference %v", q.Text, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkPNormMerge times pnorm against the term-at-a-time reference on
// the DebQUEST corpus (60k documents: both fit in the cache here; the
// reference's collection-sized arrays only cost cache misses at millions,
// see the scale suite's pnorm rows).
func BenchmarkPNormMerge(b *testing.B) {
	ix, qs := debquest(b)
	m, err := New("pnorm", nil, Deps{Lexical: ix})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("merge", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := m.Retrieve(context.Background(), qs[i%len(qs)], 1000); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("term-at-a-time", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			pnormTermAtATime(ix, qs[i%len(qs)], 2, false, 1000)
		}
	})
}
