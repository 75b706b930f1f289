package live

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"boolpool/server/agreement"
	"boolpool/server/consensus"
)

// num turns an undefined coefficient (NaN) into null.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Snapshot assembles the dashboard figures from the running sums (cheap:
// no pass over items or judgments, only over raters, rater pairs, runs,
// templates and the bootstrap resamples).
func (s *State) Snapshot(project string) Snapshot {
	out := Snapshot{
		Project: project, Version: s.version, At: time.Now().UTC(),
		Bootstrap: BootstrapParameters{Method: "poisson-percentile", Resamples: Resamples, Level: Level},
	}
	out.Consensus = ConsensusSummary{Items: s.decided, Unanimous: s.status[consensus.StatusUnanimous] - s.single, Single: s.single,
		Majority: s.status[consensus.StatusMajority], Tie: s.status[consensus.StatusTie],
		Adjudicated: s.status[consensus.StatusAdjudicated], Queue: s.queue, Relevant: s.relevant}
	out.Agreement = s.agreement()
	out.Annotators = s.annotators()
	out.Leaderboard, out.Templates, out.Operators = s.leaderboard()
	out.Progress = s.progress()
	out.Contradictions = s.contradictions()
	out.Composition = s.composition()
	out.Quality = qualityOf(s.quality, out.Annotators, s.dawidSkene())
	return out
}

func (s *State) agreement() AgreementView {
	v := AgreementView{RatedItems: s.rated, PairedItems: s.paired, FleissItems: s.fleissN, UnanimousItems: s.unanN}
	v.Confusion = make([][]int, Labels)
	for c := range Labels {
		v.Confusion[c] = append([]int(nil), s.confusion[c][:]...)
	}
	// Fleiss' κ over the items with exactly raters_per_item ratings.
	if m := s.raters; s.fleissN > 0 && m >= 2 {
		n := float64(s.fleissN)
		pBar := float64(s.fleissSq) / (n * float64(m*(m-1)))
		pe := 0.0
		for _, t := range s.fleissTot {
			p := float64(t) / (n * float64(m))
			pe += p * p
		}
		if pe != 1 {
			v.FleissKappa = num((pBar - pe) / (1 - pe))
		}
	}
	// Krippendorff's α from the coincidence matrix.
	var o [Labels][Labels]float64
	for m, co := range s.coinc {
		if m < 2 {
			continue
		}
		for c := range Labels {
			for k := range Labels {
				o[c][k] += float64(co[c][k]) / float64(m-1)
			}
		}
	}
	v.AlphaNominal = num(alphaFrom(o, false))
	v.AlphaOrdinal = num(alphaFrom(o, true))
	// Gwet's AC1 on the 4-point scale.
	if s.gwetPaired > 0 && s.rated > 0 {
		pa := 0.0
		for r, x := range s.gwetPa {
			if r >= 2 {
				pa += float64(x) / float64(r*(r-1))
			}
		}
		pa /= float64(s.gwetPaired)
		pe := 0.0
		for c := range Labels {
			p := 0.0
			for r, cnt := range s.gwetPi {
				p += float64(cnt[c]) / float64(r)
			}
			p /= float64(s.rated)
			pe += p * (1 - p)
		}
		pe /= float64(Labels - 1)
		if pe != 1 {
			v.GwetAC1 = num((pa - pe) / (1 - pe))
		}
	}
	if s.unanN > 0 {
		v.Unanimous = num(float64(s.unanYes) / float64(s.unanN))
	}
	sum, defined := 0.0, 0
	for _, m := range s.pairs {
		if k, ok := cohen(m); ok {
			sum += k
			defined++
		}
	}
	if defined > 0 {
		v.MeanCohenKappa = num(sum / float64(defined))
	}
	return v
}

// alphaFrom is Krippendorff's α from the incrementally kept coincidence
// matrix, by the agreement package's definition.
func alphaFrom(o [Labels][Labels]float64, ordinal bool) float64 {
	m := make([][]float64, Labels)
	cats := make([]int, Labels)
	for c := range Labels {
		m[c] = o[c][:]
		cats[c] = c
	}
	level := agreement.Nominal
	if ordinal {
		level = agreement.Ordinal
	}
	return agreement.AlphaFromCoincidences(m, cats, level)
}

// cohen is Cohen's κ from a two-rater confusion matrix; ok is false when
// the pair shares no item or κ is undefined.
func cohen(m *[Labels][Labels]int) (float64, bool) {
	n, diag := 0, 0
	var rows, cols [Labels]int
	for c := range Labels {
		for k := range Labels {
			n += m[c][k]
			rows[c] += m[c][k]
			cols[k] += m[c][k]
		}
		diag += m[c][c]
	}
	if n == 0 {
		return 0, false
	}
	fn := float64(n)
	po := float64(diag) / fn
	pe := 0.0
	for c := range Labels {
		pe += (float64(rows[c]) / fn) * (float64(cols[c]) / fn)
	}
	if pe == 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

func (s *State) userName(id int64) string {
	if n, ok := s.users[id]; ok {
		return n
	}
	return fmt.Sprintf("user %d", id)
}

func (s *State) annotators() []AnnotatorView {
	kSum := map[int64]float64{}
	kN := map[int64]int{}
	for p, m := range s.pairs {
		if k, ok := cohen(m); ok {
			kSum[p.a] += k
			kSum[p.b] += k
			kN[p.a]++
			kN[p.b]++
		}
	}
	out := []AnnotatorView{}
	for id, rs := range s.raterStats {
		if rs.items == 0 {
			continue
		}
		a := AnnotatorView{UserID: id, Username: s.userName(id), Items: rs.items, GoldItems: rs.goldN}
		if kN[id] > 0 {
			a.Kappa = num(kSum[id] / float64(kN[id]))
		}
		if rs.comps > 0 {
			a.Agree = num(float64(rs.same) / float64(rs.comps))
		}
		if rs.goldN > 0 {
			a.GoldExact = num(float64(rs.goldExact) / float64(rs.goldN))
			a.GoldBinary = num(float64(rs.goldBinary) / float64(rs.goldN))
			a.GoldCorrect = rs.goldBinary
		}
		out = append(out, a)
	}
	sortAnnotators(out)
	return out
}

func sortAnnotators(a []AnnotatorView) {
	sort.Slice(a, func(i, j int) bool {
		if a[i].Username != a[j].Username {
			return a[i].Username < a[j].Username
		}
		return a[i].UserID < a[j].UserID
	})
}

func (s *State) leaderboard() ([]RunScores, []Breakdown, []Breakdown) {
	board := make([]RunScores, 0, len(s.runs))
	for r, name := range s.runs {
		rs := &s.perRun[r]
		means, counts := rs.acc.Means()
		row := RunScores{Run: name, Queries: counts[s.names[0]]}
		for m, measure := range s.names {
			sc := MetricScore{Measure: measure, Queries: counts[measure]}
			if counts[measure] > 0 {
				sc.Mean = num(means[measure])
				if lo, hi, ok := rs.boot[m].interval(); ok {
					sc.Low, sc.High = num(lo), num(hi)
				}
			}
			row.Scores = append(row.Scores, sc)
		}
		row.Scores = append(row.Scores, nevirScore(s.nevirN, s.nevirAcc[r]))
		board = append(board, row)
	}
	sortBoard(board)
	groups := map[string]Breakdown{}
	for g, label := range s.groups {
		b := Breakdown{Label: label}
		for r, name := range s.runs {
			means, counts := s.perRun[r].groups[g].Means()
			if counts[s.names[0]] == 0 {
				continue
			}
			b.Queries = max(b.Queries, counts[s.names[0]])
			b.Runs = append(b.Runs, BreakdownRun{Run: name, Means: means})
		}
		if len(b.Runs) > 0 {
			groups[label] = b
		}
	}
	tmpl, ops := splitBreakdowns(groups)
	return board, tmpl, ops
}

// nevirScore is the NevIR column of a run: undefined (n/a) without pairs.
func nevirScore(pairs int, acc float64) MetricScore {
	sc := MetricScore{Measure: NevIRMeasure, Queries: pairs}
	if pairs > 0 {
		sc.Mean = num(acc)
	}
	return sc
}

// splitBreakdowns separates template and operator breakdowns (keyed by
// prefixed label), each sorted by label with runs by name.
func splitBreakdowns(groups map[string]Breakdown) (templates, operators []Breakdown) {
	templates, operators = []Breakdown{}, []Breakdown{}
	for label, b := range groups {
		sort.Slice(b.Runs, func(i, j int) bool { return b.Runs[i].Run < b.Runs[j].Run })
		switch {
		case strings.HasPrefix(label, templatePrefix):
			b.Label = strings.TrimPrefix(label, templatePrefix)
			templates = append(templates, b)
		case strings.HasPrefix(label, operatorPrefix):
			b.Label = strings.TrimPrefix(label, operatorPrefix)
			operators = append(operators, b)
		}
	}
	sort.Slice(templates, func(i, j int) bool { return templates[i].Label < templates[j].Label })
	sort.Slice(operators, func(i, j int) bool { return operators[i].Label < operators[j].Label })
	return templates, operators
}

// sortBoard orders the leaderboard by the first measure (nDCG@10), best
// first, runs without scores last, then by name.
func sortBoard(b []RunScores) {
	key := func(r RunScores) float64 {
		if len(r.Scores) == 0 || r.Scores[0].Mean == nil {
			return math.Inf(-1)
		}
		return *r.Scores[0].Mean
	}
	sort.SliceStable(b, func(i, j int) bool {
		ki, kj := key(b[i]), key(b[j])
		if ki != kj {
			return ki > kj
		}
		return b[i].Run < b[j].Run
	})
}

func (s *State) progress() PoolProgress {
	p := PoolProgress{Items: s.itemsTotal, Judged: s.itemsDone, Remaining: s.itemsTotal - s.itemsDone,
		Queries: []QueryProgress{}, Runs: []RunProgress{}}
	for qi, q := range s.queries {
		n := s.qItems[qi]
		if n == 0 {
			continue
		}
		p.QueriesTotal++
		if s.qJudged[qi] == n {
			p.QueriesComplete++
		} else if len(p.Queries) < listCap {
			p.Queries = append(p.Queries, QueryProgress{QueryID: q.ID, ExtID: q.ExtID, Items: n, Judged: s.qJudged[qi], Remaining: n - s.qJudged[qi]})
		}
	}
	for r, name := range s.runs {
		p.Runs = append(p.Runs, RunProgress{Run: name, Items: s.runItems[r], Judged: s.runJudged[r], Remaining: s.runItems[r] - s.runJudged[r]})
	}
	return p
}

// IncompleteQueries lists every query that still has unjudged items, in
// import order (a snapshot lists at most listCap of them).
func (s *State) IncompleteQueries() []QueryProgress {
	out := []QueryProgress{}
	for qi, q := range s.queries {
		n := s.qItems[qi]
		if n == 0 || s.qJudged[qi] == n {
			continue
		}
		out = append(out, QueryProgress{QueryID: q.ID, ExtID: q.ExtID, Items: n, Judged: s.qJudged[qi], Remaining: n - s.qJudged[qi]})
	}
	return out
}

func (s *State) contradictions() ContradictionList {
	ids := make([]int64, 0, len(s.contradicted))
	for id := range s.contradicted {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] > ids[j] })
	out := ContradictionList{Total: len(ids), Items: []ContradictionView{}}
	for _, id := range ids[:min(len(ids), listCap)] {
		it := s.contradicted[id]
		cv := ContradictionView{ItemID: id, QueryExtID: s.queries[it.qi].ExtID, DocExtID: it.doc, Raters: []string{}}
		for _, v := range it.votes {
			if v.Contradiction {
				cv.Raters = append(cv.Raters, s.userName(v.Rater))
			}
		}
		out.Items = append(out.Items, cv)
	}
	return out
}

func (s *State) composition() CompositionView {
	c := CompositionView{Runs: []RunComposition{}, Overlap: make([][]int, len(s.runs)), PoolOverlap: make([][]int, len(s.runs))}
	for r, name := range s.runs {
		c.Runs = append(c.Runs, RunComposition{Run: name, Relevant: s.relFound[r], Unique: s.relUnique[r]})
		c.Overlap[r] = append([]int(nil), s.overlap[r]...)
		c.PoolOverlap[r] = append([]int(nil), s.poolOverlap[r]...)
	}
	return c
}

// RelevantFound lists every consensus-relevant document with the runs
// that found it, in query import order then document id.
func (s *State) RelevantFound() []RelevantFound {
	var out []RelevantFound
	type key struct {
		qi  int
		doc string
	}
	var keys []key
	byKey := map[key]*item{}
	for _, it := range s.items {
		if it.has && it.dec.Relevant() {
			k := key{it.qi, it.doc}
			keys = append(keys, k)
			byKey[k] = it
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].qi != keys[j].qi {
			return keys[i].qi < keys[j].qi
		}
		return keys[i].doc < keys[j].doc
	})
	for _, k := range keys {
		it := byKey[k]
		rf := RelevantFound{QueryExtID: s.queries[k.qi].ExtID, DocExtID: k.doc, Relevance: it.dec.Relevance, Runs: []string{}}
		for _, r := range it.foundBy {
			rf.Runs = append(rf.Runs, s.runs[r])
		}
		out = append(out, rf)
	}
	return out
}
