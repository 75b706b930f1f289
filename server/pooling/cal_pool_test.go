package pooling

import (
	"math"
	"strings"
	"testing"

	"boolpool/server/store"
)

// TestCALStopStatus: ten relevant then 110 non-relevant judgments put the
// knee at rank 10 with slope ratio (10/10)/((0+1)/110) = 110 ≥ 6 after 120 ≥
// 100 judgments, so the default knee rule (DefaultCALKnee) fires; an
// extension to 130 judgments or the rule "none" keeps the review going,
// with the same estimate; the paper's knee waits for 150 judgments.
func TestCALStopStatus(t *testing.T) {
	rels := make([]bool, 120)
	for i := range 10 {
		rels[i] = true
	}
	st := StopStatus(CALParams{Stop: CALStopKnee}, rels, 0)
	if !st.Fired || st.Knee != 10 || st.Rho != 110 || st.Found != 10 || st.Judged != 120 {
		t.Errorf("knee = %+v", st)
	}
	// Recall estimate R / (R + rate·s) = 10 / (10 + 120/110).
	if want := 10 / (10 + 120.0/110); math.Abs(st.Estimate.Recall-want) > 1e-12 || st.Estimate.Basis == "" {
		t.Errorf("estimate = %+v, want recall %v", st.Estimate, want)
	}
	if ext := StopStatus(CALParams{Stop: CALStopKnee}, rels, 130); ext.Fired || ext.Estimate != st.Estimate {
		t.Errorf("extended to 130: %+v", ext)
	}
	if none := StopStatus(CALParams{Stop: CALStopNone}, rels, 0); none.Fired {
		t.Errorf("rule none fired: %+v", none)
	}
	if paper := StopStatus(CALParams{Stop: CALStopPaperKnee}, rels, 0); paper.Fired {
		t.Errorf("paper knee fired before 150 judgments: %+v", paper)
	}
	// Nothing relevant in 50 judgments: the default rule's effort cap
	// (20 per relevant found + 50) lets the query go.
	if empty := StopStatus(CALParams{Stop: CALStopKnee}, make([]bool, 50), 0); !empty.Fired {
		t.Errorf("effort cap did not fire: %+v", empty)
	}
}

// TestCALReview: labels from outside the pool come first (by document
// id), then the pool's judged items in review order; unjudged ones are
// left out.
func TestCALReview(t *testing.T) {
	labels := map[string]bool{"z": true, "a": false, "p1": true, "p3": false}
	items := []store.CALReviewItem{{DocExtID: "p1"}, {DocExtID: "p2"}, {DocExtID: "p3"}}
	r := Review(labels, items)
	want := []bool{false, true, true, false} // a, z, p1, p3
	if len(r.Rels) != len(want) || r.Judged != 2 || r.Found != 2 {
		t.Fatalf("review = %+v", r)
	}
	for i := range want {
		if r.Rels[i] != want[i] {
			t.Errorf("rels = %v, want %v", r.Rels, want)
		}
	}
}

func TestCheckCAL(t *testing.T) {
	spec, err := checkCAL(Spec{Strategy: CAL})
	if err != nil || spec.CAL.Batch != DefaultCALBatch || spec.CAL.Max != DefaultCALMax || spec.CAL.Stop != CALStopKnee {
		t.Errorf("defaults: %+v %v", spec.CAL, err)
	}
	for field, bad := range map[string]Spec{
		"cal.batch":     {CAL: CALParams{Batch: MaxCALBatch + 1}},
		"cal.max":       {CAL: CALParams{Max: -1}},
		"cal.stop":      {CAL: CALParams{Stop: "soon"}},
		"cal.seed_runs": {CAL: CALParams{SeedRuns: -2}},
		"probes":        {Probes: true},
	} {
		if _, err := checkCAL(bad); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
}
