package consensus

import (
	"math"
	"testing"
)

// TestDawidSkeneKnownItems: gold answers stay fixed and pull a rater who
// contradicts them down even where the majority agrees with that rater.
func TestDawidSkeneKnownItems(t *testing.T) {
	yes, no := true, false
	var items []DSItem
	// Raters 1 and 2 always say relevant, rater 3 is right: the truth
	// (known on the first 20 items) is "not relevant" throughout.
	for i := range 40 {
		it := DSItem{Votes: []Vote{{Rater: 1, Label: 3}, {Rater: 2, Label: 2}, {Rater: 3, Label: 0}}}
		if i < 20 {
			it.Known = &no
		}
		items = append(items, it)
	}
	items = append(items, DSItem{Votes: []Vote{{Rater: 3, Label: 3}}, Known: &yes})
	res := DawidSkene(items, DSOptions{})
	for i := range 20 {
		if res.Posterior[i] != 0 {
			t.Fatalf("known item %d moved to %v", i, res.Posterior[i])
		}
	}
	if res.Posterior[40] != 1 {
		t.Errorf("known relevant item at %v", res.Posterior[40])
	}
	for i := 20; i < 40; i++ {
		if res.Relevant(i) {
			t.Errorf("item %d: DS says relevant (P=%.3f); the gold-anchored rater 3 says not", i, res.Posterior[i])
		}
		if d, _ := Decide(items[i].Votes, nil); !d.Relevant() {
			t.Fatalf("item %d: the majority should say relevant", i)
		}
	}
	r1, _ := res.Rater(1)
	r3, _ := res.Rater(3)
	if r1.Specificity > 0.2 || r3.Accuracy < 0.9 {
		t.Errorf("rater 1 specificity %.3f (want low), rater 3 accuracy %.3f (want high)", r1.Specificity, r3.Accuracy)
	}
}

func TestDawidSkeneEdgeCases(t *testing.T) {
	if res := DawidSkene(nil, DSOptions{}); len(res.Posterior) != 0 || len(res.Raters) != 0 {
		t.Errorf("empty input: %+v", res)
	}
	// An item without votes stays at the prior's side, never NaN.
	res := DawidSkene([]DSItem{{}, {Votes: []Vote{{Rater: 5, Label: 3}}}}, DSOptions{MaxIter: 3})
	for i, p := range res.Posterior {
		if math.IsNaN(p) || p < 0 || p > 1 {
			t.Errorf("posterior %d = %v", i, p)
		}
	}
	if res.Iterations > 3 {
		t.Errorf("%d iterations, max 3", res.Iterations)
	}
}

func TestDecideDS(t *testing.T) {
	two := 2
	tests := []struct {
		name     string
		votes    []Vote
		adj      *int
		relevant bool
		want     int
	}{
		{"relevant side median", votes(3, 2, 0), nil, true, 2},
		{"overturned majority", votes(3, 3, 1), nil, false, 1},
		{"overturned to relevant", votes(0, 1, 3), nil, true, 3},
		{"no vote on the relevant side", votes(0, 1), nil, true, 2},
		{"no vote on the not-relevant side", votes(3), nil, false, 1},
		{"adjudication overrides", votes(0, 0), &two, false, 2},
	}
	for _, tt := range tests {
		d, ok := DecideDS(tt.votes, tt.adj, tt.relevant)
		if !ok || d.Relevance != tt.want {
			t.Errorf("%s: relevance %d (ok %v), want %d", tt.name, d.Relevance, ok, tt.want)
		}
	}
}
