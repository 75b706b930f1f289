package pooling

import (
	"math"
	"reflect"
	"testing"
)

// A toy run set for one query "q". Relevant: r1..r4. Run "good" ranks the
// relevant documents first; "bad" has none; "mixed" alternates.
func toyRuns() []Run {
	return []Run{
		{Name: "bad", Lists: map[string][]string{"q": {"n1", "n2", "n3", "n4", "n5"}}},
		{Name: "good", Lists: map[string][]string{"q": {"r1", "r2", "r3", "r4", "n6"}}},
		{Name: "mixed", Lists: map[string][]string{"q": {"n2", "r2", "n7", "r3", "n8"}}},
	}
}

var toyRel = map[string]map[string]bool{"q": {"r1": true, "r2": true, "r3": true, "r4": true, "r9": true}}

func oracle(d string) (bool, bool) { return toyRel["q"][d], true }

func TestOrders(t *testing.T) {
	lists := topLists("q", toyRuns(), 5)
	cases := []struct {
		strategy string
		want     []string
	}{
		{Depth, []string{"n1", "r1", "n2", "r2", "n3", "r3", "n7", "n4", "r4", "n5", "n6", "n8"}},
		{DocID, []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "r1", "r2", "r3", "r4"}},
		// MTF: bad (first on a tie) gives n1 → priority −1; good yields r1..r4
		// then n6 → −1 (exhausted); mixed (0): n2 → −1; then bad and mixed
		// alternate, skipping what is judged (r2, r3 are free for mixed).
		{MTF, []string{"n1", "r1", "r2", "r3", "r4", "n6", "n2", "n3", "n7", "n4", "n8", "n5"}},
		// Bandit: every arm starts at mean 1/2; bad is pulled first (n1 →
		// 1/3), then good (r1 → 2/3) wins until it is exhausted; mixed (1/2)
		// beats bad (1/3) with n2, then its free r2 lifts it above bad again.
		{Bandit, []string{"n1", "r1", "r2", "r3", "r4", "n6", "n2", "n7", "n8", "n3", "n4", "n5"}},
	}
	for _, c := range cases {
		got, err := Order(lists, Options{Depth: 5, Strategy: c.strategy}, oracle)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.strategy, got, c.want)
		}
	}
	if _, err := Order(lists, Options{Strategy: "nope"}, oracle); err == nil {
		t.Error("unknown strategy accepted")
	}
}

func TestBuildSourcesAndProbes(t *testing.T) {
	items, err := Build("q", toyRuns(), []Probe{{Label: "not:1", Docs: []string{"r2", "x1"}}}, Options{Depth: 2, Strategy: Depth}, NoJudgments)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for i, it := range items {
		docs = append(docs, it.DocID)
		if it.Priority != i {
			t.Errorf("priority %d at %d", it.Priority, i)
		}
	}
	if want := []string{"n1", "r1", "n2", "r2", "x1"}; !reflect.DeepEqual(docs, want) {
		t.Fatalf("pool %v, want %v", docs, want)
	}
	if !reflect.DeepEqual(items[2].Sources, map[string]int{"bad": 2, "mixed": 1}) {
		t.Errorf("n2 sources %v", items[2].Sources)
	}
	if items[3].Probe != "not:1" || items[4].Probe != "not:1" || len(items[4].Sources) != 0 {
		t.Errorf("probe items %+v %+v", items[3], items[4])
	}
	c := Compose(items, []string{"bad", "good", "mixed"})
	if c.Items != 5 || c.ProbeItems != 2 || c.ProbeOnly != 1 || c.Queries != 1 {
		t.Errorf("composition %+v", c)
	}
	wantRuns := []RunStats{{"bad", 2, 1}, {"good", 2, 1}, {"mixed", 2, 0}}
	if !reflect.DeepEqual(c.Runs, wantRuns) {
		t.Errorf("runs %+v", c.Runs)
	}
	if c.Overlap[0][2] != 1 || c.Overlap[2][0] != 1 || c.Overlap[1][2] != 1 || c.Overlap[0][1] != 0 {
		t.Errorf("overlap %v", c.Overlap)
	}
	if _, err := Build("q", toyRuns(), nil, Options{Depth: 0}, NoJudgments); err == nil {
		t.Error("depth 0 accepted")
	}
}

func TestJudgedAtK(t *testing.T) {
	judged := map[string]bool{"r1": true, "r2": true, "n6": true}
	run := toyRuns()[1]
	got := JudgedAtK(run, func(_, d string) bool { return judged[d] }, 4)
	if got != 0.5 {
		t.Errorf("Judged@4 = %v, want 0.5", got)
	}
	if got := JudgedAtK(run, func(_, d string) bool { return judged[d] }, 10); got != 0.6 {
		t.Errorf("Judged@10 over 5 docs = %v, want 0.6", got)
	}
}

func TestSimulate(t *testing.T) {
	sum, err := Simulate([]string{"q"}, toyRuns(), 5, toyRel, []string{DocID, Depth, MTF, Bandit}, []float64{0.5, 1}, BanditOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The pool holds r1..r4 (r9 is in no run): 4 relevant of 5 in the qrels.
	if sum.Queries != 1 || sum.PoolSize != 12 || sum.PoolRelevant != 4 || sum.QrelsRelevant != 5 {
		t.Fatalf("summary %+v", sum)
	}
	// Positions of the 2nd and 4th relevant document in each order above.
	want := map[string][]int{DocID: {10, 12}, Depth: {4, 9}, MTF: {3, 5}, Bandit: {3, 5}}
	for _, r := range sum.Results {
		if !reflect.DeepEqual(r.TotalJudgments, want[r.Strategy]) {
			t.Errorf("%s: %v, want %v", r.Strategy, r.TotalJudgments, want[r.Strategy])
		}
	}
	if s := sum.Results[2].Saving[1]; math.Abs(s-(1-5.0/12)) > 1e-12 {
		t.Errorf("MTF saving at 100%% = %v", s)
	}
}
