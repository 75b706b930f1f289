package estimate

import (
	"math"
	"sort"

	"boolpool/server/metrics"
)

// Value is an estimate with its design-based standard error and 95 %
// interval Est ± 1.96·SE (clipped to [0, 1] for AP, P, recall and nDCG and
// to [judged relevant, ∞) for R̂; Est itself is never clipped). Plain marks
// a measure that has no estimator here: Est is then the plain measure over
// the judged documents (unjudged = not relevant), SE is 0 and Lo = Hi =
// Est, which is no interval.
type Value struct {
	Est   float64 `json:"est"`
	SE    float64 `json:"se"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Plain bool    `json:"plain,omitempty"`
}

// z95 is the two-sided 95 % normal quantile.
const z95 = 1.959963984540054

func interval(est, v float64, lo, hi float64) Value {
	se := math.Sqrt(max(v, 0))
	return Value{
		Est: est,
		SE:  se,
		Lo:  min(max(est-z95*se, lo), hi),
		Hi:  max(min(est+z95*se, hi), lo),
	}
}

// estimated reports whether measure name has an estimator here.
func estimated(name string) bool {
	switch name {
	case metrics.MeasureAP, metrics.MeasureP, metrics.MeasureRecall, metrics.MeasureNDCG:
		return true
	}
	return false
}

// repGroup is the replicates of one stratum: rows [from, to) (row 0 is
// the full estimate). coef is (1−f_h)(n_h−1)/n_h, or (1−f_h) for a
// stratum with one judged unit (single), whose one replicate drops the
// stratum.
type repGroup struct {
	from, to int
	coef     float64
	single   bool
}

// rep is jackknife replicate (h, j): unit j gets weight 0 and the other
// units of stratum h their weight times c[h] (n_h/(n_h−1), so 1/π' with
// π' = (n_h−1)/N_h; 0 for a single-unit stratum, which drops it).
type rep struct{ h, j int }

// qsample is one query's judged sample. Every statistic is computed for
// the full sample (row 0) and each replicate (rows 1…) in time linear in
// the sample: a replicate changes the weights of one stratum only, so
// per-stratum sums give each replicate in O(1) (O(grades) for the ideal
// DCG). The run-independent parts (R̂, Ĝ, ideal DCG) are shared by all
// runs.
type qsample struct {
	unitOf    map[string]int // doc → unit
	grade     []int
	gi        []int     // index of the unit's grade in grades, −1 if ≤ 0
	rel       []float64 // 1 if grade ≥ minRel
	w         []float64 // 1/π = N_h/n_h
	stratum   []int
	judged    map[string]int
	judgedRel int
	nUnits    int
	nStrata   int
	pooled    []bool    // per stratum: R̂ and Ĝ from the rate pooled over queries
	c         []float64 // per stratum: replicate weight factor
	reps      []rep     // row r ≥ 1 is reps[r−1]
	nRows     int
	groups    []repGroup
	rh        []float64         // per stratum Σ w·y
	rhat      []float64         // R̂ per row
	grades    []int             // distinct positive grades, highest first
	gh        [][]float64       // per stratum, per grade: Σ w
	gfull     []float64         // per grade: Ĝ
	ideal     map[int][]float64 // cutoff → ideal DCG per row (cache)
	discounts []float64         // discounts[i] = Σ_{j=1..i} 1/log2(j+1)
	// scratch, per call of query
	seen  []bool
	inTop []bool
	sa    [6][]float64 // per-stratum accumulators
	ua    [5][]float64 // per-unit values of a ranking
	gtmp  []float64
}

// newSample keeps the design's units that are judged (first occurrence of
// a document; units naming a stratum the design lacks are skipped). A
// stratum's N_h is at least its number of judged units.
func newSample(d QueryDesign, judged map[string]int, minRel int) *qsample {
	return newSamplePooled(d, judged, minRel, nil)
}

// newSamplePooled is newSample where the strata named in pooled (sparse
// strata, see Input.PoolSparse) contribute N_h·p̂ to R̂ and N_h·p̂_g to each
// grade's count, p̂ the rate pooled over all queries, instead of their own
// Horvitz–Thompson sums; their judged units still carry 1/π in the runs'
// numerators. Their replicates leave R̂ and Ĝ unchanged (the pooled
// rate's own variance is added over queries by Estimate).
func newSamplePooled(d QueryDesign, judged map[string]int, minRel int, pooled map[string]pooledRate) *qsample {
	s := &qsample{unitOf: make(map[string]int, len(d.Units)), judged: make(map[string]int, len(d.Units))}
	H := len(d.Strata)
	s.nStrata = H
	members := make([][]int, H)
	for _, u := range d.Units {
		if u.Stratum < 0 || u.Stratum >= H {
			continue
		}
		if _, dup := s.unitOf[u.Doc]; dup {
			continue
		}
		g, ok := judged[u.Doc]
		if !ok {
			continue
		}
		i := len(s.grade)
		s.unitOf[u.Doc] = i
		s.judged[u.Doc] = g
		s.grade = append(s.grade, g)
		r := 0.0
		if g >= minRel {
			r = 1
			s.judgedRel++
		}
		s.rel = append(s.rel, r)
		s.stratum = append(s.stratum, u.Stratum)
		members[u.Stratum] = append(members[u.Stratum], i)
	}
	nu := len(s.grade)
	s.nUnits = nu
	s.w = make([]float64, nu)
	s.c = make([]float64, H)
	s.rh = make([]float64, H)
	s.nRows = 1
	s.pooled = make([]bool, H)
	for h, m := range members {
		n := len(m)
		pr, isPooled := pooled[d.Strata[h].Name]
		if isPooled && d.Strata[h].Sampled < d.Strata[h].Population {
			s.pooled[h] = true
			s.rh[h] = float64(max(d.Strata[h].Population, n)) * pr.rate
		}
		if n == 0 {
			continue
		}
		popN := float64(max(d.Strata[h].Population, n))
		for _, u := range m {
			s.w[u] = popN / float64(n)
			if !s.pooled[h] {
				s.rh[h] += s.w[u] * s.rel[u]
			}
		}
		if float64(n) >= popN {
			continue // a certainty stratum: no replicate
		}
		f := float64(n) / popN
		g := repGroup{from: s.nRows, to: s.nRows + n, coef: (1 - f) * float64(n-1) / float64(n)}
		if n == 1 {
			g.coef, g.single = 1-f, true
		} else {
			s.c[h] = float64(n) / float64(n-1)
		}
		s.groups = append(s.groups, g)
		for _, u := range m {
			s.reps = append(s.reps, rep{h: h, j: u})
		}
		s.nRows += n
	}
	// Grades, highest first, and Ĝ per stratum.
	seenGrade := map[int]bool{}
	for _, g := range s.grade {
		if g > 0 && !seenGrade[g] {
			seenGrade[g] = true
			s.grades = append(s.grades, g)
		}
	}
	for h := range s.pooled {
		if !s.pooled[h] {
			continue
		}
		for g, r := range pooled[d.Strata[h].Name].grades {
			if g > 0 && r > 0 && !seenGrade[g] {
				seenGrade[g] = true
				s.grades = append(s.grades, g)
			}
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(s.grades)))
	idx := make(map[int]int, len(s.grades))
	for i, g := range s.grades {
		idx[g] = i
	}
	s.gi = make([]int, nu)
	s.gh = make([][]float64, H)
	for h := range s.gh {
		s.gh[h] = make([]float64, len(s.grades))
	}
	s.gfull = make([]float64, len(s.grades))
	for u, g := range s.grade {
		s.gi[u] = -1
		if g > 0 {
			s.gi[u] = idx[g]
			if !s.pooled[s.stratum[u]] {
				s.gh[s.stratum[u]][idx[g]] += s.w[u]
				s.gfull[idx[g]] += s.w[u]
			}
		}
	}
	for h := range s.pooled {
		if !s.pooled[h] {
			continue
		}
		popN := float64(max(d.Strata[h].Population, len(members[h])))
		for g, r := range pooled[d.Strata[h].Name].grades {
			if g > 0 {
				s.gh[h][idx[g]] += popN * r
				s.gfull[idx[g]] += popN * r
			}
		}
	}
	// R̂ per row.
	s.rhat = make([]float64, s.nRows)
	for _, x := range s.rh {
		s.rhat[0] += x
	}
	for r, rp := range s.reps {
		if s.pooled[rp.h] {
			s.rhat[r+1] = s.rhat[0]
			continue
		}
		s.rhat[r+1] = replicate(s.rhat[0], s.rh[rp.h], s.c[rp.h], s.w[rp.j]*s.rel[rp.j])
	}
	s.seen = make([]bool, nu)
	s.inTop = make([]bool, nu)
	for i := range s.sa {
		s.sa[i] = make([]float64, H)
	}
	for i := range s.ua {
		s.ua[i] = make([]float64, nu)
	}
	s.gtmp = make([]float64, len(s.grades))
	return s
}

// replicate is a linear statistic L = Σ w·a in replicate (h, j): the
// stratum's part L_h scaled by c without unit j's own term wa_j.
func replicate(total, part, c, wa float64) float64 {
	return total - part + c*(part-wa)
}

// variance is the jackknife variance of a statistic given its value in
// every row.
func (s *qsample) variance(theta []float64) float64 {
	v := 0.0
	for _, g := range s.groups {
		if g.single {
			d := theta[g.from] - theta[0]
			v += g.coef * d * d
			continue
		}
		mean := 0.0
		for _, t := range theta[g.from:g.to] {
			mean += t
		}
		mean /= float64(g.to - g.from)
		ss := 0.0
		for _, t := range theta[g.from:g.to] {
			ss += (t - mean) * (t - mean)
		}
		v += g.coef * ss
	}
	return v
}

// bias is the stratified jackknife estimate of a statistic's bias,
// Σ_h (1 − f_h)(n_h − 1)(θ̄_(h·) − θ̂) over the strata with at least two
// judged units. It is exactly 0 for the linear statistics (R̂, P@k).
func (s *qsample) bias(theta []float64) float64 {
	b := 0.0
	for _, g := range s.groups {
		if g.single {
			continue
		}
		n := float64(g.to - g.from)
		mean := 0.0
		for _, t := range theta[g.from:g.to] {
			mean += t
		}
		mean /= n
		// coef = (1 − f)(n − 1)/n, so (1 − f)(n − 1) = coef·n.
		b += g.coef * n * (mean - theta[0])
	}
	return b
}

// rValue is the Value of R̂.
func (s *qsample) rValue() Value {
	return interval(s.rhat[0], s.variance(s.rhat), float64(s.judgedRel), math.Inf(1))
}

// QueryR estimates the number of relevant documents of a query in the
// design's reach, R̂ = Σ y/π over the judged units (Horvitz–Thompson),
// with its jackknife standard error.
func QueryR(d QueryDesign, judged map[string]int, minRel int) Value {
	return newSample(d, judged, minRel).rValue()
}

// hit is a judged unit in a run's ranking.
type hit struct {
	u    int
	rank int     // 1-based
	disc float64 // 1/log2(rank+1)
}

// hits lists the judged units in ranked, best first (a repeated document
// counts at its first rank).
func (s *qsample) hits(ranked []string) []hit {
	var out []hit
	for i, d := range ranked {
		u, ok := s.unitOf[d]
		if !ok || s.seen[u] {
			continue
		}
		s.seen[u] = true
		out = append(out, hit{u: u, rank: i + 1, disc: 1 / math.Log2(float64(i+2))})
	}
	for _, h := range out {
		s.seen[h.u] = false
	}
	return out
}

// discountSum is Σ_{j=1..x} 1/log2(j+1) for a real x ≥ 0, the last
// position counted fractionally.
func (s *qsample) discountSum(x float64) float64 {
	if x <= 0 {
		return 0
	}
	i := int(math.Floor(x))
	for len(s.discounts) <= i+1 {
		n := len(s.discounts)
		if n == 0 {
			s.discounts = append(s.discounts, 0)
			continue
		}
		s.discounts = append(s.discounts, s.discounts[n-1]+1/math.Log2(float64(n+1)))
	}
	return s.discounts[i] + (x-float64(i))*(s.discounts[i+1]-s.discounts[i])
}

// idealDCG fills positions 1..k (all when k ≤ 0) with the estimated
// counts of each grade, highest first, fractionally.
func (s *qsample) idealDCG(counts []float64, k int) float64 {
	ideal, c := 0.0, 0.0
	limit := math.Inf(1)
	if k > 0 {
		limit = float64(k)
	}
	for i, g := range s.grades {
		next := c + counts[i]
		lo, hi := min(c, limit), min(next, limit)
		ideal += float64(g) * (s.discountSum(hi) - s.discountSum(lo))
		c = next
		if c >= limit {
			break
		}
	}
	return ideal
}

// ideals is the ideal DCG@k in every row (cached per cutoff).
func (s *qsample) ideals(k int) []float64 {
	if v, ok := s.ideal[k]; ok {
		return v
	}
	out := make([]float64, s.nRows)
	out[0] = s.idealDCG(s.gfull, k)
	for r, rp := range s.reps {
		if s.pooled[rp.h] {
			out[r+1] = out[0]
			continue
		}
		gj := s.gi[rp.j]
		for i := range s.gtmp {
			wa := 0.0
			if i == gj {
				wa = s.w[rp.j]
			}
			s.gtmp[i] = replicate(s.gfull[i], s.gh[rp.h][i], s.c[rp.h], wa)
		}
		out[r+1] = s.idealDCG(s.gtmp, k)
	}
	if s.ideal == nil {
		s.ideal = map[int][]float64{}
	}
	s.ideal[k] = out
	return out
}

func ratio(num, den float64) float64 {
	if den <= 0 {
		return 0
	}
	return num / den
}

// measure computes one estimated measure in every row into theta.
func (s *qsample) measure(spec metrics.Spec, hs []hit, nRanked int, theta []float64) {
	k := spec.K
	inTop := len(hs)
	if k > 0 {
		inTop = sort.Search(len(hs), func(i int) bool { return hs[i].rank > k })
	}
	top := hs[:inTop]
	for _, h := range top {
		s.inTop[h.u] = true
	}
	defer func() {
		for _, h := range top {
			s.inTop[h.u] = false
		}
	}()
	perH := s.sa[0]
	clear(perH)
	switch spec.Name {
	case metrics.MeasureP, metrics.MeasureRecall:
		// Numerator Σ_{top k ∩ s} w·y, linear.
		num := 0.0
		for _, h := range top {
			x := s.w[h.u] * s.rel[h.u]
			perH[s.stratum[h.u]] += x
			num += x
		}
		row := func(num float64, r int) float64 {
			if spec.Name == metrics.MeasureRecall {
				return ratio(num, s.rhat[r])
			}
			den := float64(k)
			if k <= 0 {
				den = float64(nRanked)
			}
			return ratio(num, den)
		}
		theta[0] = row(num, 0)
		for r, rp := range s.reps {
			wa := 0.0
			if s.inTop[rp.j] {
				wa = s.w[rp.j] * s.rel[rp.j]
			}
			theta[r+1] = row(replicate(num, perH[rp.h], s.c[rp.h], wa), r+1)
		}
	case metrics.MeasureNDCG:
		// DCG = Σ_{top k ∩ s} w·g/log2(r+1), linear; the ideal from Ĝ.
		ideal := s.ideals(k)
		gain := s.ua[0]
		dcg := 0.0
		for _, h := range top {
			x := 0.0
			if g := s.grade[h.u]; g > 0 {
				x = s.w[h.u] * float64(g) * h.disc
			}
			gain[h.u] = x
			perH[s.stratum[h.u]] += x
			dcg += x
		}
		theta[0] = ratio(dcg, ideal[0])
		for r, rp := range s.reps {
			wa := 0.0
			if s.inTop[rp.j] {
				wa = gain[rp.j]
			}
			theta[r+1] = ratio(replicate(dcg, perH[rp.h], s.c[rp.h], wa), ideal[r+1])
		}
	case metrics.MeasureAP:
		s.apRows(top, theta)
	}
}

// apRows computes statAP in every row. With b_u = w_u·y_u/r_u, A_u the
// HT count of relevant units ranked above u and A_u^h its part from
// stratum h, the numerator is N = Σ_{u ∈ top} b_u(1 + A_u). In replicate
// (h, j) every weight of stratum h is multiplied by c and w_j set to 0,
// so A_u becomes A_u + (c−1)A_u^h − [j above u]·c·w_j·y_j and
//
//	N' = c(P_h + (c−1)Q_h^in) + (P − P_h) + (c−1)Q_h^out
//	     − c·b_j(1 + A_j + (c−1)A_j^h)              (j's own term)
//	     − c·w_j·y_j·(c·B_h(below j) + B_¬h(below j))
//
// where P = Σ b(1+A), P_h its part over units of h, Q_h^in = Σ_{u∈h}
// b_u A_u^h, Q_h^out = Σ_{u∉h} b_u A_u^h and B the sums of b below j. All
// are accumulated in one pass over the ranking, so each replicate costs
// O(1) after O(|top|·strata).
func (s *qsample) apRows(top []hit, theta []float64) {
	H := s.nStrata
	Ph, Qin, Qout, Ay, Bh := s.sa[0], s.sa[1], s.sa[2], s.sa[3], s.sa[4]
	for _, a := range [][]float64{Ph, Qin, Qout, Ay, Bh} {
		clear(a)
	}
	aj, ajh, prefH, prefAll, bu := s.ua[0], s.ua[1], s.ua[2], s.ua[3], s.ua[4]
	P, Atot, Ball := 0.0, 0.0, 0.0
	for _, h := range top {
		u := h.u
		if s.rel[u] == 0 {
			continue
		}
		st := s.stratum[u]
		b := s.w[u] / float64(h.rank)
		e := b * (1 + Atot)
		P += e
		Ph[st] += e
		for g := range H {
			if Ay[g] == 0 {
				continue
			}
			if g == st {
				Qin[g] += b * Ay[g]
			} else {
				Qout[g] += b * Ay[g]
			}
		}
		aj[u], ajh[u], bu[u] = Atot, Ay[st], b
		Bh[st] += b
		Ball += b
		prefH[u], prefAll[u] = Bh[st], Ball
		Ay[st] += s.w[u]
		Atot += s.w[u]
	}
	theta[0] = ratio(P, s.rhat[0])
	for r, rp := range s.reps {
		h, j := rp.h, rp.j
		c := s.c[h]
		num := c*(Ph[h]+(c-1)*Qin[h]) + (P - Ph[h]) + (c-1)*Qout[h]
		if s.inTop[j] && s.rel[j] != 0 {
			num -= c * bu[j] * (1 + aj[j] + (c-1)*ajh[j])
			belowH := Bh[h] - prefH[j]
			belowAll := Ball - prefAll[j]
			num -= c * s.w[j] * (c*belowH + (belowAll - belowH))
		}
		theta[r+1] = ratio(num, s.rhat[r+1])
	}
}

// query computes specs for one ranking; theta is scratch of at least
// nRows. Not safe for concurrent use (it caches and reuses scratch).
func (s *qsample) query(ranked []string, specs []metrics.Spec, minRel int, plugin bool, theta []float64) map[string]Value {
	out := make(map[string]Value, len(specs))
	var hs []hit
	haveHits := false
	var plain []metrics.Spec
	for _, spec := range specs {
		if !estimated(spec.Name) {
			plain = append(plain, spec)
			continue
		}
		if !haveHits {
			hs, haveHits = s.hits(ranked), true
		}
		s.measure(spec, hs, len(ranked), theta)
		est := theta[0]
		if !plugin && spec.Name != metrics.MeasureP {
			est -= s.bias(theta)
		}
		out[spec.String()] = interval(est, s.variance(theta[:s.nRows]), 0, 1)
	}
	if len(plain) > 0 {
		for name, v := range metrics.EvaluateQuery(ranked, s.judged, nil, plain, minRel) {
			out[name] = Value{Est: v, Lo: v, Hi: v, Plain: true}
		}
	}
	return out
}

// Query estimates the specs for one run's ranking of one query from the
// judged units of design d (see the package doc for the estimators, their
// jackknife bias correction and their variance). Keys are spec.String(). Measures without an estimator
// (anything but ap, p, recall, ndcg) are the plain measure over the judged
// units, marked Plain; a measure undefined for the query is absent.
// Unit.Pi is not read: π is recomputed per stratum from the judged count.
func Query(ranked []string, d QueryDesign, judged map[string]int, specs []metrics.Spec, minRel int) map[string]Value {
	s := newSample(d, judged, minRel)
	return s.query(ranked, specs, minRel, false, make([]float64, s.nRows))
}
