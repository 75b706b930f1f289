// Package live keeps each watched project's dashboard figures — agreement,
// consensus, a leaderboard of runs over the consensus qrels with bootstrap
// intervals, per-template breakdowns, pool progress, constraint
// contradictions and pool composition — in memory, and updates them per
// changed item instead of recomputing them per request. A Hub fans the
// resulting snapshots out to server-sent-event subscribers.
//
// Incremental rules. Every figure is a sum of per-item (agreement,
// progress, composition) or per-query (metrics) contributions. When an
// item's current votes change, its old contribution is subtracted and the
// new one added; when its consensus label changes, only its query is
// re-scored, for every run, and the query's old values are swapped for the
// new ones in the running sums. Agreement sums are kept as integers (the
// coincidence matrix per number of raters, category counts per number of
// ratings), so they never drift; metric means use metrics.Accumulator.
//
// Bootstrap intervals use the Poisson bootstrap (Hanley & MacGibbon 2006):
// resample b gives query q the weight w(q,b) ~ Poisson(1), drawn from a
// hash of the query id and b, so a query keeps its weights as queries come
// and go and each resample's weighted sum moves by w(q,b)·Δ when q's value
// changes. The interval is the percentile interval (type 7 quantiles) of
// the resample means. Recompute computes every figure from scratch with
// the agreement and metrics packages; tests hold the two equal.
package live

import (
	"math"
	"slices"
	"sort"
	"time"

	"boolpool/server/consensus"
	"boolpool/server/metrics"
	"boolpool/server/store"
)

// Parameters of the live figures.
const (
	// RankDepth is how many of each run's results per query are kept
	// (enough for Recall@100 and MRecall@100).
	RankDepth = 100
	// Resamples and Level of the bootstrap intervals.
	Resamples = 1000
	Level     = 0.95
	// Labels is the size of the relevance scale (0–3).
	Labels = 4
	// MinRel: consensus grade >= 2 is relevant (DESIGN §6).
	MinRel = consensus.RelevantThreshold
	// listCap bounds the lists in a snapshot.
	listCap = 200
)

// MeasureList is the leaderboard's per-query measures, in display order:
// f1@20 is QUEST's average set F1 with a run's top 20 as its predicted
// set, violation@100 LogiCoL's logical-consistency violation rate over
// the top RankDepth. NevIR pairwise accuracy (NevIRMeasure) follows them;
// it is a property of a run over pairs of queries, not a mean over queries.
const MeasureList = "ndcg@10,mrr@10,p@10,recall@100,mrecall@100,f1@20,negrecall@10,violation@100,judged@10"

// NevIRMeasure names NevIR pairwise accuracy on the leaderboard. It is
// computed from the imported NevIR pairs, which carry their own answers,
// so it does not change with judgments.
const NevIRMeasure = "nevir-accuracy"

// Specs parses MeasureList.
func Specs() []metrics.Spec {
	s, err := metrics.ParseSpecs(MeasureList)
	if err != nil {
		panic(err) // a constant list: caught by any test
	}
	return s
}

// Query is a project's query. Operators are those of its expression (AND,
// OR, NOT; ATOM for a single constraint), for the per-operator breakdown.
type Query struct {
	ID        int64
	ExtID     string
	Template  string
	Operators []string
}

// Run is a run with its ranked documents per query id (top RankDepth, in
// trec_eval order).
type Run struct {
	Name   string
	Ranked map[int64][]string
}

// Item is a relevance item. Gold is the gold label or -1. Sources are the
// runs that contributed it to its pool (empty = the runs whose ranking of
// the query holds the document).
type Item struct {
	ID       int64
	QueryID  int64
	DocExtID string
	Gold     int
	Sources  []string
}

// Data is everything a project's state is built from.
type Data struct {
	RatersPerItem int
	Queries       []Query
	Runs          []Run
	Negatives     map[int64][]string // query id → explicit negatives
	Items         []Item
	Votes         map[int64][]consensus.Vote // item id → current votes
	Adjudicated   map[int64]int              // item id → latest adjudication
	Users         map[int64]string
	NevIRPairs    []NevIRPair
	Quality       store.QualitySettings // the gold check
}

// NevIRPair is one imported NevIR pair: Doc1 answers query Q1 only and
// Doc2 query Q2 only (query ids).
type NevIRPair struct {
	Q1, Q2     int64
	Doc1, Doc2 string
}

type item struct {
	id      int64
	qi      int
	doc     string
	gold    int
	foundBy []int
	votes   []consensus.Vote // sorted by rater
	adj     *int
	dec     consensus.Decision
	has     bool
}

func (it *item) complete(raters int) bool { return it.adj != nil || len(it.votes) >= raters }

type bootSums struct {
	s []float64
	w []int32
	// The last interval, reused by snapshots until the sums change.
	fresh   bool
	lo, hi  float64
	defined bool
}

// interval returns the sums' percentile interval, cached.
func (b *bootSums) interval() (lo, hi float64, ok bool) {
	if !b.fresh {
		b.lo, b.hi, b.defined = interval(b.s, b.w)
		b.fresh = true
	}
	return b.lo, b.hi, b.defined
}

type runState struct {
	acc    *metrics.Accumulator
	groups []*metrics.Accumulator // per breakdown label
	boot   []bootSums             // per spec
}

type raterStats struct {
	items, same, comps           int
	goldN, goldExact, goldBinary int
}

type pairKey struct{ a, b int64 }

// State is one project's live figures. Not safe for concurrent use: the
// Service serialises access.
type State struct {
	raters  int
	version uint64
	specs   []metrics.Spec
	names   []string // spec names

	queries   []Query
	qIndex    map[int64]int
	groups    []string // breakdown labels: "template:…", "operator:…"
	qGroups   [][]int  // per query: its group indexes
	runs      []string
	ranked    [][][]string // [run][query]
	hasRank   [][]bool
	negatives []map[string]bool
	judged    []map[string]int
	weights   [][]uint8 // [query][resample]
	perRun    []runState
	nevirN    int       // NevIR pairs of the project
	nevirAcc  []float64 // per run: NevIR pairwise accuracy (runs are fixed in a state)

	items map[int64]*item
	users map[int64]string

	// agreement sums (integers: no drift)
	rated, paired     int
	fleissN, fleissSq int
	fleissTot         [Labels]int
	coinc             map[int]*[Labels][Labels]int // votes per item → ordered pair counts
	gwetPi            map[int]*[Labels]int         // votes per item → category counts
	gwetPa            map[int]int                  // votes per item → Σ n(n−1)
	gwetPaired        int
	unanN, unanYes    int
	confusion         [Labels][Labels]int
	raterStats        map[int64]*raterStats
	pairs             map[pairKey]*[Labels][Labels]int

	// consensus summary
	decided, relevant, queue int
	single                   int // unanimous items with one vote: counted apart, not as unanimous
	status                   map[string]int
	contradicted             map[int64]*item

	// progress
	qItems, qJudged       []int
	runItems, runJudged   []int
	itemsTotal, itemsDone int

	// composition
	relFound, relUnique []int
	overlap             [][]int
	poolOverlap         [][]int

	// quality control (quality.go)
	quality   store.QualitySettings
	ds        dsRun
	dsAt      time.Time // when ds ran (zero: never)
	dsVersion uint64    // the version it ran at
	dsTook    time.Duration
	dsEvery   time.Duration // < 0: the DSCost rule
}

// Build makes a project's state from its data.
func Build(d Data) *State {
	s := &State{
		raters: max(d.RatersPerItem, 1), specs: Specs(),
		qIndex: map[int64]int{}, items: map[int64]*item{}, users: map[int64]string{},
		coinc: map[int]*[Labels][Labels]int{}, gwetPi: map[int]*[Labels]int{}, gwetPa: map[int]int{},
		raterStats: map[int64]*raterStats{}, pairs: map[pairKey]*[Labels][Labels]int{},
		status: map[string]int{}, contradicted: map[int64]*item{},
		quality: d.Quality, dsEvery: -1,
	}
	for _, sp := range s.specs {
		s.names = append(s.names, sp.String())
	}
	for id, n := range d.Users {
		s.users[id] = n
	}
	groupIndex := map[string]int{}
	for qi, q := range d.Queries {
		s.queries = append(s.queries, q)
		s.qIndex[q.ID] = qi
		var gs []int
		for _, label := range groupLabels(q) {
			g, ok := groupIndex[label]
			if !ok {
				g = len(s.groups)
				groupIndex[label] = g
				s.groups = append(s.groups, label)
			}
			gs = append(gs, g)
		}
		s.qGroups = append(s.qGroups, gs)
		s.weights = append(s.weights, poissonWeights(q.ID))
		s.judged = append(s.judged, map[string]int{})
		neg := map[string]bool{}
		for _, doc := range d.Negatives[q.ID] {
			neg[doc] = true
		}
		s.negatives = append(s.negatives, neg)
	}
	nq := len(s.queries)
	s.qItems, s.qJudged = make([]int, nq), make([]int, nq)
	for _, r := range d.Runs {
		s.runs = append(s.runs, r.Name)
		ranked := make([][]string, nq)
		has := make([]bool, nq)
		for qid, docs := range r.Ranked {
			if qi, ok := s.qIndex[qid]; ok {
				ranked[qi], has[qi] = docs, true
			}
		}
		s.ranked = append(s.ranked, ranked)
		s.hasRank = append(s.hasRank, has)
		rs := runState{acc: metrics.NewAccumulator(), boot: make([]bootSums, len(s.specs))}
		for range s.groups {
			rs.groups = append(rs.groups, metrics.NewAccumulator())
		}
		for m := range rs.boot {
			rs.boot[m] = bootSums{s: make([]float64, Resamples), w: make([]int32, Resamples)}
		}
		s.perRun = append(s.perRun, rs)
	}
	s.nevirN = len(d.NevIRPairs)
	for _, r := range d.Runs {
		s.nevirAcc = append(s.nevirAcc, nevirAccuracy(r, d.Queries, d.NevIRPairs))
	}
	nr := len(s.runs)
	s.runItems, s.runJudged = make([]int, nr), make([]int, nr)
	s.relFound, s.relUnique = make([]int, nr), make([]int, nr)
	s.overlap, s.poolOverlap = make([][]int, nr), make([][]int, nr)
	for i := range s.overlap {
		s.overlap[i], s.poolOverlap[i] = make([]int, nr), make([]int, nr)
	}
	for _, it := range d.Items {
		s.AddItem(it)
	}
	dirty := map[int]bool{}
	for _, it := range d.Items {
		votes, adj := d.Votes[it.ID], (*int)(nil)
		if a, ok := d.Adjudicated[it.ID]; ok {
			adj = &a
		}
		if len(votes) == 0 && adj == nil {
			continue
		}
		if qi, changed := s.setItem(it.ID, votes, adj); changed {
			dirty[qi] = true
		}
	}
	for qi := range dirty {
		s.rescore(qi)
	}
	s.version = 0
	return s
}

// Version counts applied changes since Build.
func (s *State) Version() uint64 { return s.version }

// HasItem reports whether the item is registered.
func (s *State) HasItem(id int64) bool { _, ok := s.items[id]; return ok }

// HasQuery reports whether the query is known.
func (s *State) HasQuery(id int64) bool { _, ok := s.qIndex[id]; return ok }

// SetUser records a rater's name.
func (s *State) SetUser(id int64, name string) { s.users[id] = name }

// HasUser reports whether a rater's name is known.
func (s *State) HasUser(id int64) bool { _, ok := s.users[id]; return ok }

// AddItem registers a relevance item (without votes). Items of unknown
// queries and repeats are ignored.
func (s *State) AddItem(in Item) {
	qi, ok := s.qIndex[in.QueryID]
	if !ok || s.items[in.ID] != nil {
		return
	}
	it := &item{id: in.ID, qi: qi, doc: in.DocExtID, gold: in.Gold}
	if len(in.Sources) > 0 {
		for r, name := range s.runs {
			if slices.Contains(in.Sources, name) {
				it.foundBy = append(it.foundBy, r)
			}
		}
	} else {
		for r := range s.runs {
			if slices.Contains(s.ranked[r][qi], in.DocExtID) {
				it.foundBy = append(it.foundBy, r)
			}
		}
	}
	s.items[in.ID] = it
	s.qItems[qi]++
	s.itemsTotal++
	for _, r := range it.foundBy {
		s.runItems[r]++
		for _, r2 := range it.foundBy {
			s.poolOverlap[r][r2]++
		}
	}
	s.version++
}

// SetItem replaces an item's current votes and adjudication and updates
// every figure. It reports whether the item is known.
func (s *State) SetItem(id int64, votes []consensus.Vote, adj *int) bool {
	if _, ok := s.items[id]; !ok {
		return false
	}
	if qi, changed := s.setItem(id, votes, adj); changed {
		s.rescore(qi)
	}
	s.version++
	return true
}

// setItem swaps the item's contributions and reports whether its
// consensus label changed (its query must then be re-scored).
func (s *State) setItem(id int64, votes []consensus.Vote, adj *int) (qi int, labelChanged bool) {
	it := s.items[id]
	oldHas, oldRel := it.has, it.dec.Relevance
	s.contribute(it, -1)
	it.votes = append(it.votes[:0:0], votes...)
	sort.Slice(it.votes, func(a, b int) bool { return it.votes[a].Rater < it.votes[b].Rater })
	it.adj = nil
	if adj != nil {
		a := *adj
		it.adj = &a
	}
	it.dec, it.has = consensus.Decide(it.votes, it.adj)
	s.contribute(it, +1)
	if it.has == oldHas && (!it.has || it.dec.Relevance == oldRel) {
		return it.qi, false
	}
	if it.has {
		s.judged[it.qi][it.doc] = it.dec.Relevance
	} else {
		delete(s.judged[it.qi], it.doc)
	}
	return it.qi, true
}

// contribute adds (sign +1) or removes (−1) an item's share of every
// per-item sum.
func (s *State) contribute(it *item, sign int) {
	n := len(it.votes)
	var counts [Labels]int
	for _, v := range it.votes {
		if v.Label >= 0 && v.Label < Labels {
			counts[v.Label]++
		}
	}
	// Agreement.
	if n >= 1 {
		s.rated += sign
		pi := s.gwetPi[n]
		if pi == nil {
			pi = &[Labels]int{}
			s.gwetPi[n] = pi
		}
		for c, k := range counts {
			pi[c] += sign * k
		}
	}
	if n >= 2 {
		s.paired += sign
		sq, pa := 0, 0
		co := s.coinc[n]
		if co == nil {
			co = &[Labels][Labels]int{}
			s.coinc[n] = co
		}
		for c, k := range counts {
			sq += k * k
			pa += k * (k - 1)
			for d, l := range counts {
				pairs := k * l
				if c == d {
					pairs = k * (k - 1)
				}
				co[c][d] += sign * pairs
				s.confusion[c][d] += sign * pairs
			}
		}
		s.gwetPa[n] += sign * pa
		s.gwetPaired += sign
		if n == s.raters {
			s.fleissN += sign
			s.fleissSq += sign * (sq - n)
			for c, k := range counts {
				s.fleissTot[c] += sign * k
			}
		}
		s.unanN += sign
		if it.dec.RelevantVotes == 0 || it.dec.RelevantVotes == n {
			s.unanYes += sign
		}
	}
	for i, v := range it.votes {
		rs := s.raterStats[v.Rater]
		if rs == nil {
			rs = &raterStats{}
			s.raterStats[v.Rater] = rs
		}
		rs.items += sign
		rs.comps += sign * (n - 1)
		if v.Label >= 0 && v.Label < Labels {
			rs.same += sign * (counts[v.Label] - 1)
		}
		if it.gold >= 0 {
			rs.goldN += sign
			if v.Label == it.gold {
				rs.goldExact += sign
			}
			if (v.Label >= MinRel) == (it.gold >= MinRel) {
				rs.goldBinary += sign
			}
		}
		for _, w := range it.votes[i+1:] {
			k := pairKey{v.Rater, w.Rater} // votes are sorted by rater
			m := s.pairs[k]
			if m == nil {
				m = &[Labels][Labels]int{}
				s.pairs[k] = m
			}
			if inScale(v.Label) && inScale(w.Label) {
				m[v.Label][w.Label] += sign
			}
		}
	}
	// Consensus, progress, composition.
	if it.has {
		s.decided += sign
		s.status[it.dec.Status] += sign
		if it.dec.Status == consensus.StatusUnanimous && it.dec.Votes == 1 {
			s.single += sign
		}
		if it.dec.NeedsAdjudication {
			s.queue += sign
		}
		if it.dec.Relevant() {
			s.relevant += sign
			for _, r := range it.foundBy {
				s.relFound[r] += sign
				for _, r2 := range it.foundBy {
					s.overlap[r][r2] += sign
				}
			}
			if len(it.foundBy) == 1 {
				s.relUnique[it.foundBy[0]] += sign
			}
		}
		if it.dec.Contradictions > 0 {
			if sign > 0 {
				s.contradicted[it.id] = it
			} else {
				delete(s.contradicted, it.id)
			}
		}
	}
	if it.complete(s.raters) {
		s.qJudged[it.qi] += sign
		s.itemsDone += sign
		for _, r := range it.foundBy {
			s.runJudged[r] += sign
		}
	}
}

func inScale(l int) bool { return l >= 0 && l < Labels }

// rescore re-evaluates one query for every run and moves the sums.
func (s *State) rescore(qi int) {
	q := s.queries[qi]
	judged := s.judged[qi]
	w := s.weights[qi]
	for r := range s.perRun {
		rs := &s.perRun[r]
		var vals map[string]float64
		if len(judged) > 0 && s.hasRank[r][qi] {
			vals = metrics.EvaluateQuery(s.ranked[r][qi], judged, s.negatives[qi], s.specs, MinRel)
		}
		old, _ := rs.acc.Query(q.ExtID)
		for m, name := range s.names {
			ov, oOK := old[name]
			nv, nOK := vals[name]
			if oOK == nOK && ov == nv {
				continue
			}
			b := &rs.boot[m]
			b.fresh = false
			if oOK {
				for i, wi := range w {
					if wi != 0 {
						b.s[i] -= float64(wi) * ov
						b.w[i] -= int32(wi)
					}
				}
			}
			if nOK {
				for i, wi := range w {
					if wi != 0 {
						b.s[i] += float64(wi) * nv
						b.w[i] += int32(wi)
					}
				}
			}
		}
		if vals == nil {
			rs.acc.Remove(q.ExtID)
			for _, g := range s.qGroups[qi] {
				rs.groups[g].Remove(q.ExtID)
			}
		} else {
			rs.acc.Set(q.ExtID, vals)
			for _, g := range s.qGroups[qi] {
				rs.groups[g].Set(q.ExtID, vals)
			}
		}
	}
}

// poissonCDF returns cdf[k] = P(X <= k) for X ~ Poisson(1), k < 16.
func poissonCDF() []float64 {
	out := make([]float64, 0, 16)
	p, c := math.Exp(-1), 0.0
	for k := 0; k < 16; k++ {
		if k > 0 {
			p /= float64(k)
		}
		c += p
		out = append(out, c)
	}
	return out
}

// poissonWeights draws query id's Poisson(1) weight in every resample.
func poissonWeights(queryID int64) []uint8 {
	cdf := poissonCDF()
	out := make([]uint8, Resamples)
	x := uint64(queryID)*0x9e3779b97f4a7c15 ^ 0x626f6f6c706f6f6c
	for b := range out {
		u := float64(splitmix64(&x)>>11) / (1 << 53)
		k := 0
		for k < len(cdf)-1 && u >= cdf[k] {
			k++
		}
		out[b] = uint8(k)
	}
	return out
}

func splitmix64(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// interval is the percentile interval of the resample means.
func interval(s []float64, w []int32) (lo, hi float64, ok bool) {
	means := make([]float64, 0, len(s))
	for i := range s {
		if w[i] > 0 {
			means = append(means, s[i]/float64(w[i]))
		}
	}
	if len(means) == 0 {
		return 0, 0, false
	}
	sort.Float64s(means)
	a := (1 - Level) / 2
	return metrics.Quantile(means, a), metrics.Quantile(means, 1-a), true
}

// Breakdown label prefixes.
const (
	templatePrefix = "template:"
	operatorPrefix = "operator:"
)

// groupLabels are the breakdown labels of a query (operators deduplicated).
func groupLabels(q Query) []string {
	out := []string{templatePrefix + q.Template}
	seen := map[string]bool{}
	for _, op := range q.Operators {
		if !seen[op] {
			seen[op] = true
			out = append(out, operatorPrefix+op)
		}
	}
	return out
}

// nevirAccuracy is a run's NevIR pairwise accuracy (metrics.NevIRAccuracy
// over the ext ids of the pairs' queries).
func nevirAccuracy(r Run, queries []Query, pairs []NevIRPair) float64 {
	if len(pairs) == 0 {
		return 0
	}
	ext := make(map[int64]string, len(queries))
	for _, q := range queries {
		ext[q.ID] = q.ExtID
	}
	ranked := metrics.Ranked{}
	mp := make([]metrics.NevIRPair, 0, len(pairs))
	for _, p := range pairs {
		q1, q2 := ext[p.Q1], ext[p.Q2]
		ranked[q1], ranked[q2] = r.Ranked[p.Q1], r.Ranked[p.Q2]
		mp = append(mp, metrics.NevIRPair{Query1: q1, Query2: q2, Doc1: p.Doc1, Doc2: p.Doc2})
	}
	return metrics.NevIRAccuracy(ranked, mp)
}
