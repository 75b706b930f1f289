package scalebench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var testSource = Source{
	Sentences: []string{"The Andean condor is a large bird.", "It lives in the Andes.", "Coffee grows on the slopes of the mountains."},
	Lengths:   []int{1, 2, 3},
}

// TestGenerateDeterministic: the same size and seed give the same bytes, a
// different seed other bytes; every document is a QUEST line with its own
// title and sentences of the source's lengths.
func TestGenerateDeterministic(t *testing.T) {
	gen := func(n int, seed uint64) []byte {
		var b bytes.Buffer
		if err := Generate(&b, testSource, n, seed); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := gen(500, 15), gen(500, 15)
	if !bytes.Equal(a, b) {
		t.Fatal("two runs with one seed differ")
	}
	if bytes.Equal(a, gen(500, 16)) {
		t.Fatal("another seed gives the same corpus")
	}
	sc := bufio.NewScanner(bytes.NewReader(a))
	titles := map[string]bool{}
	synthetic := 0
	for sc.Scan() {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("line %d: %v", len(titles)+1, err)
		}
		if titles[d.Title] {
			t.Fatalf("title %q twice", d.Title)
		}
		titles[d.Title] = true
		if k := strings.Count(d.Text, "\n") + 1; k < 1 || k > 3 {
			t.Fatalf("%s: %d sentences, the source has 1-3", d.Title, k)
		}
		for _, w := range strings.Fields(d.Text) {
			if !strings.Contains(strings.Join(testSource.Sentences, " "), w) {
				synthetic++
			}
		}
	}
	if len(titles) != 500 || synthetic == 0 {
		t.Fatalf("%d documents, %d synthetic words", len(titles), synthetic)
	}
}

// TestSynthWordsDistinct: every vocabulary rank spells its own word, and
// the vocabulary grows with the corpus.
func TestSynthWordsDistinct(t *testing.T) {
	seen := map[string]uint64{}
	for r := range uint64(200_000) {
		w := synthWord(r)
		if old, dup := seen[w]; dup {
			t.Fatalf("ranks %d and %d both spell %q", old, r, w)
		}
		seen[w] = r
	}
	if a, b := VocabularySize(100_000), VocabularySize(1_000_000); !(a < b && b < 10*a) {
		t.Fatalf("vocabulary %d at 100k, %d at 1M: want sublinear growth", a, b)
	}
}

// TestColdSearchRow: the cold first dense search has its own row in the
// matrix and in the result rows, beside the (warm) latency rows, and no
// growth exponent (one search is no trend).
func TestColdSearchRow(t *testing.T) {
	pts := []point{
		{label: "a: 10 docs, 5 terms", n: 10, cost: map[string]float64{"cold_dense": 40, "p50 dense-vanilla": 2}},
		{label: "b: 100 docs, 50 terms", n: 100, cost: map[string]float64{"cold_dense": 400, "p50 dense-vanilla": 20}},
	}
	var b bytes.Buffer
	printMatrix(&b, pts)
	var cold, warm string
	for _, line := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "| first dense search after the build (cold"):
			cold = line
		case strings.HasPrefix(line, "| dense-vanilla latency p50"):
			warm = line
		}
	}
	if cold == "" || warm == "" {
		t.Fatalf("matrix lacks the cold or the warm row:\n%s", b.String())
	}
	if !strings.Contains(cold, "| 40 | 400 | |") {
		t.Errorf("cold row %q: want 40 and 400 ms and no exponent", cold)
	}
	if !strings.Contains(warm, "| 2 | 20 | 1.00 |") {
		t.Errorf("warm row %q: want 2 and 20 ms, growth 1.00", warm)
	}
	var found int
	for _, r := range growthRows(pts) {
		if strings.HasPrefix(r.Name, "first dense search after the build (cold") {
			found++
			if strings.Contains(r.Note, "growth") {
				t.Errorf("cold row %q has a growth note %q", r.Name, r.Note)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d cold rows, want one per size (2)", found)
	}
}
