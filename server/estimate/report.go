package estimate

import (
	"math"
	"runtime"
	"sort"
	"sync"

	"boolpool/server/metrics"
)

// NamedRanking is one run: query → ranked docids, best first.
type NamedRanking struct {
	Name  string
	Lists map[string][]string
}

// RunEstimate is one run's estimates.
type RunEstimate struct {
	Run string `json:"run"`
	// Means: mean over queries; SE = sqrt(Σ_q v_q)/Q, the design variance
	// for this query set. A measure undefined for some queries (plain
	// measures only) is averaged over the queries that have it.
	Means    map[string]Value            `json:"means"`
	PerQuery map[string]map[string]Value `json:"per_query"` // query → measure → value
}

// PairTest compares two runs on one measure.
type PairTest struct {
	Measure     string  `json:"measure"`
	A           string  `json:"a"`
	B           string  `json:"b"`
	Diff        float64 `json:"diff"`        // mean over queries of A − B
	P           float64 `json:"p"`           // paired t-test, two-sided
	PHolm       float64 `json:"p_holm"`      // Holm-adjusted within the measure
	Significant bool    `json:"significant"` // PHolm ≤ 0.05
}

// Report is the outcome of Estimate.
type Report struct {
	Measures         []string         `json:"measures"`
	Runs             []RunEstimate    `json:"runs"` // in the order given
	RelevantPerQuery map[string]Value `json:"relevant_per_query"`
	RelevantTotal    Value            `json:"relevant_total"` // Σ R̂_q, SE sqrt(Σ v_q)
	JudgedRelevant   int              `json:"judged_relevant"`
	JudgedRecall     Value            `json:"judged_recall"` // JudgedRelevant / R̂_total with a delta-method interval
	// Pairs: every pair of runs (A before B in the given order) × measure;
	// paired t-test over queries on the per-query estimates,
	// Holm-corrected within each measure, alpha 0.05.
	Pairs []PairTest `json:"pairs"`
	// Pooled lists the sparse strata estimated from their rate pooled
	// over queries (Input.PoolSparse).
	Pooled []PooledStratum `json:"pooled,omitempty"`
}

// Input of Estimate.
type Input struct {
	Designs map[string]QueryDesign    // query → design
	Judged  map[string]map[string]int // query → doc → grade (judged units; extra judged docs outside the design are ignored)
	Runs    []NamedRanking
	Specs   []metrics.Spec
	MinRel  int // lowest relevant grade; 0 means 1, as in metrics.Options
	// PoolSparse estimates the relevant documents of sparse strata — those
	// whose judged units hold less than one relevant document per query on
	// average, where a query's own Horvitz–Thompson sum is mostly 0 and
	// now and then a huge 1/π — from the relevance rate pooled over all
	// queries (a model-assisted estimate: it assumes the rate of a stratum
	// is alike across queries), and adds the pooled rates' variance
	// (binomial over all their judged units, Jeffreys' rate when none is
	// relevant) to every mean and to R̂, through each mean's change when a
	// rate moves by one standard error. R̂ per query and the means then
	// carry the uncertainty the deep strata share across queries, which
	// per-query jackknives cannot see.
	PoolSparse bool
	// Plugin reports the plug-in ratio estimates (statAP, R@k, nDCG@k as
	// the formulas give them) without the jackknife bias correction.
	Plugin bool
}

// Alpha is the family-wise error rate of Report.Pairs within a measure.
const Alpha = 0.05

// Estimate estimates every run's measures on the queries of in.Designs
// (a run lacking a query scores an empty ranking there) and the number of
// relevant documents, and tests every pair of runs. Judgments of documents
// that are not units of a query's design are ignored (they carry no
// inclusion probability). The work is spread over GOMAXPROCS goroutines,
// one query at a time, all finished before it returns. Deterministic.
func Estimate(in Input) Report {
	minRel := in.MinRel
	if minRel == 0 {
		minRel = 1
	}
	if !in.PoolSparse {
		return estimate(in, minRel, nil)
	}
	pool := pooledRates(in, minRel)
	rep := estimate(in, minRel, pool)
	if len(pool) == 0 {
		return rep
	}
	rep.Pooled = make([]PooledStratum, 0, len(pool))
	extra := make([]map[string]float64, len(rep.Runs))
	for i := range extra {
		extra[i] = map[string]float64{}
	}
	extraR := 0.0
	for _, name := range metrics.SortedKeys(pool) {
		pr := pool[name]
		rep.Pooled = append(rep.Pooled, PooledStratum{Stratum: name, Judged: pr.n, Relevant: pr.k, Rate: pr.rate, SE: pr.se, Queries: pr.queries})
		alt := estimate(in, minRel, shifted(pool, name, minRel))
		for ri := range rep.Runs {
			for _, m := range rep.Measures {
				d := alt.Runs[ri].Means[m].Est - rep.Runs[ri].Means[m].Est
				extra[ri][m] += d * d
			}
		}
		d := alt.RelevantTotal.Est - rep.RelevantTotal.Est
		extraR += d * d
	}
	for ri := range rep.Runs {
		for _, m := range rep.Measures {
			v := rep.Runs[ri].Means[m]
			if v.Plain {
				continue
			}
			rep.Runs[ri].Means[m] = interval(v.Est, v.SE*v.SE+extra[ri][m], 0, 1)
		}
	}
	t := rep.RelevantTotal
	rep.RelevantTotal = interval(t.Est, t.SE*t.SE+extraR, float64(rep.JudgedRelevant), math.Inf(1))
	rep.JudgedRecall = judgedRecall(rep.JudgedRelevant, t.Est, t.SE*t.SE+extraR)
	return rep
}

// pooledRate is a sparse stratum's relevance rate pooled over queries.
type pooledRate struct {
	n, k, queries int
	rate, se      float64
	grades        map[int]float64 // grade → rate of judged units with that grade
}

// PooledStratum reports a stratum estimated from its pooled rate.
type PooledStratum struct {
	Stratum  string  `json:"stratum"`
	Queries  int     `json:"queries"`
	Judged   int     `json:"judged"`
	Relevant int     `json:"relevant"`
	Rate     float64 `json:"rate"`
	SE       float64 `json:"se"`
}

// pooledRates finds the sparse strata (sampled, fewer relevant judged
// units than queries having them) and their pooled rates; the standard
// error uses Jeffreys' rate (k + ½)/(n + 1), so a stratum with no relevant
// unit still has one.
func pooledRates(in Input, minRel int) map[string]pooledRate {
	type acc struct {
		n, k, queries int
		grades        map[int]int
	}
	by := map[string]*acc{}
	for q, d := range in.Designs {
		judged := in.Judged[q]
		for h, st := range d.Strata {
			if st.Sampled >= st.Population {
				continue
			}
			a := by[st.Name]
			if a == nil {
				a = &acc{grades: map[int]int{}}
				by[st.Name] = a
			}
			a.queries++
			seen := map[string]bool{}
			for _, u := range d.Units {
				if u.Stratum != h || seen[u.Doc] {
					continue
				}
				g, ok := judged[u.Doc]
				if !ok {
					continue
				}
				seen[u.Doc] = true
				a.n++
				if g >= minRel {
					a.k++
				}
				a.grades[g]++
			}
		}
	}
	out := map[string]pooledRate{}
	for name, a := range by {
		if a.n == 0 || a.k >= a.queries {
			continue
		}
		jr := (float64(a.k) + 0.5) / (float64(a.n) + 1)
		pr := pooledRate{n: a.n, k: a.k, queries: a.queries, rate: float64(a.k) / float64(a.n),
			se: math.Sqrt(jr * (1 - jr) / float64(a.n)), grades: map[int]float64{}}
		for g, c := range a.grades {
			pr.grades[g] = float64(c) / float64(a.n)
		}
		out[name] = pr
	}
	return out
}

// shifted is pool with stratum name's rate one standard error higher (its
// grades scaled alike; with no relevant unit the shift goes to grade
// minRel).
func shifted(pool map[string]pooledRate, name string, minRel int) map[string]pooledRate {
	out := make(map[string]pooledRate, len(pool))
	for k, v := range pool {
		out[k] = v
	}
	pr := pool[name]
	up := pooledRate{n: pr.n, k: pr.k, queries: pr.queries, rate: pr.rate + pr.se, se: pr.se, grades: map[int]float64{}}
	for g, r := range pr.grades {
		up.grades[g] = r
	}
	if pr.rate > 0 {
		f := (pr.rate + pr.se) / pr.rate
		for g, r := range pr.grades {
			if g >= minRel {
				up.grades[g] = r * f
			}
		}
	} else {
		up.grades[minRel] += pr.se
	}
	out[name] = up
	return out
}

// estimate is Estimate with the given pooled strata (nil: none).
func estimate(in Input, minRel int, pool map[string]pooledRate) Report {
	queries := metrics.SortedKeys(in.Designs)
	nq, nr := len(queries), len(in.Runs)
	names := make([]string, len(in.Specs))
	for i, s := range in.Specs {
		names[i] = s.String()
	}
	// per[r][q] is run r's values on query q.
	per := make([][]map[string]Value, nr)
	for r := range per {
		per[r] = make([]map[string]Value, nq)
	}
	rvals := make([]Value, nq)
	judgedRel := make([]int, nq)

	workers := min(runtime.GOMAXPROCS(0), max(nq, 1))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var theta []float64
			for qi := range next {
				q := queries[qi]
				s := newSamplePooled(in.Designs[q], in.Judged[q], minRel, pool)
				if len(theta) < s.nRows {
					theta = make([]float64, s.nRows)
				}
				rvals[qi] = s.rValue()
				judgedRel[qi] = s.judgedRel
				for r, run := range in.Runs {
					per[r][qi] = s.query(run.Lists[q], in.Specs, minRel, in.Plugin, theta)
				}
			}
		}()
	}
	for qi := range nq {
		next <- qi
	}
	close(next)
	wg.Wait()

	rep := Report{
		Measures:         names,
		RelevantPerQuery: make(map[string]Value, nq),
		Pairs:            []PairTest{},
	}
	total, totalVar := 0.0, 0.0
	for qi, q := range queries {
		rep.RelevantPerQuery[q] = rvals[qi]
		total += rvals[qi].Est
		totalVar += rvals[qi].SE * rvals[qi].SE
		rep.JudgedRelevant += judgedRel[qi]
	}
	rep.RelevantTotal = interval(total, totalVar, float64(rep.JudgedRelevant), math.Inf(1))
	rep.JudgedRecall = judgedRecall(rep.JudgedRelevant, total, totalVar)

	for r, run := range in.Runs {
		re := RunEstimate{
			Run:      run.Name,
			Means:    make(map[string]Value, len(names)),
			PerQuery: make(map[string]map[string]Value, nq),
		}
		for qi, q := range queries {
			re.PerQuery[q] = per[r][qi]
		}
		for i, m := range names {
			re.Means[m] = meanValue(per[r], m, estimated(in.Specs[i].Name))
		}
		rep.Runs = append(rep.Runs, re)
	}
	for _, m := range names {
		rep.Pairs = append(rep.Pairs, pairTests(rep.Runs, queries, m)...)
	}
	return rep
}

// meanValue averages one measure over the queries that have it.
func meanValue(perQuery []map[string]Value, m string, est bool) Value {
	sum, v, n := 0.0, 0.0, 0
	for _, vals := range perQuery {
		x, ok := vals[m]
		if !ok {
			continue
		}
		sum += x.Est
		v += x.SE * x.SE
		n++
	}
	if n == 0 {
		if est {
			return Value{}
		}
		return Value{Plain: true}
	}
	mean := sum / float64(n)
	if !est {
		return Value{Est: mean, Lo: mean, Hi: mean, Plain: true}
	}
	return interval(mean, v/float64(n*n), 0, 1)
}

// judgedRecall is J/T̂ with the delta-method SE J·SE(T̂)/T̂², clipped to
// [0, 1]; 0 with SE 0 when nothing relevant is estimated.
func judgedRecall(judged int, total, totalVar float64) Value {
	if total <= 0 {
		return Value{}
	}
	j := float64(judged)
	est := j / total
	se := j * math.Sqrt(totalVar) / (total * total)
	return interval(est, se*se, 0, 1)
}

// pairTests runs the paired t-test on one measure for every pair of runs
// over the queries both have, then Holm-adjusts the p-values.
func pairTests(runs []RunEstimate, queries []string, m string) []PairTest {
	var out []PairTest
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			var d []float64
			for _, q := range queries {
				a, okA := runs[i].PerQuery[q][m]
				b, okB := runs[j].PerQuery[q][m]
				if okA && okB {
					d = append(d, a.Est-b.Est)
				}
			}
			diff, p := pairedT(d)
			out = append(out, PairTest{Measure: m, A: runs[i].Run, B: runs[j].Run, Diff: diff, P: p})
		}
	}
	ps := make([]float64, len(out))
	for i := range out {
		ps[i] = out[i].P
	}
	for i, adj := range holm(ps) {
		out[i].PHolm = adj
		out[i].Significant = adj <= Alpha
	}
	return out
}

// pairedT is the two-sided paired t-test of the differences d: their mean
// and the p-value of t = mean/(sd/√n) with n−1 degrees of freedom. With
// fewer than two differences p is 1; with no spread p is 1 for a zero
// mean and 0 otherwise.
func pairedT(d []float64) (mean, p float64) {
	n := len(d)
	if n == 0 {
		return 0, 1
	}
	for _, x := range d {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 1
	}
	ss := 0.0
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(n-1))
	if sd <= 1e-12*math.Max(1, math.Abs(mean)) {
		if mean == 0 {
			return mean, 1
		}
		return mean, 0
	}
	t := mean / (sd / math.Sqrt(float64(n)))
	return mean, studentTwoSided(t, float64(n-1))
}

// studentTwoSided is P(|T| ≥ |t|) for Student's t with df degrees of
// freedom: I_{df/(df+t²)}(df/2, 1/2).
func studentTwoSided(t, df float64) float64 {
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b),
// evaluated by its continued fraction (modified Lentz), on the side of
// x where it converges fast.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF is the continued fraction of the incomplete beta function:
// 1/(1+ d1/(1+ d2/(1+ …))) with d_{2m+1} = −(a+m)(a+b+m)x/((a+2m)(a+2m+1))
// and d_{2m} = m(b−m)x/((a+2m−1)(a+2m)).
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	nonZero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	// Modified Lentz: each term num updates c and d and multiplies h by
	// the returned factor.
	c, d := 1.0, 1/nonZero(1-(a+b)*x/(a+1))
	h := d
	step := func(num float64) float64 {
		d = 1 / nonZero(1+num*d)
		c = nonZero(1 + num/c)
		return d * c
	}
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		h *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))                // even
		delta := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))) // odd
		h *= delta
		if math.Abs(delta-1) < 1e-15 {
			break
		}
	}
	return h
}

// holm returns Holm's step-down adjusted p-values, in the input order:
// with p sorted ascending, adj_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)).
func holm(ps []float64) []float64 {
	m := len(ps)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range idx {
		adj := min(1, float64(m-rank)*ps[i])
		running = max(running, adj)
		out[i] = running
	}
	return out
}
