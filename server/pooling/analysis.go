package pooling

import (
	"math"
	"sort"
)

// RunStats is one run's share of a pool.
type RunStats struct {
	Run         string `json:"run"`
	Contributed int    `json:"contributed"` // pool items this run found within the depth
	Unique      int    `json:"unique"`      // items no other run (nor probe) found
}

// Composition summarises a pool: items per run, items found only by one
// run, items only the probes found, and the run overlap matrix
// (Overlap[i][j] = items found by both run i and run j; the diagonal is
// Contributed).
type Composition struct {
	Queries    int        `json:"queries"`
	Items      int        `json:"items"`
	ProbeItems int        `json:"probe_items"`      // items carrying a probe label
	ProbeOnly  int        `json:"probe_only_items"` // items no run found
	Runs       []RunStats `json:"runs"`
	Overlap    [][]int    `json:"overlap"`
	// Cal pools: items a chosen run has within the depth, and items only
	// active learning found.
	FromRuns int `json:"from_runs,omitempty"`
	FromCAL  int `json:"from_cal,omitempty"`
}

// Compose computes a pool's composition; runNames fixes the row order.
func Compose(items []Item, runNames []string) Composition {
	c := Composition{Items: len(items), Runs: make([]RunStats, len(runNames)), Overlap: make([][]int, len(runNames))}
	idx := map[string]int{}
	for i, n := range runNames {
		idx[n] = i
		c.Runs[i].Run = n
		c.Overlap[i] = make([]int, len(runNames))
	}
	queries := map[string]bool{}
	for _, it := range items {
		queries[it.QueryID] = true
		if it.Probe != "" {
			c.ProbeItems++
		}
		switch it.Origin {
		case OriginCAL:
			c.FromCAL++
		case OriginRuns:
			c.FromRuns++
		}
		var found []int
		for r := range it.Sources {
			if i, ok := idx[r]; ok {
				found = append(found, i)
			}
		}
		if len(found) == 0 && it.Origin != OriginCAL && it.Origin != OriginSample {
			c.ProbeOnly++
		}
		if len(found) == 1 && it.Probe == "" {
			c.Runs[found[0]].Unique++
		}
		for _, i := range found {
			c.Runs[i].Contributed++
			for _, j := range found {
				c.Overlap[i][j]++
			}
		}
	}
	c.Queries = len(queries)
	return c
}

// JudgedAtK is the mean over the run's queries of the fraction of its top k
// documents (or of all of them when it has fewer) that are judged.
func JudgedAtK(run Run, judged func(qid, doc string) bool, k int) float64 {
	var sum float64
	n := 0
	for qid, docs := range run.Lists {
		top := docs[:min(k, len(docs))]
		if len(top) == 0 {
			continue
		}
		j := 0
		for _, d := range top {
			if judged(qid, d) {
				j++
			}
		}
		sum += float64(j) / float64(len(top))
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// SimResult is one strategy's outcome in a simulation.
type SimResult struct {
	Strategy string    `json:"strategy"`
	Levels   []float64 `json:"levels"`
	// Mean judgments per query to find Levels[i] of the relevant documents
	// in the pool (over queries whose pool holds at least one relevant).
	MeanJudgments []float64 `json:"mean_judgments"`
	// Summed over those queries.
	TotalJudgments []int `json:"total_judgments"`
	// Relative to the first strategy (the baseline): 1 − total/baseline.
	Saving []float64 `json:"saving_vs_baseline"`
}

// SimSummary describes the simulated pools.
type SimSummary struct {
	Queries       int         `json:"queries"`        // queries with a relevant document in the pool
	PoolSize      int         `json:"pool_size"`      // (query, document) pairs
	PoolRelevant  int         `json:"pool_relevant"`  // relevant pairs in the pool
	QrelsRelevant int         `json:"qrels_relevant"` // relevant pairs in the qrels (pool recall = PoolRelevant / this)
	Baseline      string      `json:"baseline"`
	Results       []SimResult `json:"results"`
}

// Simulate judges every query's depth-k pool in each strategy's order with
// the known relevance as an oracle, and counts the judgments needed to find
// each level (e.g. 0.5, 0.8, 0.9) of the relevant documents the pool holds.
// The first strategy is the baseline for Saving.
func Simulate(qids []string, runs []Run, depth int, rel map[string]map[string]bool, strategies []string, levels []float64, bandit BanditOptions) (SimSummary, error) {
	sum := SimSummary{Results: make([]SimResult, len(strategies))}
	if len(strategies) > 0 {
		sum.Baseline = strategies[0]
	}
	for i, s := range strategies {
		sum.Results[i] = SimResult{Strategy: s, Levels: levels, MeanJudgments: make([]float64, len(levels)), TotalJudgments: make([]int, len(levels))}
	}
	sorted := append([]string(nil), qids...)
	sort.Strings(sorted)
	for _, qid := range sorted {
		sum.QrelsRelevant += len(rel[qid])
		lists := topLists(qid, runs, depth)
		oracle := func(d string) (bool, bool) { return rel[qid][d], true }
		var pool []string
		for si, s := range strategies {
			order, err := Order(lists, Options{Depth: depth, Strategy: s, Bandit: bandit}, oracle)
			if err != nil {
				return SimSummary{}, err
			}
			if si == 0 {
				pool = order
			}
			nrel := 0
			for _, d := range order {
				if rel[qid][d] {
					nrel++
				}
			}
			if nrel == 0 {
				break
			}
			if si == 0 {
				sum.Queries++
				sum.PoolSize += len(pool)
				sum.PoolRelevant += nrel
			}
			for li, l := range levels {
				need := int(math.Ceil(l*float64(nrel) - 1e-9))
				found := 0
				for n, d := range order {
					if rel[qid][d] {
						found++
					}
					if found >= need {
						sum.Results[si].TotalJudgments[li] += n + 1
						break
					}
				}
			}
		}
	}
	for i := range sum.Results {
		sum.Results[i].Saving = make([]float64, len(levels))
		for li := range levels {
			if sum.Queries > 0 {
				sum.Results[i].MeanJudgments[li] = float64(sum.Results[i].TotalJudgments[li]) / float64(sum.Queries)
			}
			if base := sum.Results[0].TotalJudgments[li]; base > 0 {
				sum.Results[i].Saving[li] = 1 - float64(sum.Results[i].TotalJudgments[li])/float64(base)
			}
		}
	}
	return sum, nil
}
