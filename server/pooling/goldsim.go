package pooling

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"boolpool/server/cal"
	"boolpool/server/vocab"
)

// CAL is continuous active learning (server/cal): not a pool order but a
// review of the whole corpus, seeded by the query text and the query's runs.
const CAL = vocab.StrategyCAL

// GoldStrategies lists the strategies SimulateGold knows, in report order.
func GoldStrategies() []string { return vocab.Strategies(vocab.Gold) }

// GoldQuery is one query of a simulation against all of its gold.
type GoldQuery struct {
	ID    string
	Text  string
	Lists [][]string      // every run's top-depth list
	Rel   map[string]bool // its relevant documents (the oracle)
}

// Sequencer produces one query's judging sequence with the oracle q.Rel.
// limit > 0 is the query's even share of a budget: the sequence need not
// be longer, and a strategy with its own stopping rule ignores the rule and
// goes on to the limit (a finite pool order may be returned whole); 0 means
// until the strategy stops by its own rule or exhausts its pool.
type Sequencer func(ctx context.Context, q GoldQuery, limit int) ([]string, error)

// CALSim configures the cal strategy in a simulation.
type CALSim struct {
	Engine *cal.Engine
	// Knee is the stopping rule when no budget is given.
	Knee cal.KneeOptions
	// MaxPerQuery caps one query's judgments when its rule never fires
	// (0 = the whole corpus).
	MaxPerQuery int
	// SeedRuns judges the top SeedRuns documents of the reciprocal-rank
	// fusion of the query's runs before the first training round (0: the
	// query text alone seeds the review, the fusion serving only while
	// there is nothing to learn from).
	SeedRuns int
	// QueryVec, when set, embeds a query's text for an engine with dense
	// features (cal.Request.QueryVec: the query-cosine feature and the
	// pseudo-document's dense block); nil: none.
	QueryVec func(ctx context.Context, text string) ([]float32, error)
}

// DefaultCALKnee is the stopping rule the simulation uses by default: the
// knee method with threshold 6 from rank 100 (no small-count adjustment),
// and the effort cap: a query also stops once it has 20 judgments per
// relevant found plus 50 (so after 50 with nothing found). On every 8th
// DebQUEST val query this found 0.439 of the gold at 17.1 judgments per
// relevant, against 0.384 at 49.5 for the knee from rank 30 alone (both
// capped at 400 per query).
// The paper's setting (PaperKnee: rank ≥ 150, ρ ≥ 156 − min(R, 150)) is
// meant for collections with hundreds of relevant documents per topic; on
// topics with ~10 it costs ~800 judgments per topic.
func DefaultCALKnee() cal.KneeOptions {
	return cal.KneeOptions{MinRank: 100, Rho: 6, EffortPerRel: 20, EffortBase: 50}
}

// Sequencers returns the named strategies' sequencers. With
// GoldStrategies, this is where a simulation strategy is registered;
// calSim is needed only for "cal".
func Sequencers(names []string, bandit BanditOptions, calSim *CALSim) ([]Sequencer, error) {
	out := make([]Sequencer, len(names))
	for i, name := range names {
		switch name {
		case DocID, Depth, MTF, Bandit:
			opt := Options{Strategy: name, Bandit: bandit, Depth: 1}
			out[i] = func(_ context.Context, q GoldQuery, limit int) ([]string, error) {
				// A pool is finite: the whole order, whatever the limit (the
				// interleaving caps the total at the budget).
				return Order(q.Lists, opt, func(d string) (bool, bool) { return q.Rel[d], true })
			}
		case CAL:
			if calSim == nil || calSim.Engine == nil {
				return nil, fmt.Errorf("pooling: strategy cal needs the project's lexical index")
			}
			c := *calSim
			out[i] = c.sequence
		default:
			return nil, fmt.Errorf("pooling: unknown strategy %q (want one of %v)", name, GoldStrategies())
		}
	}
	return out, nil
}

// sequence runs one query's AutoTAR review with the oracle.
func (c CALSim) sequence(ctx context.Context, q GoldQuery, limit int) ([]string, error) {
	fused := RRF(q.Lists, 60)
	var qvec []float32
	if c.QueryVec != nil {
		var err error
		if qvec, err = c.QueryVec(ctx, q.Text); err != nil {
			return nil, fmt.Errorf("pooling: embed query %s: %w", q.ID, err)
		}
	}
	s := c.Engine.NewSessionVec(q.Text, qvec, fused)
	var seq []string
	judge := func(d string) error {
		if err := s.Judge(d, q.Rel[d]); err != nil {
			return err
		}
		seq = append(seq, d)
		return nil
	}
	maxN := c.MaxPerQuery
	if maxN <= 0 {
		maxN = c.Engine.Features().NumDocs()
	}
	if limit > 0 {
		maxN = limit
	}
	for _, d := range fused[:min(c.SeedRuns, len(fused))] {
		if len(seq) >= maxN {
			return seq, nil
		}
		_ = judge(d) // an error: a run's document missing from the corpus, skipped
	}
	for len(seq) < maxN {
		batch, err := s.Next(ctx)
		if err != nil {
			return nil, err
		}
		if len(batch) == 0 {
			break
		}
		for _, d := range batch[:min(len(batch), maxN-len(seq))] {
			if err := judge(d); err != nil {
				return nil, err
			}
		}
		if limit == 0 && cal.Knee(s.Judgments(), c.Knee).Fired {
			break
		}
	}
	return seq, nil
}

// RRF is the reciprocal-rank fusion of lists (score Σ 1/(k + rank)), ties
// by document id.
func RRF(lists [][]string, k float64) []string {
	score := map[string]float64{}
	for _, l := range lists {
		for r, d := range l {
			score[d] += 1 / (k + float64(r+1))
		}
	}
	out := make([]string, 0, len(score))
	for d := range score {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if score[out[i]] != score[out[j]] {
			return score[out[i]] > score[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// GoldResult is one strategy's outcome against all the gold.
type GoldResult struct {
	Judgments int     `json:"judgments"`
	Found     int     `json:"found"`
	Recall    float64 `json:"recall"`
	// JudgmentsTo maps a share of all gold ("0.9") to the judgments after
	// which it was found, null if never.
	JudgmentsTo map[string]*int `json:"judgments_to"`
	// Curve is (judgments, found) after every round of the interleaving.
	Curve [][2]int `json:"-"`
	// Judged holds, per query (in the order of the queries given), the
	// documents the strategy judged within the budget: what an evaluation
	// of the runs under this strategy's judgments reads.
	Judged []map[string]bool `json:"-"`
}

// GoldSummary is the `pool simulate --json` contract.
type GoldSummary struct {
	Queries    int                   `json:"queries"`
	Gold       int                   `json:"gold"`
	Strategies map[string]GoldResult `json:"strategies"`
	Order      []string              `json:"-"` // strategy names as asked
	Levels     []float64             `json:"-"`
}

// LevelKey is a level's key in JudgmentsTo ("0.5", "0.95").
func LevelKey(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// SimulateGold judges every query with each strategy, the qrels as the
// oracle, and measures recall of ALL the gold of the queries (not of what
// a pool holds). Queries are judged interleaved, one judgment per query per
// turn in query-id order, a query leaving when its sequence ends (its pool
// is exhausted or its stopping rule fired), so judgments_to counts the
// judgments of all queries together. budget > 0 caps each strategy's
// total: the interleaving stops there (unbounded strategies such as cal are
// sequenced up to ceil(budget / queries) per query, their stopping rules
// ignored, which the interleaving then uses up exactly).
//
// The queries are judged in id order: GoldResult.Judged follows it (the
// caller sorts its copy the same way with SortGoldQueries).
func SimulateGold(ctx context.Context, queries []GoldQuery, names []string, seqs []Sequencer, levels []float64, budget int) (GoldSummary, error) {
	qs := append([]GoldQuery(nil), queries...)
	SortGoldQueries(qs)
	sum := GoldSummary{Queries: len(qs), Strategies: map[string]GoldResult{}, Order: names, Levels: levels}
	for _, q := range qs {
		sum.Gold += len(q.Rel)
	}
	limit := 0
	if budget > 0 && len(qs) > 0 {
		limit = (budget + len(qs) - 1) / len(qs)
	}
	for si, name := range names {
		perQuery, err := sequenceAll(ctx, qs, seqs[si], limit)
		if err != nil {
			return GoldSummary{}, fmt.Errorf("strategy %s: %w", name, err)
		}
		sum.Strategies[name] = interleave(qs, perQuery, sum.Gold, levels, budget)
	}
	return sum, nil
}

// SortGoldQueries sorts queries by id, the order SimulateGold judges them in.
func SortGoldQueries(qs []GoldQuery) {
	sort.Slice(qs, func(i, j int) bool { return qs[i].ID < qs[j].ID })
}

// sequenceAll runs seq over every query on GOMAXPROCS workers.
func sequenceAll(ctx context.Context, qs []GoldQuery, seq Sequencer, limit int) ([][]string, error) {
	out := make([][]string, len(qs))
	errs := make([]error, len(qs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = seq(ctx, qs[i], limit)
				if errs[i] != nil {
					cancel()
				}
			}
		}()
	}
	for i := range qs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", qs[i].ID, err)
		}
	}
	return out, ctx.Err()
}

// interleave merges the per-query sequences one judgment per query per
// turn and measures the recall curve against gold.
func interleave(qs []GoldQuery, perQuery [][]string, gold int, levels []float64, budget int) GoldResult {
	r := GoldResult{JudgmentsTo: map[string]*int{}, Curve: [][2]int{{0, 0}}}
	need := make([]int, len(levels))
	for i, l := range levels {
		r.JudgmentsTo[LevelKey(l)] = nil
		need[i] = int(math.Ceil(l*float64(gold) - 1e-9))
	}
	longest := 0
	for _, s := range perQuery {
		longest = max(longest, len(s))
	}
	seen := make([]map[string]bool, len(qs))
	for i := range seen {
		seen[i] = map[string]bool{}
	}
	for n := 0; n < longest; n++ {
		for qi, s := range perQuery {
			if n >= len(s) || (budget > 0 && r.Judgments >= budget) {
				continue
			}
			d := s[n]
			if seen[qi][d] {
				continue // a strategy never pays twice for one document
			}
			seen[qi][d] = true
			r.Judgments++
			if qs[qi].Rel[d] {
				r.Found++
				for li := range levels {
					if r.JudgmentsTo[LevelKey(levels[li])] == nil && r.Found >= need[li] && gold > 0 {
						j := r.Judgments
						r.JudgmentsTo[LevelKey(levels[li])] = &j
					}
				}
			}
		}
		if last := r.Curve[len(r.Curve)-1]; last[0] != r.Judgments {
			r.Curve = append(r.Curve, [2]int{r.Judgments, r.Found})
		}
	}
	if gold > 0 {
		r.Recall = float64(r.Found) / float64(gold)
	}
	r.Judged = seen
	return r
}

// TopLists cuts every run's list for qid to depth, dropping repeats: the
// lists a depth-k pool of the runs is made of.
func TopLists(qid string, runs []Run, depth int) [][]string { return topLists(qid, runs, depth) }
