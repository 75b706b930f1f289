package cal

import (
	"math"
	"strings"
	"testing"
)

// curve: first `hits` relevant, then `misses` non-relevant.
func curve(hits, misses int) []bool {
	out := make([]bool, hits+misses)
	for i := range hits {
		out[i] = true
	}
	return out
}

func TestKnee(t *testing.T) {
	// 10 relevant then 90 not: the knee is at 10; ρ = (10/10) / (1/90) = 90.
	st := Knee(curve(10, 90), KneeOptions{MinRank: 30, Rho: 6})
	if st.Knee != 10 || math.Abs(st.Rho-90) > 1e-9 || !st.Fired {
		t.Fatalf("knee %d rho %.3f fired %v", st.Knee, st.Rho, st.Fired)
	}
	// Recall estimate: 10 / (10 + (1/90)·100).
	if want := 10 / (10 + 100.0/90); math.Abs(st.Estimate.Recall-want) > 1e-9 || !strings.Contains(st.Estimate.Basis, "knee at rank 10") {
		t.Fatalf("estimate %+v, want %.4f", st.Estimate, want)
	}
	// The paper's rule: threshold 156 − 10 = 146 > 90, and rank 100 < 150.
	if st := Knee(curve(10, 90), PaperKnee()); st.Fired {
		t.Fatalf("paper knee fired at rank 100: %+v", st)
	}
	// ρ = 10 / (1/(s − 10)) reaches 146 at s = 156.
	if Knee(curve(10, 145), PaperKnee()).Fired || !Knee(curve(10, 146), PaperKnee()).Fired {
		t.Fatal("paper knee should fire first at rank 156")
	}
	// Below MinRank nothing fires, whatever ρ.
	if Knee(curve(10, 15), KneeOptions{MinRank: 30, Rho: 6}).Fired {
		t.Fatal("fired before MinRank")
	}
	// Nothing relevant: never fires.
	if st := Knee(curve(0, 500), KneeOptions{MinRank: 1, Rho: 0}); st.Fired || st.Estimate.Recall != 0 {
		t.Fatalf("no relevant: %+v", st)
	}
	// The effort cap: 20 per relevant + 50. Nothing found: fires at 50,
	// not at 49; 2 found (as 2 relevant then misses): fires at 90.
	ec := KneeOptions{MinRank: 1000, Rho: 6, EffortPerRel: 20, EffortBase: 50}
	if Knee(curve(0, 49), ec).Fired || !Knee(curve(0, 50), ec).Fired {
		t.Fatal("effort cap with nothing found should fire first at 50")
	}
	if Knee(curve(2, 87), ec).Fired {
		t.Fatal("effort cap fired at 89 with 2 found")
	}
	if st := Knee(curve(2, 88), ec); !st.Fired || !strings.Contains(st.Estimate.Basis, "effort cap") {
		t.Fatalf("effort cap at 90 with 2 found: %+v", st)
	}
	// A straight line (constant precision) has no knee.
	alt := make([]bool, 200)
	for i := range alt {
		alt[i] = i%2 == 0
	}
	if st := Knee(alt, KneeOptions{MinRank: 1, Rho: 6}); st.Fired {
		t.Fatalf("constant precision fired: %+v", st)
	}
}

func TestTargetSet(t *testing.T) {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = string(rune('A'+i/26)) + string(rune('a'+i%26))
	}
	rel := func(id string) bool { return id[1] == 'a' || id[1] == 'b' } // 8 relevant of 100
	ts := DrawTargetSet(ids, 3, 7, rel)
	if len(ts.Docs) != 3 {
		t.Fatalf("target set %+v", ts)
	}
	for _, d := range ts.Docs {
		if !rel(d) {
			t.Fatalf("target %s not relevant", d)
		}
	}
	if again := DrawTargetSet(ids, 3, 7, rel); strings.Join(again.Docs, ",") != strings.Join(ts.Docs, ",") || again.Sampled != ts.Sampled {
		t.Fatal("not deterministic")
	}
	found := map[string]bool{ts.Docs[0]: true, ts.Docs[1]: true}
	st := ts.Status(50, found)
	if st.Fired || math.Abs(st.Estimate.Recall-2.0/3) > 1e-9 || !strings.Contains(st.Estimate.Basis, "2 of 3 target documents") {
		t.Fatalf("2 of 3: %+v", st)
	}
	found[ts.Docs[2]] = true
	if st := ts.Status(60, found); !st.Fired || st.Estimate.Recall != 1 {
		t.Fatalf("all found: %+v", st)
	}
	// Fewer relevant documents than k: the whole corpus is sampled.
	if all := DrawTargetSet(ids, 20, 1, rel); len(all.Docs) != 8 || all.Sampled != 100 {
		t.Fatalf("exhausted: %d docs, %d sampled", len(all.Docs), all.Sampled)
	}
}
