package bench

import (
	"context"
	"fmt"
	"math"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/devtools/synth"
)

// QualitySuite measures Dawid–Skene (server/consensus) on simulated
// labelling jobs with a known truth: 8 raters of accuracy 0.95 … 0.55,
// 3–5 binary-relevance votes per item, 30 % relevant items, one seed per
// repeat.
//
//   - recovery error: the mean absolute error of the estimated rater
//     accuracies against the true ones (and the largest), against the
//     naive estimate, each rater's agreement with the majority vote;
//   - consensus accuracy: the share of items whose DS verdict is the
//     truth, against the majority vote's;
//   - EM time per run, against the majority vote over the same items.
func QualitySuite() Suite {
	return Suite{Name: "quality", Run: runQuality}
}

var qualityAccuracies = []float64{0.95, 0.9, 0.85, 0.8, 0.7, 0.65, 0.6, 0.55}

func runQuality(ctx context.Context, env *Env) ([]Row, error) {
	sizes := []int{500, 2000, 20000}
	if env.Quick {
		sizes = []int{500, 2000}
	}
	seeds := max(env.Repeats, 1)
	var rows []Row
	for _, n := range sizes {
		if err := ctx.Err(); err != nil {
			return rows, err
		}
		var maeDS, maxDS, maeMaj, accDS, accMaj, tDS, tMaj, iters []float64
		for seed := range seeds {
			sim := synth.Simulate(synth.SimParams{Seed: uint64(seed + 1), Items: n, Accuracies: qualityAccuracies,
				MinLabels: 3, MaxLabels: 5, Prior: 0.3})
			start := time.Now()
			res := consensus.DawidSkene(sim.Items, consensus.DSOptions{})
			tDS = append(tDS, time.Since(start).Seconds()*1000)
			start = time.Now()
			maj := majorityVerdicts(sim.Items)
			tMaj = append(tMaj, time.Since(start).Seconds()*1000)
			var sum, worst, sumMaj float64
			for i, want := range qualityAccuracies {
				r, ok := res.Rater(int64(i + 1))
				if !ok {
					return rows, fmt.Errorf("quality: rater %d has no estimate", i+1)
				}
				e := math.Abs(r.Accuracy - want)
				sum += e
				worst = math.Max(worst, e)
				sumMaj += math.Abs(agreementWith(sim.Items, maj, int64(i+1)) - want)
			}
			k := float64(len(qualityAccuracies))
			maeDS, maxDS, maeMaj = append(maeDS, sum/k), append(maxDS, worst), append(maeMaj, sumMaj/k)
			accDS, accMaj = append(accDS, sim.DSAccuracy(res)), append(accMaj, sim.MajorityAccuracy())
			iters = append(iters, float64(res.Iterations))
		}
		label := fmt.Sprintf("%d items × 8 raters, 3–5 votes", n)
		mae := Median(maeDS)
		rows = append(rows,
			Row{Suite: "quality", Name: "Dawid–Skene recovery error: mean abs(est − true) rater accuracy, " + label, Value: mae, Unit: "abs err",
				Note: fmt.Sprintf("largest error %.3f (median over %d seeds)", Median(maxDS), seeds)}.
				WithRef("agreement with the majority vote as the estimate", Median(maeMaj)).
				WithTarget("<= 0.05", mae <= 0.05),
			Row{Suite: "quality", Name: "consensus accuracy vs truth: Dawid–Skene, " + label, Value: Median(accDS), Unit: "share", HigherIsBetter: true}.
				WithRef("majority vote", Median(accMaj)).
				WithTarget(">= majority", Median(accDS) >= Median(accMaj)),
			Row{Suite: "quality", Name: "Dawid–Skene EM time, " + label, Value: Median(tDS), Unit: "ms",
				Note: fmt.Sprintf("%.0f iterations (median)", Median(iters))}.
				WithRef("majority vote over the same items", Median(tMaj)),
		)
		fmt.Fprintf(env.Progress, "quality: %d items: DS MAE %.4f (majority-agreement %.4f), consensus %.4f vs %.4f, EM %.1f ms\n",
			n, mae, Median(maeMaj), Median(accDS), Median(accMaj), Median(tDS))
	}
	return rows, nil
}

// majorityVerdicts is each item's majority decision (consensus.Decide).
func majorityVerdicts(items []consensus.DSItem) []bool {
	out := make([]bool, len(items))
	for i, it := range items {
		d, _ := consensus.Decide(it.Votes, nil)
		out[i] = d.Relevant()
	}
	return out
}

// agreementWith is the share of rater id's votes that agree with the
// verdicts: the naive accuracy estimate.
func agreementWith(items []consensus.DSItem, verdicts []bool, id int64) float64 {
	hit, n := 0, 0
	for i, it := range items {
		for _, v := range it.Votes {
			if v.Rater == id {
				n++
				if (v.Label >= consensus.RelevantThreshold) == verdicts[i] {
					hit++
				}
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}
