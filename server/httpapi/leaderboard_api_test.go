package httpapi_test

import (
	"fmt"
	"math"
	"testing"

	"boolpool/api"
)

// fixtureTruth is what the judging fixture's documents say about each atom
// (q1 = Andes AND NOT Colombia, q2 = Paris AND comedy).
var fixtureTruth = map[string]map[string]string{
	"Birds of the Venezuelan Andes": {"d1": "yes", "d2": "yes", "d3": "no", "d4": "no"},
	"birds of Colombia":             {"d1": "yes", "d2": "no", "d3": "yes", "d4": "no"},
	"Films set in Paris":            {"d5": "yes", "d6": "yes"},
	"comedy films":                  {"d5": "yes", "d6": "yes"},
}

// judgeConstraints has u judge up to max constraint tasks through the API,
// answer(atom, doc) deciding each; it returns how many it judged.
func judgeConstraints(t *testing.T, u *user, first int, answer func(atom, doc string) string, max int) int {
	t.Helper()
	done := 0
	for done < max {
		q := u.queue(api.KindConstraint, 1)
		if len(q.Tasks) == 0 {
			break
		}
		tk := q.Tasks[0]
		if tk.Constraint == nil || tk.Document == nil {
			t.Fatalf("task %+v is not a constraint task", tk)
		}
		req := api.JudgmentRequest{ClientID: uuid(first + done), AuthorID: u.id, ItemID: tk.ItemID, Kind: api.KindConstraint,
			Constraint: &api.ConstraintAnswer{Satisfied: answer(tk.Constraint.Text, tk.Document.ExtID)}}
		if st := u.do("POST", "/api/judgments", req, nil); st != 201 {
			t.Fatalf("constraint judgment: status %d", st)
		}
		done++
	}
	return done
}

// meanOf is a run's mean of a measure on a leaderboard (NaN when n/a).
func meanOf(t *testing.T, lb api.QrelsLeaderboard, run, measure string) float64 {
	t.Helper()
	for _, r := range lb.Leaderboard {
		if r.Run != run {
			continue
		}
		for _, s := range r.Scores {
			if s.Measure == measure {
				if s.Mean == nil {
					return math.NaN()
				}
				return *s.Mean
			}
		}
	}
	t.Fatalf("no %s for %s in %+v", measure, run, lb.Leaderboard)
	return 0
}

// TestLeaderboardOverDerivedQrels: the leaderboard API scores the runs
// over direct, derived or both qrels; constraint judgments arriving over
// the API change a derived qrel and the derived view's metrics follow at
// once, while the direct view (no relevance judgments) stays empty.
func TestLeaderboardOverDerivedQrels(t *testing.T) {
	e := newPoolEnv(t)
	r := e.login("researcher")
	var pr api.ConstraintPoolResult
	if st := r.do("POST", "/api/projects/fixture/constraints", api.ConstraintPoolRequest{}, &pr); st != 200 || pr.Created != 12 {
		t.Fatalf("pool constraints: %d %+v", st, pr)
	}
	get := func(mode string) api.QrelsLeaderboard {
		t.Helper()
		var lb api.QrelsLeaderboard
		if st := r.do("GET", "/api/projects/fixture/leaderboard?qrels="+mode, nil, &lb); st != 200 {
			t.Fatalf("leaderboard %s: status %d", mode, st)
		}
		return lb
	}
	var problem api.Problem
	if st := r.do("GET", "/api/projects/fixture/leaderboard?qrels=guessed", nil, &problem); st != 400 || problem.Field != "qrels" {
		t.Fatalf("unknown qrels: %d %+v, want 400 naming qrels", st, problem)
	}
	if st := e.login("annotator1").do("GET", "/api/projects/fixture/leaderboard?qrels=derived", nil, nil); st != 403 {
		t.Fatalf("an annotator read the leaderboard: %d", st)
	}
	if lb := get(api.QrelsDerived); lb.Labels != 0 || !math.IsNaN(meanOf(t, lb, "bm25", "mrr@10")) {
		t.Fatalf("before judging: %+v", lb)
	}

	// annotator1 judges every constraint item: with one vote each label is
	// that vote. q1 (Andes, not Colombia): d2 relevant, d1 d3 d4 not; q2:
	// d5, d6 relevant.
	a1 := e.login("annotator1")
	if n := judgeConstraints(t, a1, 1, func(atom, doc string) string { return fixtureTruth[atom][doc] }, 100); n != 12 {
		t.Fatalf("annotator1 judged %d, want 12", n)
	}
	lb := get(api.QrelsDerived)
	if lb.Qrels != api.QrelsDerived || lb.Labels != 6 || lb.Relevant != 3 {
		t.Fatalf("derived after annotator1: %d labels, %d relevant, want 6, 3", lb.Labels, lb.Relevant)
	}
	// bm25 ranks d2 third for q1 and d5 first for q2: MRR (1/3 + 1) / 2;
	// dense finds nothing for q1 and d6 first for q2: 1/2.
	if got := meanOf(t, lb, "bm25", "mrr@10"); math.Abs(got-2.0/3) > 1e-9 {
		t.Errorf("bm25 mrr@10 over derived = %v, want 2/3", got)
	}
	if got := meanOf(t, lb, "dense", "mrr@10"); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("dense mrr@10 over derived = %v, want 1/2", got)
	}
	if direct := get(api.QrelsDirect); !math.IsNaN(meanOf(t, direct, "bm25", "mrr@10")) {
		t.Errorf("direct view scored without relevance judgments: %+v", direct.Leaderboard)
	}
	if both := get(api.QrelsBoth); both.Labels != 6 || math.Abs(meanOf(t, both, "bm25", "mrr@10")-2.0/3) > 1e-9 {
		t.Errorf("both without direct labels should equal derived: %+v", both)
	}

	// annotator2 says d2 is not from the Venezuelan Andes: the split vote
	// makes the atom label unsure, q1's d2 unknown, and bm25 loses q1's
	// relevant document in the derived view.
	a2 := e.login("annotator2")
	doubt := func(atom, doc string) string {
		if atom == "Birds of the Venezuelan Andes" && doc == "d2" {
			return "no"
		}
		return fixtureTruth[atom][doc]
	}
	if n := judgeConstraints(t, a2, 100, doubt, 100); n != 12 {
		t.Fatalf("annotator2 judged %d, want 12", n)
	}
	lb = get(api.QrelsDerived)
	if lb.Labels != 5 || lb.Relevant != 2 {
		t.Fatalf("derived after the split vote: %d labels, %d relevant, want 5, 2", lb.Labels, lb.Relevant)
	}
	if got := meanOf(t, lb, "bm25", "mrr@10"); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("bm25 mrr@10 over derived after the split vote = %v, want (0 + 1) / 2", got)
	}
	if got := fmt.Sprint(meanOf(t, lb, "dense", "mrr@10")); got != "0.5" {
		t.Errorf("dense mrr@10 = %s, want 0.5 (unchanged)", got)
	}
}
