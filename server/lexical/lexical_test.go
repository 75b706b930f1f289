package lexical

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// toy is a corpus small enough to score by hand: N = 3, lengths 2, 3, 4
// (avgdl = 3); "apple" has df 2, "cherry" df 2, "date" df 1.
func toy(t *testing.T) *Index {
	t.Helper()
	ix, err := Build(context.Background(), []Doc{
		{ExtID: "d1", Body: "Apple banana"},
		{ExtID: "d2", Title: "apples", Body: "apple cherry"},
		{ExtID: "d3", Body: "banana, cherries and the cherry; date"},
	}, DefaultParams(), 2)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestAnalyze(t *testing.T) {
	a := NewAnalyzer()
	got := a.Analyze("The Running dogs, running-free! Libraries' C++ 3D")
	want := []string{"run", "dog", "run", "free", "librari", "c", "3d"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Analyze = %q, want %q", got, want)
	}
}

// The expected values were computed by hand (a Python one-liner) from
// idf = ln(1 + (N-df+0.5)/(df+0.5)) and tf(k1+1)/(tf + k1(1-b+b·dl/avgdl)).
func TestBM25HandComputed(t *testing.T) {
	ix := toy(t)
	if ix.AvgDocLen() != 3 {
		t.Fatalf("avgdl = %v, want 3", ix.AvgDocLen())
	}
	a := NewAnalyzer()
	cases := []struct {
		query string
		want  map[string]float64
	}{
		{"apple", map[string]float64{"d1": 0.5016892671724145, "d2": 0.615866824528895}},
		{"apple cherry", map[string]float64{"d1": 0.5016892671724145, "d2": 1.0858704537746307, "d3": 0.5913952950774157}},
		{"cherry date", map[string]float64{"d2": 0.4700036292457356 * 1.9 / (1 + 0.9), "d3": 1.5139574637518116}},
		{"unknownword", map[string]float64{}},
	}
	for _, c := range cases {
		hits := ix.Search(ix.QueryVector(a, c.query), 0)
		got := map[string]float64{}
		for _, h := range hits {
			got[ix.DocID(h.Doc)] = h.Score
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.query, got, c.want)
			continue
		}
		for d, w := range c.want {
			if math.Abs(got[d]-w) > 1e-12 {
				t.Errorf("%q: %s = %.15f, want %.15f", c.query, d, got[d], w)
			}
		}
		for i := 1; i < len(hits); i++ {
			if !ix.Better(hits[i-1], hits[i]) {
				t.Errorf("%q: hits not in order: %v", c.query, hits)
			}
		}
	}
}

func TestTopKTiesAndHeap(t *testing.T) {
	docs := make([]Doc, 50)
	for i := range docs {
		docs[i] = Doc{ExtID: fmt.Sprintf("doc%02d", 49-i), Body: "same words here"}
	}
	ix, err := Build(context.Background(), docs, DefaultParams(), 3)
	if err != nil {
		t.Fatal(err)
	}
	hits := ix.Search(ix.QueryVector(NewAnalyzer(), "words"), 5)
	var got []string
	for _, h := range hits {
		got = append(got, ix.DocID(h.Doc))
	}
	want := []string{"doc00", "doc01", "doc02", "doc03", "doc04"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ties: got %v, want %v", got, want)
	}
}

func TestVectorOps(t *testing.T) {
	a := Vec{{1, 1}, {2, 2}, {4, 1}}
	b := Vec{{2, 3}, {3, 1}}
	cases := []struct {
		name string
		got  Vec
		want Vec
	}{
		{"add", Add(a, b), Vec{{1, 1}, {2, 5}, {3, 1}, {4, 1}}},
		{"sub", Sub(a, b), Vec{{1, 1}, {2, -1}, {3, -1}, {4, 1}}},
		{"max", Max(a, b), Vec{{1, 1}, {2, 3}, {3, 1}, {4, 1}}},
		{"scale", Scale(b, -2), Vec{{2, -6}, {3, -2}}},
		{"disentangle", Disentangle(b, a), Vec{{3, 1}}},
		{"sub-cancels", Sub(a, a), Vec{}},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestNegativeWeightsAndBoolean(t *testing.T) {
	ix := toy(t)
	a := NewAnalyzer()
	apple, cherry := ix.QueryVector(a, "apple"), ix.QueryVector(a, "cherry")
	// apple − cherry: d2 (apple twice, cherry once) drops below d1 by exactly
	// its cherry score; d3 has no positive term and is not returned at all.
	hits := ix.Search(Sub(apple, cherry), 0)
	if len(hits) != 2 || ix.DocID(hits[0].Doc) != "d1" || ix.DocID(hits[1].Doc) != "d2" ||
		math.Abs(hits[1].Score-(0.615866824528895-(1.0858704537746307-0.615866824528895))) > 1e-12 {
		t.Fatalf("apple − cherry: %v", hits)
	}
	all := ix.DocsWithAll(append(apple.Terms(), cherry.Terms()...))
	if !reflect.DeepEqual(all, []uint32{1}) {
		t.Fatalf("DocsWithAll = %v", all)
	}
	if any := ix.DocsWithAny(append(apple.Terms(), cherry.Terms()...)); !reflect.DeepEqual(any, []uint32{0, 1, 2}) {
		t.Fatalf("DocsWithAny = %v", any)
	}
	s := ix.ScoreDocs(Add(apple, cherry), []uint32{0, 1, 2})
	if math.Abs(s[1]-1.0858704537746307) > 1e-12 {
		t.Fatalf("ScoreDocs = %v", s)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	ix := toy(t)
	data, err := ix.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.docIDs, ix.docIDs) || !reflect.DeepEqual(back.docs, ix.docs) ||
		!reflect.DeepEqual(back.tfs, ix.tfs) || !reflect.DeepEqual(back.strs, ix.strs) || back.params != ix.params {
		t.Fatal("round trip changed the index")
	}
	for _, bad := range [][]byte{nil, []byte("nope"), data[:len(data)-3], append(append([]byte{}, data...), 7)} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%d bytes) accepted a broken index", len(bad))
		}
	}
}

// TestBuildMatchesAnalyzer: whatever the number of workers, the index
// holds exactly the postings the Analyzer gives document by document
// (each term's documents ascending, with their frequencies and lengths),
// its terms are numbered in lexicographic order, and the encoded bytes do
// not depend on the number of workers.
func TestBuildMatchesAnalyzer(t *testing.T) {
	words := []string{"apple", "Apples", "the", "banana", "cherry", "cherries", "running", "runs", "x1", "ZEBRA", "zebras", "and", "dog"}
	docs := make([]Doc, 40)
	for i := range docs {
		var body []string
		for j := range i%7 + 1 {
			body = append(body, words[(i*5+j*3)%len(words)])
		}
		docs[i] = Doc{ExtID: fmt.Sprintf("d%02d", i), Title: words[i%len(words)], Body: strings.Join(body, ", ")}
	}
	docs[3].Title, docs[3].Body = "", "the and" // only stop words: an empty document
	type posting struct{ doc, tf uint32 }
	want := map[string][]posting{}
	a := NewAnalyzer()
	for d, doc := range docs {
		counts := map[string]uint32{}
		for _, term := range append(a.Analyze(doc.Title), a.Analyze(doc.Body)...) {
			counts[term]++
		}
		for term, n := range counts {
			want[term] = append(want[term], posting{uint32(d), n})
		}
	}
	var encoded [][]byte
	for _, workers := range []int{1, 3, 8} {
		ix, err := Build(context.Background(), docs, DefaultParams(), workers)
		if err != nil {
			t.Fatal(err)
		}
		if ix.NumTerms() != len(want) {
			t.Fatalf("%d workers: %d terms, want %d", workers, ix.NumTerms(), len(want))
		}
		for id := range TermID(ix.NumTerms()) {
			term := ix.TermString(id)
			if id > 0 && ix.TermString(id-1) >= term {
				t.Fatalf("%d workers: terms not in lexicographic order: %q before %q", workers, ix.TermString(id-1), term)
			}
			ds, tfs := ix.Postings(id)
			var got []posting
			for i := range ds {
				got = append(got, posting{ds[i], tfs[i]})
			}
			if !reflect.DeepEqual(got, want[term]) {
				t.Errorf("%d workers: postings of %q = %v, want %v", workers, term, got, want[term])
			}
		}
		for d, doc := range docs {
			if n := len(a.Analyze(doc.Title)) + len(a.Analyze(doc.Body)); ix.DocLen(uint32(d)) != n {
				t.Errorf("%d workers: length of %s = %d, want %d", workers, doc.ExtID, ix.DocLen(uint32(d)), n)
			}
		}
		b, err := ix.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		encoded = append(encoded, b)
	}
	for i := 1; i < len(encoded); i++ {
		if !reflect.DeepEqual(encoded[0], encoded[i]) {
			t.Fatal("the encoded index depends on the number of workers")
		}
	}
}

// TestMatchAppendReusesBuffer: MatchAppend gives Match's hits after what
// dst held, in dst's array when it has room.
func TestMatchAppendReusesBuffer(t *testing.T) {
	ix, err := Build(context.Background(), []Doc{{ExtID: "a", Body: "red apple"}, {ExtID: "b", Body: "green apple pie"}, {ExtID: "c", Body: "plum"}}, DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	v := ix.QueryVector(NewAnalyzer(), "apple pie")
	want := ix.Match(v)
	if len(want) != 2 {
		t.Fatalf("Match: %v, want the two apple documents", want)
	}
	buf := make([]Hit, 1, 16)
	buf[0] = Hit{Doc: 99, Score: -1}
	got := ix.MatchAppend(buf, v)
	if &got[0] != &buf[0] || got[0] != (Hit{Doc: 99, Score: -1}) || !slices.Equal(got[1:], want) {
		t.Errorf("MatchAppend: %v (same array %v), want the kept hit then %v", got, &got[0] == &buf[0], want)
	}
}

// TestMatchSortedAppend: the document-order match returns MatchAppend's
// hits (the same floats) in ascending document order, including a vector
// with a negative weight (d3 matches only cherry, negatively: not a hit)
// and a repeated term.
func TestMatchSortedAppend(t *testing.T) {
	ix := toy(t)
	a := NewAnalyzer()
	apple, banana, cherry := ix.QueryVector(a, "apple"), ix.QueryVector(a, "banana"), ix.QueryVector(a, "cherry")
	for name, v := range map[string]Vec{
		"apple": apple, "apple+banana+cherry": Add(Add(apple, banana), cherry), "apple-cherry": Sub(apple, cherry),
		"banana twice": append(append(Vec{}, banana...), banana...),
	} {
		want := ix.MatchAppend(nil, v)
		sort.Slice(want, func(i, j int) bool { return want[i].Doc < want[j].Doc })
		got := ix.MatchSortedAppend([]Hit{{Doc: 99}}, v)
		if len(got) == 0 || got[0].Doc != 99 {
			t.Fatalf("%s: dst not appended to: %v", name, got)
		}
		if !reflect.DeepEqual(got[1:], want) {
			t.Errorf("%s: %v, MatchAppend %v", name, got[1:], want)
		}
	}
}
