package live_test

import (
	"math/rand/v2"
	"testing"

	"boolpool/server/consensus"
	"boolpool/server/devtools/synth"
	"boolpool/server/live"
)

// The scale: 2,000 queries × 10 runs × 100k judgments.
var benchSpec = synth.LiveSpec{Queries: 2000, Runs: 10, Judgments: 100_000, Raters: 3, Annotator: 30, Seed: 1}

// changeOne rewrites one rater's vote on a random item.
func changeOne(rng *rand.Rand, d *live.Data) (int64, []consensus.Vote) {
	it := d.Items[rng.IntN(len(d.Items))]
	votes := append([]consensus.Vote(nil), d.Votes[it.ID]...)
	if len(votes) > 0 {
		i := rng.IntN(len(votes))
		votes[i].Label = rng.IntN(4)
	}
	d.Votes[it.ID] = votes
	return it.ID, votes
}

// BenchmarkApplyJudgment: the in-memory update of every metric and
// agreement figure after one new judgment (no snapshot).
func BenchmarkApplyJudgment(b *testing.B) { benchmarkApply(b, false) }

// BenchmarkApplyAndSnapshot adds building the dashboard snapshot (with
// bootstrap intervals), as a publish does.
func BenchmarkApplyAndSnapshot(b *testing.B) { benchmarkApply(b, true) }

// benchmarkApply changes one vote per round on the issue-scale project,
// and builds the snapshot after it when snapshot is set.
func benchmarkApply(b *testing.B, snapshot bool) {
	d := synth.Live(benchSpec)
	s := live.Build(d)
	rng := rand.New(rand.NewPCG(2, 2))
	b.ResetTimer()
	for b.Loop() {
		id, votes := changeOne(rng, &d)
		s.SetItem(id, votes, nil)
		if snapshot {
			_ = s.Snapshot("bench")
		}
	}
}

// BenchmarkRecompute is the from-scratch reference.
func BenchmarkRecompute(b *testing.B) {
	d := synth.Live(benchSpec)
	for b.Loop() {
		_ = live.Recompute("bench", d)
	}
}

// BenchmarkBuild is the cost of loading a project's state (once).
func BenchmarkBuild(b *testing.B) {
	d := synth.Live(benchSpec)
	for b.Loop() {
		_ = live.Build(d)
	}
}

func TestSyntheticSize(t *testing.T) {
	d := synth.Live(synth.LiveSpec{Queries: 200, Runs: 10, Judgments: 10_000, Raters: 3, Annotator: 30, Seed: 1})
	n := 0
	for _, v := range d.Votes {
		n += len(v)
	}
	if n != 10_000 || len(d.Runs) != 10 || len(d.Queries) != 200 || len(d.Runs[0].Ranked[1]) != live.RankDepth {
		t.Fatalf("synthetic: %d judgments, %d runs, %d queries, %d ranked", n, len(d.Runs), len(d.Queries), len(d.Runs[0].Ranked[1]))
	}
	live.CompareSnapshots(t, "synthetic", live.Build(d).Snapshot("p"), live.Recompute("p", d))
}
