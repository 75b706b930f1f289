package decompose

import (
	"context"
	"strings"
	"testing"
	"time"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestSpanFinder: atoms are found case-insensitively, each after the one
// before when it occurs there, else from the start; a rewritten atom gets
// an empty span.
func TestSpanFinder(t *testing.T) {
	f := newSpanFinder("Cats and dogs, not cats")
	for _, tt := range []struct {
		atom       string
		start, end int
	}{{"cats", 0, 4}, {"Dogs", 9, 13}, {"CATS", 19, 23}, {"and", 5, 8}, {"horses", 0, 0}} {
		a := f.find(tt.atom)
		if a.Text != tt.atom || a.Start != tt.start || a.End != tt.end {
			t.Errorf("find(%q) = %+v, want %d..%d", tt.atom, a, tt.start, tt.end)
		}
	}
}

// TestUpdateForLinear: locating 26 atoms in a 200,000-word text lowers
// the text once: milliseconds (before, once per atom: quadratic when the
// atoms grow with the text, 38 s at 200,000 words).
func TestUpdateForLinear(t *testing.T) {
	words := make([]string, 200000)
	for i := range words {
		words[i] = "Word" + string(rune('a'+i%26))
	}
	text := strings.Join(words, " ")
	var atoms []string
	for i := 0; i < MaxAtoms; i++ {
		atoms = append(atoms, "word"+string(rune('a'+i)))
	}
	q := store.Query{Text: text}
	start := time.Now()
	for range 20 {
		f := newSpanFinder(q.Text)
		for _, a := range atoms {
			if s := f.find(a); s.End == 0 {
				t.Fatalf("atom %q not found", a)
			}
		}
	}
	if took := time.Since(start) / 20; took > time.Second {
		t.Fatalf("26 atoms in 200,000 words took %v", took)
	}
}

// TestLongQueryNotDecomposed: a stored query over the caps fails with a
// reason naming the cap, at once, and the others are decomposed; a
// cancelled context stops the run.
func TestLongQueryNotDecomposed(t *testing.T) {
	if reason := CheckQuery(strings.Repeat("a ", MaxQueryWords)); reason != "" {
		t.Fatalf("a query of %d words refused: %s", MaxQueryWords, reason)
	}
	ctx := context.Background()
	st, p := storetest.NewProject(t, "long")
	long := strings.Repeat("cats, dogs or birds but not fish ", 200000/7)
	storetest.Queries(t, st, p.ID, []store.QueryIn{{ExtID: "long", Text: long}, {ExtID: "words", Text: strings.Repeat("a ", 1001)}, {ExtID: "ok", Text: "cats or dogs"}})
	start := time.Now()
	sum, err := StoreProjectExpressions(ctx, st, p.ID, StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %v", took)
	}
	reasons := map[string]string{}
	for _, f := range sum.Failed {
		reasons[f.ExtID] = f.Reason
	}
	if sum.Stored != 1 || !strings.Contains(reasons["long"], "bytes a query may have") || !strings.Contains(reasons["words"], "1001 words: over the 1000") {
		t.Fatalf("summary %+v", sum)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := StoreProjectExpressions(cctx, st, p.ID, StoreOptions{}); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
}
