package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"boolpool/server/metrics"
	"boolpool/server/trecfmt"
)

func runCmd(t *testing.T, f func(context.Context, []string, io.Writer, io.Writer) error, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := f(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestEvalJSON(t *testing.T) {
	out, stderr, err := runCmd(t, runEval,
		"--qrels", "testdata/eval/qrels.txt",
		"--run", "testdata/eval/run_a.txt", "--run", "testdata/eval/run_b.txt",
		"--negatives", "testdata/eval/negatives.txt",
		"--metrics", "mrr@10,p@5,ndcg@5,recall@5,judged@5,negrecall@2,violation",
		"--json", "--per-query")
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !strings.Contains(stderr, "run_a.txt: 1 duplicate docid lines ignored") {
		t.Errorf("no duplicate warning in %q", stderr)
	}
	var got struct {
		Runs map[string]struct {
			Mean     map[string]float64            `json:"mean"`
			PerQuery map[string]map[string]float64 `json:"per_query"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	a, b := got.Runs["run_a.txt"], got.Runs["run_b.txt"]
	// run_a ranks q1 as d2 d9 d1 d3 d4 (score ties broken by docid
	// descending, the rank column ignored, the second d1 dropped); queries
	// scored: q1 q2 q5 (q3 has no run lines, q4 no qrels).
	checks := []struct {
		name      string
		got, want float64
	}{
		{"a q1 mrr@10", a.PerQuery["q1"]["mrr@10"], 1.0 / 3},
		{"a q1 ndcg@5", a.PerQuery["q1"]["ndcg@5"], 0.4750751056400577},
		{"a q1 negrecall@2", a.PerQuery["q1"]["negrecall@2"], 2.0 / 3},
		{"a q5 ndcg@5", a.PerQuery["q5"]["ndcg@5"], 1},
		{"a mean mrr@10", a.Mean["mrr@10"], (1.0/3 + 0 + 1) / 3},
		{"a mean p@5", a.Mean["p@5"], (3.0/5 + 0 + 2.0/5) / 3},
		{"a mean recall@5", a.Mean["recall@5"], (3.0/4 + 0 + 1) / 3},
		{"a mean judged@5", a.Mean["judged@5"], (4.0/5 + 1.0/2 + 2.0/2) / 3},
		{"a mean negrecall@2", a.Mean["negrecall@2"], (2.0/3 + 1) / 2},
		{"a mean violation", a.Mean["violation"], 1},
		// run_b: q1 in ideal order, q2 nothing relevant; q5 absent.
		{"b mean ndcg@5", b.Mean["ndcg@5"], 0.5},
		{"b mean p@5", b.Mean["p@5"], (4.0/5 + 0) / 2},
		{"b mean violation", b.Mean["violation"], 0},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.12f, want %.12f", c.name, c.got, c.want)
		}
	}
	if len(a.PerQuery) != 3 || len(b.PerQuery) != 2 {
		t.Errorf("queries: a %d, b %d", len(a.PerQuery), len(b.PerQuery))
	}
	if _, ok := a.PerQuery["q5"]["negrecall@2"]; ok {
		t.Error("negrecall reported for a query without negatives")
	}
}

// TestEvalJSONMeansOnly: without --per-query the JSON holds the means, their
// counts and the missing queries, not the per-query values.
func TestEvalJSONMeansOnly(t *testing.T) {
	out, _, err := runCmd(t, runEval, "--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_b.txt", "--metrics", "p@5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "runs": {
    "run_b.txt": {
      "queries": 2,
      "missing": 2,
      "mean": {
        "p@5": 0.4
      },
      "count": {
        "p@5": 2
      }
    }
  }
}
`
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

// TestEvalMeansTable: the default table is one row of means per run.
func TestEvalMeansTable(t *testing.T) {
	out, stderr, err := runCmd(t, runEval, "--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_a.txt", "--run", "testdata/eval/run_b.txt", "--metrics", "p@5,ndcg@5")
	if err != nil {
		t.Fatal(err)
	}
	want := "run        queries  p@5     ndcg@5\n" +
		"run_a.txt  3        0.3333  0.4917\n" +
		"run_b.txt  2        0.4000  0.5000\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	// qrels queries q1 q2 q3 q5: run_a lacks q3, run_b lacks q3 and q5.
	for _, w := range []string{
		"testdata/eval/run_a.txt: warning: 1 of 4 qrels queries have no line in the run and are left out of the means; --complete scores them as 0",
		"testdata/eval/run_b.txt: warning: 2 of 4 qrels queries have no line in the run",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	out, stderr, err = runCmd(t, runEval, "--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_b.txt", "--metrics", "p@5", "--complete")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "run_b.txt  4        0.2000") || strings.Contains(stderr, "warning") || !strings.Contains(stderr, "2 of 4 qrels queries have no line in the run; they score 0 as empty rankings") {
		t.Errorf("--complete: out %q stderr %q", out, stderr)
	}
}

func TestEvalTable(t *testing.T) {
	out, _, err := runCmd(t, runEval, "--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_b.txt", "--metrics", "p@5,ndcg@5", "--per-query")
	if err != nil {
		t.Fatal(err)
	}
	want := "run run_b.txt (2 queries)\n" +
		"qid  p@5     ndcg@5\n" +
		"q1   0.8000  1.0000\n" +
		"q2   0.0000  0.0000\n" +
		"all  0.4000  0.5000\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		usage bool
		msg   string
	}{
		{"no run", []string{"--qrels", "testdata/eval/qrels.txt"}, true, "--run"},
		{"bad metric", []string{"--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_a.txt", "--metrics", "bpref"}, true, "unknown measure"},
		{"negatives needed", []string{"--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_a.txt", "--metrics", "negrecall@10"}, true, "needs --negatives"},
		{"malformed run", []string{"--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/bad_run.txt"}, false,
			`testdata/eval/bad_run.txt:2: field score: "high" is not a number`},
		{"missing file", []string{"--qrels", "testdata/eval/nope.txt", "--run", "testdata/eval/run_a.txt"}, false, "nope.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCmd(t, runEval, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, errUsage) != tc.usage || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v (usage %v), want usage %v containing %q", err, errors.Is(err, errUsage), tc.usage, tc.msg)
			}
		})
	}
}

func TestEvalCI(t *testing.T) {
	args := []string{"--qrels", "testdata/eval/qrels.txt", "--run", "testdata/eval/run_a.txt", "--run", "testdata/eval/run_b.txt",
		"--metrics", "p@5", "--ci", "200", "--seed", "9"}
	out, _, err := runCmd(t, runEval, args...)
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := runCmd(t, runEval, args...)
	if out != again {
		t.Fatal("--ci output differs between identical invocations")
	}
	// run_b − run_a on the shared queries q1, q2: p@5 (0.8 − 0.6 + 0 − 0)/2.
	for _, want := range []string{"ci95-low", "ci95-high", "paired randomisation test against run_a.txt (200 permutations)", "run_b.txt  +0.1000 ("} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestQrelsOf: an exact repeat of a judgment line is accepted, a document
// judged twice with different grades is an error naming it.
func TestQrelsOf(t *testing.T) {
	q, err := qrelsOf([]trecfmt.Qrel{{QueryID: "q1", DocID: "d1", Rel: 2}, {QueryID: "q1", DocID: "d1", Rel: 2}, {QueryID: "q2", DocID: "d1", Rel: 0}})
	if err != nil || !reflect.DeepEqual(q, metrics.Qrels{"q1": {"d1": 2}, "q2": {"d1": 0}}) {
		t.Fatalf("got %v, %v", q, err)
	}
	_, err = qrelsOf([]trecfmt.Qrel{{QueryID: "q1", DocID: "d1", Rel: 2}, {QueryID: "q1", DocID: "d1", Rel: 1}})
	if err == nil || !strings.Contains(err.Error(), "query q1 document d1 judged twice (2 and 1)") {
		t.Fatalf("conflicting grades: %v", err)
	}
}
