package estimate

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"syscall"
	"testing"
	"time"

	"boolpool/server/metrics"
)

// benchProject is 10 runs × 238 queries: every query has a universe of
// 3,000 documents of which about 60 are relevant, every run ranks 1,000 of
// them (a noisy ordering by a shared relevance signal, so the runs agree
// at the top), and the design takes ranks 1–10 whole, 11–100 at 0.15 and
// 101–1000 at 0.02 (about 75 judged units per query).
func benchProject(tb testing.TB) (Input, metrics.Qrels, []metrics.Ranked) {
	rng := rand.New(rand.NewPCG(238, 10))
	const nq, nr, universe, depth = 238, 10, 3000, 1000
	in := Input{
		Designs: map[string]QueryDesign{},
		Judged:  map[string]map[string]int{},
		Specs:   specs(tb, "ap,ndcg@10,p@10,recall@100"),
	}
	runs := make([]metrics.Ranked, nr)
	for r := range runs {
		runs[r] = metrics.Ranked{}
		in.Runs = append(in.Runs, NamedRanking{Name: fmt.Sprintf("run%d", r), Lists: map[string][]string{}})
	}
	qrels := metrics.Qrels{}
	cfg := SampleConfig{Strata: []RankStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 100, Rate: 0.15}, {From: 101, To: 1000, Rate: 0.02}}}
	for q := range nq {
		qid := fmt.Sprintf("q%d", q)
		docs := make([]string, universe)
		grades := map[string]int{}
		for i := range docs {
			docs[i] = fmt.Sprintf("%s-d%d", qid, i)
			if rng.Float64() < 0.4/(1+float64(i)/20) {
				grades[docs[i]] = 1 + rng.IntN(3)
			}
		}
		var lists [][]string
		for r := range nr {
			// Sort by i + noise: doc i's noisy position.
			type kv struct {
				d string
				s float64
			}
			keyed := make([]kv, universe)
			for i, d := range docs {
				keyed[i] = kv{d, float64(i) * (0.5 + rng.Float64())}
			}
			sort.Slice(keyed, func(i, j int) bool { return keyed[i].s < keyed[j].s })
			list := make([]string, depth)
			for i := range list {
				list[i] = keyed[i].d
			}
			lists = append(lists, list)
			runs[r][qid] = list
			in.Runs[r].Lists[qid] = list
		}
		d := Draw(QueryInput{Query: qid, Lists: lists}, cfg, rng)
		j := map[string]int{}
		for _, u := range d.Units {
			j[u.Doc] = grades[u.Doc]
		}
		in.Designs[qid] = d
		in.Judged[qid] = j
		qrels[qid] = j
	}
	return in, qrels, runs
}

// cpuTime is the process's user + system CPU time: on a shared machine
// the wall time of a benchmark says more about the neighbours.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func plainEvaluate(qrels metrics.Qrels, runs []metrics.Ranked, sp []metrics.Spec) {
	for _, r := range runs {
		metrics.Evaluate(qrels, r, sp, metrics.Options{})
	}
}

// BenchmarkPlainEvaluate is the reference: metrics.Evaluate of the same 10
// runs on the judged units as qrels.
func BenchmarkPlainEvaluate(b *testing.B) {
	in, qrels, runs := benchProject(b)
	b.ResetTimer()
	for b.Loop() {
		plainEvaluate(qrels, runs, in.Specs)
	}
}

// BenchmarkEstimate is the whole Estimate report of 10 runs × 238 queries
// × 4 measures (target ≤ 1 s on 2 cores); x-plain is its time over the
// plain evaluation of the same runs, measured in the same process.
func BenchmarkEstimate(b *testing.B) {
	in, qrels, runs := benchProject(b)
	units := 0
	for _, d := range in.Designs {
		units += len(d.Units)
	}
	start := time.Now()
	const reps = 5
	for range reps {
		plainEvaluate(qrels, runs, in.Specs)
	}
	plain := time.Since(start) / reps
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		Estimate(in)
	}
	cpu := (cpuTime() - cpu0) / time.Duration(b.N)
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(cpu.Microseconds())/1e3, "cpu-ms/report")
	b.ReportMetric(float64(per.Microseconds())/1e3, "ms/report")
	b.ReportMetric(float64(per)/float64(plain), "x-plain")
	b.ReportMetric(float64(units)/float64(len(in.Designs)), "units/query")
}
