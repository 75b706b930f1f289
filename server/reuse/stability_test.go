package reuse

import (
	"math"
	"testing"
)

// stabilityFixture: three runs, two queries, P@2 with grade >= 2
// relevant; the labels are given as they are (majority, Dawid–Skene and
// the votes of two of the annotators).
//
//	q1  A: x1 x2   B: x2 x3   C: x3 x4      majority x1=2 x2=2 x3=0; DS x3=2
//	q2  A: y1 y2   B: y2 y3   C: y3 y4      majority y1=2 y2=0 y3=2 (DS the same)
//
// votes: ann x1=2 x2=0 x3=0; bob x1=2 x2=2 y1=0 y2=0 y3=0.
func stabilityFixture() StabilityInput {
	it := func(q, d string, maj, ds int, votes ...Vote) JudgedItem {
		return JudgedItem{Query: q, Doc: d, Majority: maj, DawidSkene: ds, Votes: votes}
	}
	ann := func(l int) Vote { return Vote{Annotator: "ann", Label: l} }
	bob := func(l int) Vote { return Vote{Annotator: "bob", Label: l} }
	return StabilityInput{
		Runs: []Run{
			{Name: "A", Ranked: map[string][]string{"q1": {"x1", "x2"}, "q2": {"y1", "y2"}}},
			{Name: "B", Ranked: map[string][]string{"q1": {"x2", "x3"}, "q2": {"y2", "y3"}}},
			{Name: "C", Ranked: map[string][]string{"q1": {"x3", "x4"}, "q2": {"y3", "y4"}}},
		},
		Items: []JudgedItem{
			it("q1", "x1", 2, 2, ann(2), bob(2)), it("q1", "x2", 2, 2, ann(0), bob(2)), it("q1", "x3", 0, 2, ann(0)),
			it("q2", "y1", 2, 2, bob(0)), it("q2", "y2", 0, 0, bob(0)), it("q2", "y3", 2, 2, bob(0)),
		},
		MinRel: 2,
	}
}

func TestStabilityByHand(t *testing.T) {
	in := stabilityFixture()
	in.Specs = specs(t, "p@2")
	in.Resamples, in.Seed = 200, 7
	rep := Stability(in)
	if rep.Queries != 2 || len(rep.Runs) != 3 {
		t.Fatalf("queries %d runs %v", rep.Queries, rep.Runs)
	}

	// Majority, P@2: A (x1 x2) 1 and (y1 y2) .5 → .75; B .5 .5 → .5;
	// C (x3) 0 and (y3) .5 → .25. Dawid–Skene makes x3 relevant: A .75,
	// B 1 .5 → .75, C .5 .5 → .5. τ-b: AB tied under DS, AC and BC
	// concordant: 2/sqrt(3·2). τ_AP (truth = majority): DS ranks A B C
	// (A–B tied, by name); B under A: tied, ½/1; C under A, B: both above
	// C in the majority, 2/2; 2/2·(½ + 1) − 1 = ½.
	cs := rep.Consensus
	if cs.Items != 6 || cs.Differ != 1 {
		t.Errorf("consensus items %d differ %d, want 6, 1", cs.Items, cs.Differ)
	}
	nearPtr(t, "majority vs DS τ", cs.Measures["p@2"].KendallTau, 2/math.Sqrt(6))
	nearPtr(t, "majority vs DS τ_AP", cs.Measures["p@2"].TauAP, .5)

	// ann judged q1 only: own labels A (x1) .5, B 0, C 0; the majority
	// over q1: A 1, B .5, C 0. τ-b: AB, AC concordant, BC tied for ann:
	// 2/sqrt(6). τ_AP: ann ranks A B C; B under A: 1/1; C under A, B: A
	// above C, B–C tied (½): 1.5/2; (1 + .75) − 1 = .75.
	// bob judged both: q1 A 1, B (x2) .5, C 0; q2 all 0 → A .5, B .25,
	// C 0, the majority's order: τ 1, τ_AP 1.
	if len(rep.Annotators) != 2 || rep.Annotators[0].Annotator != "ann" || rep.Annotators[1].Annotator != "bob" {
		t.Fatalf("annotators %+v", rep.Annotators)
	}
	a, b := rep.Annotators[0], rep.Annotators[1]
	if a.Judgments != 3 || a.Queries != 1 || b.Judgments != 5 || b.Queries != 2 {
		t.Errorf("ann %d judgments over %d queries, bob %d over %d; want 3/1, 5/2", a.Judgments, a.Queries, b.Judgments, b.Queries)
	}
	nearPtr(t, "ann τ", a.Measures["p@2"].KendallTau, 2/math.Sqrt(6))
	nearPtr(t, "ann τ_AP", a.Measures["p@2"].TauAP, .75)
	nearPtr(t, "bob τ", b.Measures["p@2"].KendallTau, 1)
	nearPtr(t, "bob τ_AP", b.Measures["p@2"].TauAP, 1)

	// Bootstrap: q1 ranks A > B > C, q2 ties all three; a resample of q2
	// twice ties every run (no τ), any other keeps the full order: τ 1.
	bs := rep.Bootstrap.Measures["p@2"]
	nearPtr(t, "bootstrap mean τ", bs.MeanTau, 1)
	nearPtr(t, "bootstrap p5 τ", bs.P5Tau, 1)
	if rep.Bootstrap.Resamples != 200 || rep.Bootstrap.Seed != 7 {
		t.Errorf("bootstrap %+v", rep.Bootstrap)
	}
}

// Two runs over three queries: A wins q1 and q3, B wins q2, so a
// resample of three queries ranks A first (τ = 1) when it draws q1 or q3
// at least twice, probability 20/27, else B first (τ = −1, 7/27): the
// expected τ is 13/27 and its 5th percentile −1. The mean of 1000
// resamples lies within 4 standard errors of 13/27.
func TestStabilityBootstrap(t *testing.T) {
	in := StabilityInput{
		Runs: []Run{
			{Name: "A", Ranked: map[string][]string{"q1": {"a"}, "q2": {"a"}, "q3": {"a"}}},
			{Name: "B", Ranked: map[string][]string{"q1": {"b"}, "q2": {"b"}, "q3": {"b"}}},
		},
		Items: []JudgedItem{
			{Query: "q1", Doc: "a", Majority: 2, DawidSkene: 2}, {Query: "q1", Doc: "b", Majority: 0, DawidSkene: 0},
			{Query: "q2", Doc: "a", Majority: 0, DawidSkene: 0}, {Query: "q2", Doc: "b", Majority: 2, DawidSkene: 2},
			{Query: "q3", Doc: "a", Majority: 2, DawidSkene: 2}, {Query: "q3", Doc: "b", Majority: 0, DawidSkene: 0},
		},
		Specs: specs(t, "p@1"), MinRel: 2, Resamples: 1000, Seed: 42,
	}
	rep := Stability(in)
	bs := rep.Bootstrap.Measures["p@1"]
	if bs.MeanTau == nil || bs.P5Tau == nil {
		t.Fatalf("bootstrap %+v", bs)
	}
	p := 20.0 / 27
	se := math.Sqrt(4*p*(1-p)) / math.Sqrt(1000)
	if math.Abs(*bs.MeanTau-13.0/27) > 4*se {
		t.Errorf("mean τ %.4f, want 13/27 = %.4f ± %.4f", *bs.MeanTau, 13.0/27, 4*se)
	}
	near(t, "p5 τ", *bs.P5Tau, -1)
	again := Stability(in).Bootstrap.Measures["p@1"]
	if *again.MeanTau != *bs.MeanTau {
		t.Errorf("same seed, mean τ %v then %v", *bs.MeanTau, *again.MeanTau)
	}
	if rep.Consensus.Differ != 0 {
		t.Errorf("differ %d, want 0", rep.Consensus.Differ)
	}
	nearPtr(t, "identical consensus τ", rep.Consensus.Measures["p@1"].KendallTau, 1)
}
