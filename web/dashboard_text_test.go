package web

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// TestProgressAndConsensusCountTheSameThing: the progress bar said "0 of
// 2284 items judged" next to the consensus line's "6 items judged"; each
// now names what it counts and the bar says how many are started.
func TestProgressAndConsensusCountTheSameThing(t *testing.T) {
	pr := api.PoolProgress{Items: 2284, Judged: 0, Remaining: 2284, QueriesTotal: 238}
	got := progressLabel(pr, 6)
	if !strings.HasPrefix(got, "0 of 2284 items fully judged") || !strings.Contains(got, "(6 of them started)") {
		t.Errorf("progress label %q: want the fully-judged count and the 6 started", got)
	}
	c := consensusText(api.ConsensusSummary{Items: 6, Single: 6})
	if !strings.HasPrefix(c, "6 items with at least one judgment: 0 unanimous, 6 with a single rating so far") {
		t.Errorf("consensus line %q", c)
	}
}

// TestGoldCheckOKOnlyAboveThreshold: "Gold check: ok (1/7)" at 14 %
// accuracy; ok now needs the project's minimum (or 70 % with the check off).
func TestGoldCheckOKOnlyAboveThreshold(t *testing.T) {
	off := api.QualitySettings{}
	on := api.QualitySettings{GoldMinAccuracy: 0.5, GoldMinJudged: 10}
	tests := []struct {
		a    api.AnnotatorView
		q    api.QualitySettings
		want string
	}{
		{api.AnnotatorView{GoldItems: 7, GoldCorrect: 1}, off, "low (1/7, 14%; ok from 70%)"},
		{api.AnnotatorView{GoldItems: 10, GoldCorrect: 7}, off, "ok (7/10, 70%)"},
		{api.AnnotatorView{GoldItems: 7, GoldCorrect: 1}, on, "low (1/7, 14%; ok from 50%)"}, // before gold_min_judged: not flagged, still low
		{api.AnnotatorView{GoldItems: 4, GoldCorrect: 2}, on, "ok (2/4, 50%)"},
		{api.AnnotatorView{GoldItems: 12, GoldCorrect: 1, Flagged: true}, on, "⚠ below threshold (1/12, 8%)"},
		{api.AnnotatorView{}, on, "—"},
	}
	for _, tc := range tests {
		if got := goldCheckText(tc.a, tc.q); got != tc.want {
			t.Errorf("goldCheckText(%d/%d, min %.2f) = %q, want %q", tc.a.GoldCorrect, tc.a.GoldItems, tc.q.GoldMinAccuracy, got, tc.want)
		}
	}
}

// TestDawidSkeneNeedsTwoAnnotators: with one annotator the dashboard
// explains instead of showing Dawid–Skene's estimates.
func TestDawidSkeneNeedsTwoAnnotators(t *testing.T) {
	prior := 0.4
	v := api.QualityView{DSItems: 6, DSIterations: 2, DSConverged: true, DSPrior: &prior}
	if got := dsSummary(v, 1); !strings.Contains(got, "needs two or more annotators") {
		t.Errorf("one annotator: %q", got)
	}
	if got := dsSummary(v, 2); !strings.HasPrefix(got, "Dawid–Skene over 6 judged items") {
		t.Errorf("two annotators: %q", got)
	}
	acc := 0.93
	one := []api.AnnotatorView{{Username: "ann", DSAccuracy: &acc}}
	if html := app.HTMLString(NewAnnotatorTable().Rows(one)); strings.Contains(html, "93%") {
		t.Errorf("the table shows a Dawid–Skene accuracy for a lone annotator")
	}
	two := append(one, api.AnnotatorView{Username: "bo", DSAccuracy: &acc})
	if html := app.HTMLString(NewAnnotatorTable().Rows(two)); !strings.Contains(html, "93%") {
		t.Errorf("the table hides Dawid–Skene accuracies of two annotators")
	}
}

// Issue 25: the project's consensus method is shown as current, the
// majority when a server sends none.
func TestConsensusMethodShownAsCurrent(t *testing.T) {
	for m, want := range map[string]string{
		"":                      api.ConsensusMajority,
		api.ConsensusMajority:   api.ConsensusMajority,
		api.ConsensusDawidSkene: api.ConsensusDawidSkene,
	} {
		if got := ConsensusMethodOrDefault(m); got != want {
			t.Errorf("method %q: %q, want %q", m, got, want)
		}
	}
	if got := ConsensusMethodName(api.ConsensusDawidSkene); !strings.HasPrefix(got, "Dawid–Skene") {
		t.Errorf("Dawid–Skene named %q", got)
	}
	if got := ConsensusMethodName(""); !strings.HasPrefix(got, "Majority") {
		t.Errorf("unset method named %q", got)
	}
}
