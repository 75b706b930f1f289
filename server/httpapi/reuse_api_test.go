package httpapi_test

import (
	"context"
	"math"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
)

// TestReusabilityAndStabilityAPI: the reports of the judged depth-2 pool
// (judgingtest.AddJudgedPool; the numbers are worked out in
// cmd/boolpool's TestEvalReusabilityCLI): leaving dense out takes the
// relevant (q2, d6) away and drops its P@2 from .50 to .25 (rank 1 → 2).
// Unknown pools and bad parameters are 4xx naming the field; annotators
// may not read either report.
func TestReusabilityAndStabilityAPI(t *testing.T) {
	e := newEnv(t, 2, nil)
	if err := judgingtest.AddJudgedPool(context.Background(), e.st, e.fx); err != nil {
		t.Fatal(err)
	}
	r := e.login("researcher")
	var rep api.Reusability
	if st := r.do("GET", "/api/projects/fixture/reusability?pool="+judgingtest.ReusePool+"&measures=p@2", nil, &rep); st != 200 {
		t.Fatalf("reusability: status %d", st)
	}
	if rep.Pool != judgingtest.ReusePool || len(rep.LeaveOneRun) != 2 || rep.LeaveOneRun[1].LeftOut != "dense" {
		t.Fatalf("reusability %+v", rep)
	}
	rc := rep.LeaveOneRun[1].Measures["p@2"].Runs[0]
	if math.Abs(rc.With-.5) > 1e-12 || math.Abs(rc.Without-.25) > 1e-12 || rc.RankWith != 1 || rc.RankWithout != 2 {
		t.Errorf("leave dense out: %+v", rc)
	}
	if math.Abs(rep.MaxAbsChange["p@2"]-.25) > 1e-12 {
		t.Errorf("max |change| %v", rep.MaxAbsChange)
	}

	var stab api.Stability
	if st := r.do("GET", "/api/projects/fixture/stability?measures=p@2&bootstrap=20", nil, &stab); st != 200 {
		t.Fatalf("stability: status %d", st)
	}
	if stab.Consensus.Items != 6 || stab.Consensus.Differ != 0 || len(stab.Annotators) != 2 || stab.Bootstrap.Resamples != 20 {
		t.Errorf("stability %+v", stab)
	}
	if tau := stab.Annotators[0].Measures["p@2"].KendallTau; tau == nil || *tau != 1 {
		t.Errorf("annotator1 τ %v, want 1", tau)
	}

	for path, field := range map[string]string{
		"/api/projects/fixture/reusability?pool=nosuch":                                   "pool",
		"/api/projects/fixture/reusability":                                               "pool",
		"/api/projects/fixture/reusability?pool=" + judgingtest.ReusePool + "&measures=x": "measures",
		"/api/projects/fixture/stability?pool=nosuch":                                     "pool",
		"/api/projects/fixture/stability?bootstrap=many":                                  "bootstrap",
		"/api/projects/fixture/stability?bootstrap=-1":                                    "bootstrap",
	} {
		var problem api.Problem
		if st := r.do("GET", path, nil, &problem); st < 400 || st >= 500 || problem.Field != field {
			t.Errorf("%s: %d %+v, want a 4xx naming %s", path, st, problem, field)
		}
	}
	if st := e.login("annotator1").do("GET", "/api/projects/fixture/stability", nil, nil); st != 403 {
		t.Errorf("an annotator read the stability report: %d", st)
	}
}
