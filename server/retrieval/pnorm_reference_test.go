package retrieval

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"boolpool/server/lexical"
)

// pnormTermAtATime is pnorm as it was scored before the document-at-a-time
// merge (session 13): each atom's matches accumulated term by term
// (lexical.MatchAppend), the candidates numbered (lexical.Slots), a
// candidate × atom array of normalised scores, then the top k. It is the
// reference the merge must reproduce exactly.
// sc, when not nil, is reused as the old code reused its scratch.
func pnormTermAtATime(ix *lexical.Index, q Query, p float64, unique bool, k int, sc *taatScratch) []Result {
	if sc == nil {
		sc = &taatScratch{}
	}
	expr, atoms := q.Expression()
	vecs := atomVectors(ix, atoms, unique)
	for len(sc.matches) < len(vecs) {
		sc.matches = append(sc.matches, nil)
	}
	matches := sc.matches[:len(vecs)]
	cands := ix.Slots()
	defer cands.Release()
	for i, v := range vecs {
		matches[i] = ix.MatchAppend(matches[i][:0], v)
		if !expr.Negated(i) {
			for _, h := range matches[i] {
				cands.Add(h.Doc)
			}
		}
	}
	na := len(vecs)
	x := slices.Grow(sc.x[:0], cands.Len()*na)[:cands.Len()*na]
	clear(x)
	sc.x = x
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
	hits := slices.Grow(sc.hits[:0], cands.Len())[:cands.Len()]
	sc.hits = hits
	for c, d := range cands.Docs {
		hits[c] = lexical.Hit{Doc: d, Score: PNorm(expr, x[c*na:(c+1)*na], p)}
	}
	return hitsToResults(ix, ix.TopK(hits, k))
}

// taatScratch is pnormTermAtATime's reused memory.
type taatScratch struct {
	matches [][]lexical.Hit
	x       []float64
	hits    []lexical.Hit
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
				want := pnormTermAtATime(ix, q, pv, false, k, nil)
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
		want := pnormTermAtATime(ix, q, 2, false, 0, nil)
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

// BenchmarkPNormMerge times pnorm against the term-at-a-time reference
// (with its memory reused, as the old code reused it) on the DebQUEST
// corpus repeated BOOLPOOL_BENCH_COPIES times (default 1: 60k documents;
// 16 gives 1M, 64 about 3.9M). The copies share the corpus' terms, so each
// posting list is that many times longer and spread over the collection:
// the reference's collection-sized arrays stop fitting in the cache.
func BenchmarkPNormMerge(b *testing.B) {
	ix, qs := debquestCopies(b)
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
	sc := &taatScratch{}
	b.Run("term-at-a-time", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			pnormTermAtATime(ix, qs[i%len(qs)], 2, false, 1000, sc)
		}
	})
}

// debquestCopies is debquest with the corpus repeated
// BOOLPOOL_BENCH_COPIES times (each copy's ids suffixed).
func debquestCopies(b *testing.B) (*lexical.Index, []Query) {
	b.Helper()
	copies := 1
	if c := os.Getenv("BOOLPOOL_BENCH_COPIES"); c != "" {
		n, err := strconv.Atoi(c)
		if err != nil || n < 1 {
			b.Fatalf("BOOLPOOL_BENCH_COPIES=%q: want a positive integer", c)
		}
		copies = n
	}
	docs, qs := debquestDocs(b)
	all := make([]lexical.Doc, 0, len(docs)*copies)
	for c := range copies {
		for _, d := range docs {
			d.ExtID = fmt.Sprintf("%s#%d", d.ExtID, c)
			all = append(all, d)
		}
	}
	ix, err := lexical.Build(context.Background(), all, lexical.DefaultParams(), runtime.GOMAXPROCS(0))
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d documents", len(all))
	return ix, qs
}
