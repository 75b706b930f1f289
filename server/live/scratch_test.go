package live

import (
	"slices"
	"sort"
	"time"

	"boolpool/server/agreement"
	"boolpool/server/consensus"
	"boolpool/server/metrics"
)

// Recompute computes the snapshot of d from scratch with the agreement and
// metrics packages, independently of the incremental State. It is the
// oracle the incremental figures are tested (and BenchmarkRecompute
// timed) against; a test file, so the product never links it. Version is 0.
func Recompute(project string, d Data) Snapshot {
	specs := Specs()
	out := Snapshot{Project: project, At: time.Now().UTC(),
		Bootstrap: BootstrapParameters{Method: "poisson-percentile", Resamples: Resamples, Level: Level}}
	raters := max(d.RatersPerItem, 1)
	qByID := map[int64]Query{}
	for _, q := range d.Queries {
		qByID[q.ID] = q
	}
	items := make([]Item, 0, len(d.Items))
	seen := map[int64]bool{}
	for _, it := range d.Items {
		if _, ok := qByID[it.QueryID]; ok && !seen[it.ID] {
			seen[it.ID] = true
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })

	// Consensus.
	decisions := map[int64]consensus.Decision{}
	qrels := metrics.Qrels{}
	for _, it := range items {
		dec, ok := d.decide(it.ID)
		if !ok {
			continue
		}
		decisions[it.ID] = dec
		q := qByID[it.QueryID].ExtID
		if qrels[q] == nil {
			qrels[q] = map[string]int{}
		}
		qrels[q][it.DocExtID] = dec.Relevance
		out.Consensus.Items++
		switch dec.Status {
		case consensus.StatusUnanimous:
			if dec.Votes == 1 {
				out.Consensus.Single++
			} else {
				out.Consensus.Unanimous++
			}
		case consensus.StatusMajority:
			out.Consensus.Majority++
		case consensus.StatusTie:
			out.Consensus.Tie++
		case consensus.StatusAdjudicated:
			out.Consensus.Adjudicated++
		}
		if dec.NeedsAdjudication {
			out.Consensus.Queue++
		}
		if dec.Relevant() {
			out.Consensus.Relevant++
		}
	}

	out.Agreement, out.Annotators = recomputeAgreement(d, items, raters)
	var dsIn []dsInput
	for _, it := range items { // by id
		votes := slices.Clone(d.Votes[it.ID])
		if len(votes) == 0 {
			continue
		}
		sort.Slice(votes, func(a, b int) bool { return votes[a].Rater < votes[b].Rater })
		var adj *int
		if a, ok := d.Adjudicated[it.ID]; ok {
			adj = &a
		}
		dsIn = append(dsIn, dsInput{votes: votes, known: knownOf(adj, it.Gold), adjudged: adj != nil, majority: decisions[it.ID].Relevant()})
	}
	out.Quality = qualityOf(d.Quality, out.Annotators, runDS(dsIn))
	out.Leaderboard, out.Templates, out.Operators = recomputeMetrics(d, specs, qrels)

	// Runs that found each item.
	foundBy := func(it Item) []int {
		var rs []int
		for r, run := range d.Runs {
			if len(it.Sources) > 0 {
				if slices.Contains(it.Sources, run.Name) {
					rs = append(rs, r)
				}
			} else if slices.Contains(run.Ranked[it.QueryID], it.DocExtID) {
				rs = append(rs, r)
			}
		}
		return rs
	}

	// Progress.
	p := PoolProgress{Queries: []QueryProgress{}, Runs: []RunProgress{}}
	qItems, qJudged := map[int64]int{}, map[int64]int{}
	runItems, runJudged := make([]int, len(d.Runs)), make([]int, len(d.Runs))
	relFound, relUnique := make([]int, len(d.Runs)), make([]int, len(d.Runs))
	overlap, poolOverlap := make([][]int, len(d.Runs)), make([][]int, len(d.Runs))
	for i := range overlap {
		overlap[i], poolOverlap[i] = make([]int, len(d.Runs)), make([]int, len(d.Runs))
	}
	var contradicted []int64
	for _, it := range items {
		fb := foundBy(it)
		_, adjudicated := d.Adjudicated[it.ID]
		complete := adjudicated || len(d.Votes[it.ID]) >= raters
		p.Items++
		qItems[it.QueryID]++
		for _, r := range fb {
			runItems[r]++
			for _, r2 := range fb {
				poolOverlap[r][r2]++
			}
		}
		if complete {
			p.Judged++
			qJudged[it.QueryID]++
			for _, r := range fb {
				runJudged[r]++
			}
		}
		dec, ok := decisions[it.ID]
		if ok && dec.Relevant() {
			for _, r := range fb {
				relFound[r]++
				for _, r2 := range fb {
					overlap[r][r2]++
				}
			}
			if len(fb) == 1 {
				relUnique[fb[0]]++
			}
		}
		if ok && dec.Contradictions > 0 {
			contradicted = append(contradicted, it.ID)
		}
	}
	p.Remaining = p.Items - p.Judged
	for _, q := range d.Queries {
		n := qItems[q.ID]
		if n == 0 {
			continue
		}
		p.QueriesTotal++
		if qJudged[q.ID] == n {
			p.QueriesComplete++
		} else if len(p.Queries) < listCap {
			p.Queries = append(p.Queries, QueryProgress{QueryID: q.ID, ExtID: q.ExtID, Items: n, Judged: qJudged[q.ID], Remaining: n - qJudged[q.ID]})
		}
	}
	for r, run := range d.Runs {
		p.Runs = append(p.Runs, RunProgress{Run: run.Name, Items: runItems[r], Judged: runJudged[r], Remaining: runItems[r] - runJudged[r]})
	}
	out.Progress = p

	// Contradictions, newest item first.
	byID := map[int64]Item{}
	for _, it := range items {
		byID[it.ID] = it
	}
	sort.Slice(contradicted, func(i, j int) bool { return contradicted[i] > contradicted[j] })
	out.Contradictions = ContradictionList{Total: len(contradicted), Items: []ContradictionView{}}
	for _, id := range contradicted[:min(len(contradicted), listCap)] {
		it := byID[id]
		cv := ContradictionView{ItemID: id, QueryExtID: qByID[it.QueryID].ExtID, DocExtID: it.DocExtID, Raters: []string{}}
		vs := append([]consensus.Vote(nil), d.Votes[id]...)
		sort.Slice(vs, func(a, b int) bool { return vs[a].Rater < vs[b].Rater })
		for _, v := range vs {
			if v.Contradiction {
				cv.Raters = append(cv.Raters, nameOf(d.Users, v.Rater))
			}
		}
		out.Contradictions.Items = append(out.Contradictions.Items, cv)
	}

	out.Composition = CompositionView{Runs: []RunComposition{}, Overlap: overlap, PoolOverlap: poolOverlap}
	for r, run := range d.Runs {
		out.Composition.Runs = append(out.Composition.Runs, RunComposition{Run: run.Name, Relevant: relFound[r], Unique: relUnique[r]})
	}
	return out
}

func nameOf(users map[int64]string, id int64) string {
	s := &State{users: users}
	return s.userName(id)
}

func recomputeAgreement(d Data, items []Item, raters int) (AgreementView, []AnnotatorView) {
	var ids []int64
	col := map[int64]int{}
	for _, it := range items {
		for _, v := range d.Votes[it.ID] {
			if _, ok := col[v.Rater]; !ok {
				col[v.Rater] = 0
				ids = append(ids, v.Rater)
			}
		}
	}
	slices.Sort(ids)
	for i, id := range ids {
		col[id] = i
	}
	var ratings agreement.Ratings
	var fleiss [][]int
	var goldRows []Item
	var goldRatings agreement.Ratings
	for _, it := range items {
		vs := d.Votes[it.ID]
		if len(vs) == 0 {
			continue
		}
		row := make([]int, len(ids))
		for i := range row {
			row[i] = agreement.Missing
		}
		counts := make([]int, Labels)
		for _, v := range vs {
			row[col[v.Rater]] = v.Label
			counts[v.Label]++
		}
		ratings = append(ratings, row)
		if len(vs) == raters && raters >= 2 {
			fleiss = append(fleiss, counts)
		}
		if it.Gold >= 0 {
			goldRows = append(goldRows, it)
			goldRatings = append(goldRatings, row)
		}
	}
	v := AgreementView{Confusion: agreement.PooledConfusion(ratings, Labels)}
	for _, row := range ratings {
		n := 0
		for _, x := range row {
			if x != agreement.Missing {
				n++
			}
		}
		v.RatedItems++
		if n >= 2 {
			v.PairedItems++
		}
	}
	if len(fleiss) > 0 {
		v.FleissKappa = num(agreement.FleissKappaCounts(fleiss))
	}
	v.FleissItems = len(fleiss)
	v.AlphaNominal = num(agreement.KrippendorffAlpha(ratings, agreement.Nominal))
	v.AlphaOrdinal = num(agreement.KrippendorffAlpha(ratings, agreement.Ordinal))
	v.GwetAC1 = num(agreement.GwetAC1(ratings, Labels))
	share, n := agreement.UnanimousBinarised(ratings, MinRel)
	v.Unanimous, v.UnanimousItems = num(share), n
	_, mean := agreement.PairwiseCohen(ratings)
	v.MeanCohenKappa = num(mean)

	annotators := []AnnotatorView{}
	for _, rs := range agreement.PerRater(ratings) {
		id := ids[rs.Rater]
		a := AnnotatorView{UserID: id, Username: nameOf(d.Users, id), Items: rs.Items, Kappa: num(rs.Kappa), Agree: num(rs.Agree)}
		labels := make([]int, len(goldRows))
		gold := make([]int, len(goldRows))
		for i, it := range goldRows {
			labels[i] = goldRatings[i][rs.Rater]
			gold[i] = it.Gold
		}
		exact, binary, gn := agreement.GoldAccuracy(labels, gold, MinRel)
		a.GoldItems = gn
		if gn > 0 {
			a.GoldExact, a.GoldBinary = num(exact), num(binary)
			a.GoldCorrect = correctOf(binary, gn)
		}
		annotators = append(annotators, a)
	}
	sortAnnotators(annotators)
	return v, annotators
}

func recomputeMetrics(d Data, specs []metrics.Spec, qrels metrics.Qrels) ([]RunScores, []Breakdown, []Breakdown) {
	extOf := map[int64]string{}
	idOf := map[string]int64{}
	labels := map[string][]string{}
	for _, q := range d.Queries {
		extOf[q.ID] = q.ExtID
		idOf[q.ExtID] = q.ID
		labels[q.ExtID] = groupLabels(q)
	}
	negatives := map[string]map[string]bool{}
	for qid, docs := range d.Negatives {
		m := map[string]bool{}
		for _, doc := range docs {
			m[doc] = true
		}
		negatives[extOf[qid]] = m
	}
	board := []RunScores{}
	type tmplRun struct {
		run   string
		means map[string]float64
		n     int
	}
	byTmpl := map[string][]tmplRun{}
	for _, run := range d.Runs {
		ranked := metrics.Ranked{}
		for qid, docs := range run.Ranked {
			if ext, ok := extOf[qid]; ok {
				ranked[ext] = docs
			}
		}
		res := metrics.Evaluate(qrels, ranked, specs, metrics.Options{MinRel: MinRel, Negatives: negatives})
		row := RunScores{Run: run.Name, Queries: res.Count[specs[0].String()]}
		perTmpl := map[string]map[string]float64{}
		tmplN := map[string]int{}
		for _, sp := range specs {
			name := sp.String()
			vals := res.Values(name)
			sc := MetricScore{Measure: name, Queries: res.Count[name]}
			if len(vals) > 0 {
				sc.Mean = num(res.Mean[name])
				// Poisson bootstrap from scratch.
				s := make([]float64, Resamples)
				w := make([]int32, Resamples)
				for _, q := range metrics.SortedKeys(vals) {
					for b, wb := range poissonWeights(idOf[q]) {
						s[b] += float64(wb) * vals[q]
						w[b] += int32(wb)
					}
				}
				if lo, hi, ok := interval(s, w); ok {
					sc.Low, sc.High = num(lo), num(hi)
				}
			}
			row.Scores = append(row.Scores, sc)
			for _, g := range metrics.GroupMeans(vals, labels) {
				if perTmpl[g.Label] == nil {
					perTmpl[g.Label] = map[string]float64{}
				}
				perTmpl[g.Label][name] = g.Mean
				if name == specs[0].String() {
					tmplN[g.Label] = g.N
				}
			}
		}
		row.Scores = append(row.Scores, nevirScore(len(d.NevIRPairs), nevirAccuracy(run, d.Queries, d.NevIRPairs)))
		board = append(board, row)
		for t, means := range perTmpl {
			byTmpl[t] = append(byTmpl[t], tmplRun{run.Name, means, tmplN[t]})
		}
	}
	sortBoard(board)
	groups := map[string]Breakdown{}
	for t, runs := range byTmpl {
		b := Breakdown{Label: t}
		for _, r := range runs {
			b.Queries = max(b.Queries, r.n)
			b.Runs = append(b.Runs, BreakdownRun{Run: r.run, Means: r.means})
		}
		groups[t] = b
	}
	tmpl, ops := splitBreakdowns(groups)
	return board, tmpl, ops
}
