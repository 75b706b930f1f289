package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// estimateProject imports 60 documents and 4 queries whose gold (the
// stored qrels, the simulation's oracle) is spread over the runs' rankings
// and beyond, and saves three runs.
func estimateProject(t *testing.T) *cliTest {
	cli := newCLITest(t)
	var docs, qs strings.Builder
	for d := 0; d < 60; d++ {
		fmt.Fprintf(&docs, `{"title": "doc%02d", "text": "fruit%d colour%d size%d shared words"}`+"\n", d, d%4, d%3, d%5)
	}
	for q := 0; q < 4; q++ {
		var gold []string
		for d := 0; d < 60; d++ {
			if d%4 == q && (d%3 == q%3 || d%5 == 0) {
				gold = append(gold, fmt.Sprintf("%q", fmt.Sprintf("doc%02d", d)))
			}
		}
		fmt.Fprintf(&qs, `{"query": "fruit%d colour%d", "docs": [%s], "original_query": "<mark>fruit%d</mark> <mark>colour%d</mark>", "scores": null, "metadata": {"template": "_ and _"}}`+"\n",
			q, q%3, strings.Join(gold, ", "), q, q%3)
	}
	cli.must("import", "--project", "p", "--format", "quest", cli.write("docs.jsonl", docs.String()), cli.write("q.jsonl", qs.String()))
	cli.must("index", "--project", "p")
	for _, m := range []string{"bm25", "pnorm", "bm25-strict-boolean"} {
		cli.must("retrieve", "--project", "p", "--method", m, "--name", m, "--depth", "40")
	}
	return cli
}

// simulateJSON is what `pool simulate --json` prints, as the tests read
// it.
type simulateJSON struct {
	Queries    int `json:"queries"`
	Gold       int `json:"gold"`
	Strategies map[string]struct {
		Judgments   int             `json:"judgments"`
		Found       int             `json:"found"`
		Recall      float64         `json:"recall"`
		JudgmentsTo map[string]*int `json:"judgments_to"`
	} `json:"strategies"`
}

// simEstimateJSON is what `pool simulate --estimate … --json` prints, as
// the tests read it.
type simEstimateJSON struct {
	Queries    int `json:"queries"`
	Gold       int `json:"gold"`
	Strategies map[string]struct {
		Judgments int `json:"judgments"`
		Estimate  map[string]struct {
			KendallTau *float64 `json:"kendall_tau"`
			TauAP      *float64 `json:"tau_ap"`
			RMSE       *float64 `json:"rmse"`
			MaxAbsErr  *float64 `json:"max_abs_err"`
			CICoverage *float64 `json:"ci_coverage"`
		} `json:"estimate"`
	} `json:"strategies"`
}

// TestPoolSimulateEstimateCLI: the issue's contract — `pool simulate
// --strategies depth,sample --budget N --estimate … --json` adds per
// strategy "estimate" with kendall_tau, tau_ap, rmse, max_abs_err and
// ci_coverage (null for depth). With a budget that covers every ranked
// document both strategies judge everything the runs retrieve, so every
// measure equals its full-gold value (τ 1, RMSE 0, every interval covers);
// with a small budget the JSON keeps its shape and the judgments stay
// within the budget. Bad flags are usage errors naming the flag.
func TestPoolSimulateEstimateCLI(t *testing.T) {
	cli := estimateProject(t)
	args := func(budget int) []string {
		return []string{"pool", "simulate", "--project", "p", "--runs", "bm25,pnorm,bm25-strict-boolean", "--depth", "40",
			"--strategies", "depth,sample", "--budget", fmt.Sprint(budget), "--estimate", "ndcg@10,recall@20,ap",
			"--sample-strata", "1-5:1,6-40:0.5", "--json"}
	}
	out, _ := cli.must(args(10000)...)
	var res simEstimateJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if res.Queries != 4 || res.Gold == 0 {
		t.Fatalf("queries %d gold %d", res.Queries, res.Gold)
	}
	for _, s := range []string{"depth", "sample"} {
		for _, m := range []string{"ndcg@10", "recall@20", "ap"} {
			a, ok := res.Strategies[s].Estimate[m]
			if !ok || a.KendallTau == nil || a.TauAP == nil || a.RMSE == nil || a.MaxAbsErr == nil {
				t.Fatalf("%s %s: missing fields: %s", s, m, out)
			}
			if *a.RMSE > 1e-9 || *a.MaxAbsErr > 1e-9 {
				t.Errorf("%s %s with everything judged: rmse %g max %g, want 0", s, m, *a.RMSE, *a.MaxAbsErr)
			}
			if s == "depth" && a.CICoverage != nil {
				t.Errorf("depth %s: ci_coverage %v, want null (no interval)", m, *a.CICoverage)
			}
			if s == "sample" && (a.CICoverage == nil || *a.CICoverage != 1) {
				t.Errorf("sample %s: ci_coverage %v, want 1", m, a.CICoverage)
			}
		}
	}
	out, _ = cli.must(args(30)...)
	res = simEstimateJSON{}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for name, s := range res.Strategies {
		if s.Judgments > 30 {
			t.Errorf("%s judged %d > budget 30", name, s.Judgments)
		}
		for m, a := range s.Estimate {
			if a.RMSE == nil || math.IsNaN(*a.RMSE) || *a.RMSE < 0 || *a.RMSE > 1 {
				t.Errorf("%s %s: rmse %v", name, m, a.RMSE)
			}
		}
	}
	// The table names every strategy and measure.
	table, _ := cli.must(args(10000)[:len(args(10000))-1]...)
	for _, want := range []string{"depth", "sample", "ndcg@10", "recall@20", "ap", "95% CI coverage", "estimated relevant documents"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--estimate", "mrr@10"}, "--estimate"},
		{[]string{"--budget", "0"}, "--budget"},
		{[]string{"--sample-strata", "1-5:2"}, "--sample-strata"},
	} {
		a := args(50)
		for i := 0; i+1 < len(a); i++ {
			if a[i] == bad.args[0] {
				a[i+1] = bad.args[1]
			}
		}
		_, errs, code := cli.exec(a...)
		if code != 2 || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", bad.args, code, errs, bad.want)
		}
	}
}
