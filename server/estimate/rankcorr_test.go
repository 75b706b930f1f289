package estimate

import (
	"math"
	"testing"
)

func TestKendallTauAndTauAP(t *testing.T) {
	truth := map[string]float64{"A": 0.4, "B": 0.3, "C": 0.2, "D": 0.1}
	// One swap at the bottom: est order A B D C.
	bottom := map[string]float64{"A": 0.4, "B": 0.3, "C": 0.1, "D": 0.2}
	// One swap at the top: est order B A C D.
	top := map[string]float64{"A": 0.3, "B": 0.4, "C": 0.2, "D": 0.1}
	reversed := map[string]float64{"A": 0.1, "B": 0.2, "C": 0.3, "D": 0.4}
	// With a system only in one scoring (ignored) and a tie in est: C = D.
	tied := map[string]float64{"A": 0.4, "B": 0.3, "C": 0.2, "D": 0.2, "E": 0.9}
	tests := []struct {
		name      string
		got, want float64
	}{
		{"tau identical", KendallTau(truth, truth), 1},
		// 6 pairs, 1 discordant: (5 − 1)/6.
		{"tau one swap bottom", KendallTau(truth, bottom), 4.0 / 6},
		{"tau one swap top", KendallTau(truth, top), 4.0 / 6},
		{"tau reversed", KendallTau(truth, reversed), -1},
		// τ-b: C = 5, D = 0, ties in tied: 1 pair → 5 / sqrt(6·5).
		{"tau-b with a tie", KendallTau(truth, tied), 5 / math.Sqrt(30)},
		{"tau symmetric", KendallTau(tied, truth), 5 / math.Sqrt(30)},
		{"tau-ap identical", TauAP(truth, truth), 1},
		// est order A B D C: i=2 B (A above, right) 1/1; i=3 D (A, B
		// right) 2/2; i=4 C (A, B right, D wrong) 2/3.
		// τ_AP = 2/3 · (1 + 1 + 2/3) − 1 = 7/9.
		{"tau-ap swap bottom", TauAP(truth, bottom), 7.0 / 9},
		// est order B A C D: i=2 A (B above, wrong) 0; i=3 C 2/2; i=4 D
		// 3/3. τ_AP = 2/3 · 2 − 1 = 1/3: a swap at the top costs more.
		{"tau-ap swap top", TauAP(truth, top), 1.0 / 3},
		{"tau-ap reversed", TauAP(truth, reversed), -1},
		// est order A B C D (tie C = D broken by name): i=2 1; i=3 2/2;
		// i=4 D: A, B right, C tied in est → ½: 2.5/3.
		// τ_AP = 2/3 · (1 + 1 + 2.5/3) − 1 = 8/9.
		{"tau-ap with a tie", TauAP(truth, tied), 8.0 / 9},
		{"tau one system", KendallTau(map[string]float64{"A": 1}, map[string]float64{"A": 2}), 0},
		{"tau constant scoring", KendallTau(truth, map[string]float64{"A": 1, "B": 1, "C": 1}), 0},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > 1e-12 {
			t.Errorf("%s: got %.12f, want %.12f", tc.name, tc.got, tc.want)
		}
	}
}
