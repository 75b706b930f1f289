package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
)

// reuseCLITest is a CLI world holding the judging fixture with its two runs,
// the depth-2 pool and two annotators' judgments (judgingtest.AddJudgedPool).
func reuseCLITest(t *testing.T) *cliTest {
	t.Helper()
	c := newCLITest(t)
	st := c.store()
	f, err := judgingtest.Build(context.Background(), st, "fixture", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := judgingtest.AddJudgedPool(c.ctx, st, f); err != nil {
		t.Fatal(err)
	}
	return c
}

// The fixture, P@2 (grade >= 2 relevant): bm25 ranks q1 d1 d5, q2 d5 d1;
// dense q1 d6 d1, q2 d6 d3; qrels q1 d1=3 d2=2 d3=d4=0, q2 d5=0 d6=2. Full:
// bm25 .5 and 0 → .25, dense .5 and .5 → .50. Leaving dense out removes
// (q2, d6) (relevant, only dense had it in the pool): dense .5 and 0 → .25,
// tied with bm25 and ranked after it by name (1 → 2), change −.25; every
// run tied: τ undefined (null). Judged@10 of dense without it: q1 1 of 2,
// q2 0 of 2 → .25. Leaving bm25 out removes (q2, d5) (grade 0): nothing
// moves, τ 1.
func TestEvalReusabilityCLI(t *testing.T) {
	c := reuseCLITest(t)
	out, _ := c.must("eval", "reusability", "--project", "fixture", "--pool", judgingtest.ReusePool, "--measures", "p@2", "--json")
	var rep api.Reusability
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Queries != 2 || len(rep.Runs) != 2 || len(rep.LeaveOneRun) != 2 || len(rep.LeaveOneFamily) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Runs[0].Family != "lexical" || rep.Runs[1].Family != "dense" {
		t.Errorf("families %q %q, want lexical (bm25) and dense (no known method: its name)", rep.Runs[0].Family, rep.Runs[1].Family)
	}
	bm25, dense := rep.LeaveOneRun[0], rep.LeaveOneRun[1]
	if bm25.LeftOut != "bm25" || dense.LeftOut != "dense" {
		t.Fatalf("leave-outs %q %q", bm25.LeftOut, dense.LeftOut)
	}
	d := dense.Measures["p@2"]
	rc := d.Runs[0]
	if dense.Removed != 1 || dense.RemovedRelevant != 1 || rc.RankWith != 1 || rc.RankWithout != 2 || d.KendallTau != nil {
		t.Errorf("leave dense out: %+v", dense)
	}
	if math.Abs(rc.With-.5) > 1e-12 || math.Abs(rc.Without-.25) > 1e-12 || math.Abs(dense.JudgedAt10["dense"]-.25) > 1e-12 {
		t.Errorf("dense with %v without %v judged@10 %v; want .5, .25, .25", rc.With, rc.Without, dense.JudgedAt10["dense"])
	}
	b := bm25.Measures["p@2"]
	if bm25.Removed != 1 || bm25.RemovedRelevant != 0 || b.Runs[0].Change != 0 || b.KendallTau == nil || *b.KendallTau != 1 {
		t.Errorf("leave bm25 out: %+v %+v", bm25, b)
	}
	if math.Abs(rep.MaxAbsChange["p@2"]-.25) > 1e-12 {
		t.Errorf("max |change| %v, want .25", rep.MaxAbsChange["p@2"])
	}

	table, _ := c.must("eval", "reusability", "--project", "fixture", "--pool", judgingtest.ReusePool, "--measures", "p@2")
	for _, want := range []string{"leave one run out", "dense", "1 → 2", "-0.2500", "max |change|: p@2 0.2500", "leave one method family out"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

func TestEvalReusabilityCLIErrors(t *testing.T) {
	c := reuseCLITest(t)
	_, errs, code := c.exec("eval", "reusability", "--project", "fixture", "--pool", "nosuch")
	if code == 0 || !strings.Contains(errs, "--pool") || !strings.Contains(errs, "nosuch") {
		t.Errorf("unknown pool: exit %d, %s", code, errs)
	}
	_, errs, code = c.exec("eval", "reusability", "--project", "fixture")
	if code != 2 || !strings.Contains(errs, "--pool") {
		t.Errorf("no pool: exit %d, %s", code, errs)
	}
	_, errs, code = c.exec("eval", "reusability", "--project", "fixture", "--pool", judgingtest.ReusePool, "--measures", "ndcg@10,bogus")
	if code != 2 || !strings.Contains(errs, "--measures") {
		t.Errorf("bad measure: exit %d, %s", code, errs)
	}
	_, errs, code = c.exec("eval", "stability", "--project", "fixture", "--pool", "nosuch")
	if code == 0 || !strings.Contains(errs, "--pool") {
		t.Errorf("stability, unknown pool: exit %d, %s", code, errs)
	}
}

// Both annotators gave every item the same label, so the majority and
// Dawid–Skene agree and each annotator's ranking is the consensus's
// (dense .50 over bm25 .25): τ 1 everywhere.
func TestEvalStabilityCLI(t *testing.T) {
	c := reuseCLITest(t)
	out, _ := c.must("eval", "stability", "--project", "fixture", "--measures", "p@2", "--bootstrap", "50", "--json")
	var rep api.Stability
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if rep.Queries != 2 || rep.Consensus.Items != 6 || rep.Consensus.Differ != 0 {
		t.Errorf("queries %d, consensus %+v", rep.Queries, rep.Consensus)
	}
	if tau := rep.Consensus.Measures["p@2"].KendallTau; tau == nil || *tau != 1 {
		t.Errorf("majority vs DS τ %v", tau)
	}
	if len(rep.Annotators) != 2 {
		t.Fatalf("annotators %+v", rep.Annotators)
	}
	for _, a := range rep.Annotators {
		if a.Judgments != 6 || a.Queries != 2 {
			t.Errorf("%s: %d judgments over %d queries, want 6 over 2", a.Annotator, a.Judgments, a.Queries)
		}
		if tau := a.Measures["p@2"].KendallTau; tau == nil || *tau != 1 {
			t.Errorf("%s τ %v, want 1", a.Annotator, tau)
		}
	}
	if rep.Bootstrap.Resamples != 50 {
		t.Errorf("bootstrap %+v", rep.Bootstrap)
	}
	table, _ := c.must("eval", "stability", "--project", "fixture", "--measures", "p@2", "--bootstrap", "50")
	for _, want := range []string{"majority vs dawid-skene (0 of 6 items differ)", "annotator annotator1 vs majority", "query bootstrap (50 resamples"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}
