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

// repGroup is the replicates of one stratum: rows [from, to) of
// qsample.rows. coef is (1−f_h)(n_h−1)/n_h, or (1−f_h) for a stratum with
// one judged unit (single), whose one replicate drops the stratum.
type repGroup struct {
	from, to int
	coef     float64
	single   bool
}

// qsample is one query's judged sample with the weights of the full
// estimate (row 0) and of every jackknife replicate (rows 1…), shared by
// all runs.
type qsample struct {
	unitOf    map[string]int // doc → unit
	grade     []int
	rel       []float64 // 1 if grade ≥ minRel
	judged    map[string]int
	judgedRel int
	nUnits    int
	rows      []float64 // row-major: row r, unit u at r*nUnits+u
	nRows     int
	groups    []repGroup
	rhat      []float64         // R̂ per row
	grades    []int             // distinct positive grades, highest first
	gcount    [][]float64       // per row: Ĝ per grade of grades
	ideal     map[int][]float64 // cutoff → ideal DCG per row (cache)
	discounts []float64         // discounts[i] = Σ_{j=1..i} 1/log2(j+1)
	seen      []bool            // scratch of hits
}

// newSample keeps the design's units that are judged (first occurrence of
// a document; units naming a stratum the design lacks are skipped) and
// builds the replicate weights. A stratum's N_h is at least its number of
// judged units.
func newSample(d QueryDesign, judged map[string]int, minRel int) *qsample {
	s := &qsample{unitOf: make(map[string]int, len(d.Units)), judged: make(map[string]int, len(d.Units))}
	members := make([][]int, len(d.Strata))
	var stratum []int
	for _, u := range d.Units {
		if u.Stratum < 0 || u.Stratum >= len(d.Strata) {
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
		stratum = append(stratum, u.Stratum)
		members[u.Stratum] = append(members[u.Stratum], i)
	}
	nu := len(s.grade)
	s.nUnits = nu
	base := make([]float64, nu)
	popN := make([]float64, len(d.Strata))
	for h, m := range members {
		n := len(m)
		popN[h] = float64(max(d.Strata[h].Population, n))
		for _, u := range m {
			base[u] = popN[h] / float64(n)
		}
	}
	// Replicate rows.
	nRows := 1
	for h, m := range members {
		n := len(m)
		if n == 0 || float64(n) >= popN[h] {
			continue // nothing judged, or a certainty stratum
		}
		f := float64(n) / popN[h]
		if n == 1 {
			s.groups = append(s.groups, repGroup{from: nRows, to: nRows + 1, coef: 1 - f, single: true})
			nRows++
		} else {
			s.groups = append(s.groups, repGroup{from: nRows, to: nRows + n, coef: (1 - f) * float64(n-1) / float64(n)})
			nRows += n
		}
	}
	s.nRows = nRows
	s.rows = make([]float64, nRows*nu)
	copy(s.rows, base)
	r := 1
	for h, m := range members {
		n := len(m)
		if n == 0 || float64(n) >= popN[h] {
			continue
		}
		alt := 0.0
		if n > 1 {
			alt = popN[h] / float64(n-1)
		}
		for j := range m {
			row := s.rows[r*nu : (r+1)*nu]
			copy(row, base)
			for _, u := range m {
				row[u] = alt // 0 when the stratum is dropped
			}
			if n > 1 {
				row[m[j]] = 0
			}
			r++
		}
	}
	// R̂ and the estimated number of documents per positive grade, per row.
	gradeIdx := map[int]int{}
	for _, g := range s.grade {
		if g > 0 {
			gradeIdx[g] = 0
		}
	}
	for g := range gradeIdx {
		s.grades = append(s.grades, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(s.grades)))
	for i, g := range s.grades {
		gradeIdx[g] = i
	}
	s.rhat = make([]float64, nRows)
	s.gcount = make([][]float64, nRows)
	for r := range nRows {
		row := s.rows[r*nu : (r+1)*nu]
		counts := make([]float64, len(s.grades))
		rh := 0.0
		for u, w := range row {
			rh += w * s.rel[u]
			if g := s.grade[u]; g > 0 {
				counts[gradeIdx[g]] += w
			}
		}
		s.rhat[r] = rh
		s.gcount[r] = counts
	}
	return s
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
	if s.seen == nil {
		s.seen = make([]bool, s.nUnits)
	}
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
func (s *qsample) idealDCG(row, k int) float64 {
	ideal, c := 0.0, 0.0
	limit := math.Inf(1)
	if k > 0 {
		limit = float64(k)
	}
	for i, g := range s.grades {
		next := c + s.gcount[row][i]
		lo, hi := min(c, limit), min(next, limit)
		ideal += float64(g) * (s.discountSum(hi) - s.discountSum(lo))
		c = next
		if c >= limit {
			break
		}
	}
	return ideal
}

// measure computes one estimated measure in every row into theta.
func (s *qsample) measure(spec metrics.Spec, hs []hit, nRanked int, theta []float64) {
	k := spec.K
	inTop := len(hs)
	if k > 0 {
		inTop = sort.Search(len(hs), func(i int) bool { return hs[i].rank > k })
	}
	top := hs[:inTop]
	nu := s.nUnits
	switch spec.Name {
	case metrics.MeasureP:
		den := float64(k)
		if k <= 0 {
			den = float64(nRanked)
		}
		for r := range s.nRows {
			if den == 0 {
				theta[r] = 0
				continue
			}
			row := s.rows[r*nu : (r+1)*nu]
			sum := 0.0
			for _, h := range top {
				sum += row[h.u] * s.rel[h.u]
			}
			theta[r] = sum / den
		}
	case metrics.MeasureRecall:
		for r := range s.nRows {
			if s.rhat[r] <= 0 {
				theta[r] = 0
				continue
			}
			row := s.rows[r*nu : (r+1)*nu]
			sum := 0.0
			for _, h := range top {
				sum += row[h.u] * s.rel[h.u]
			}
			theta[r] = sum / s.rhat[r]
		}
	case metrics.MeasureAP:
		for r := range s.nRows {
			if s.rhat[r] <= 0 {
				theta[r] = 0
				continue
			}
			row := s.rows[r*nu : (r+1)*nu]
			sum, above := 0.0, 0.0
			for _, h := range top {
				if s.rel[h.u] == 0 {
					continue
				}
				w := row[h.u]
				sum += w * (1 + above) / float64(h.rank)
				above += w
			}
			theta[r] = sum / s.rhat[r]
		}
	case metrics.MeasureNDCG:
		ideals, ok := s.ideal[k]
		if !ok {
			ideals = make([]float64, s.nRows)
			for r := range ideals {
				ideals[r] = s.idealDCG(r, k)
			}
			if s.ideal == nil {
				s.ideal = map[int][]float64{}
			}
			s.ideal[k] = ideals
		}
		for r := range s.nRows {
			ideal := ideals[r]
			if ideal <= 0 {
				theta[r] = 0
				continue
			}
			row := s.rows[r*nu : (r+1)*nu]
			dcg := 0.0
			for _, h := range top {
				if g := s.grade[h.u]; g > 0 {
					dcg += row[h.u] * float64(g) * h.disc
				}
			}
			theta[r] = dcg / ideal
		}
	}
}

// query computes specs for one ranking; theta is scratch of at least
// nRows. Not safe for concurrent use (it caches and reuses scratch).
func (s *qsample) query(ranked []string, specs []metrics.Spec, minRel int, theta []float64) map[string]Value {
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
		out[spec.String()] = interval(theta[0], s.variance(theta[:s.nRows]), 0, 1)
	}
	if len(plain) > 0 {
		for name, v := range metrics.EvaluateQuery(ranked, s.judged, nil, plain, minRel) {
			out[name] = Value{Est: v, Lo: v, Hi: v, Plain: true}
		}
	}
	return out
}

// Query estimates the specs for one run's ranking of one query from the
// judged units of design d (see the package doc for the estimators and
// their variance). Keys are spec.String(). Measures without an estimator
// (anything but ap, p, recall, ndcg) are the plain measure over the judged
// units, marked Plain; a measure undefined for the query is absent.
func Query(ranked []string, d QueryDesign, judged map[string]int, specs []metrics.Spec, minRel int) map[string]Value {
	s := newSample(d, judged, minRel)
	return s.query(ranked, specs, minRel, make([]float64, s.nRows))
}
