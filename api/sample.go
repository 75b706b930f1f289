package api

import (
	"fmt"
	"strconv"
	"strings"

	"boolpool/server/vocab"
)

// Wire types of sampled pools (strategy sample, issue 24): a stratified
// sample over the chosen runs' rankings (and optionally the whole corpus by
// a BM25 proxy ranking) whose items carry their inclusion probability.
// PoolSpec.Sample configures it; PoolPreview.Sample sums what was drawn.

// StrategySample is a stratified sample with inclusion probabilities.
const StrategySample = vocab.StrategySample

// SampleSpec configures a sampled pool (server/pooling.SampleParams):
//
//	{"strata": [{"from": 1, "to": 10, "rate": 1}, {"from": 11, "to": 100, "rate": 0.2}],
//	 "corpus": {"bounds": [1000, 10000], "rates": [0.02, 0.005], "rest": true, "rest_rate": 0.001},
//	 "budget": 2000, "seed": 7, "proxy": "bm25"}
//
// Strata are ranges of a document's best rank over the runs, from rank 1
// and contiguous (none: the defaults 1-10 all, 11-100 at 0.2, 101-1000 at
// 0.05); Corpus, optional, stratifies the documents no rank stratum holds
// by their BM25 rank (ranks up to bounds[0] at rates[0], …, with rest every
// other document at rest_rate). Budget > 0 scales the rates below 1 so that
// about that many new judgments are asked for over all queries. Seed 0: one
// derived from the pool's name. Errors name the field, e.g.
// sample.strata[1].rate.
type SampleSpec struct {
	Strata []SampleStratum `json:"strata,omitempty"`
	Corpus *SampleCorpus   `json:"corpus,omitempty"`
	Budget int             `json:"budget,omitempty"`
	Seed   uint64          `json:"seed,omitempty"`
	Proxy  string          `json:"proxy,omitempty"` // "bm25" (the default with corpus strata)
}

// SampleStratum: documents of best rank From..To drawn at Rate in (0, 1].
type SampleStratum struct {
	From int     `json:"from"`
	To   int     `json:"to"`
	Rate float64 `json:"rate"`
}

// SampleCorpus: whole-corpus strata by proxy rank.
type SampleCorpus struct {
	Bounds   []int     `json:"bounds"`
	Rates    []float64 `json:"rates"`
	Rest     bool      `json:"rest,omitempty"`
	RestRate float64   `json:"rest_rate,omitempty"`
}

// SampleDrawn is what a sampled pool drew over all its queries.
type SampleDrawn struct {
	Units        int                `json:"units"`         // documents drawn, judged before included
	New          int                `json:"new"`           // of which not judged before: the judgments asked for
	JudgedBefore int                `json:"judged_before"` // the certainty stratum (π = 1; not published again)
	Expected     float64            `json:"expected"`      // new judgments expected by the design
	Strata       []SampleStratumSum `json:"strata"`
	// Drawn is the design drawn: the rates after scaling to the budget,
	// and the seed.
	Drawn SampleSpec `json:"drawn"`
}

// SampleStratumSum is one stratum (by name) over the pool's queries.
type SampleStratumSum struct {
	Name       string `json:"name"`
	Population int    `json:"population"`
	Sampled    int    `json:"sampled"`
}

// FormatSampleStrata writes strata as the pool builder and `boolpool pool
// --sample-strata` read them: FROM-TO:RATE,… (e.g. 1-10:1,11-100:0.2).
func FormatSampleStrata(strata []SampleStratum) string {
	parts := make([]string, len(strata))
	for i, s := range strata {
		parts[i] = fmt.Sprintf("%d-%d:%s", s.From, s.To, strconv.FormatFloat(s.Rate, 'g', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ParseSampleStrata reads FROM-TO:RATE,… (empty: none, the defaults). The
// error names the stratum (1-based) that is not of that form; the values'
// rules are the server's (pooling.Check).
func ParseSampleStrata(s string) ([]SampleStratum, error) {
	var out []SampleStratum
	for i, part := range splitComma(s) {
		ranks, rate, ok := strings.Cut(part, ":")
		from, to, ok2 := strings.Cut(ranks, "-")
		var st SampleStratum
		var err1, err2, err3 error
		st.From, err1 = strconv.Atoi(strings.TrimSpace(from))
		st.To, err2 = strconv.Atoi(strings.TrimSpace(to))
		st.Rate, err3 = strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("stratum %d, %q, is not FROM-TO:RATE (e.g. 11-100:0.2)", i+1, part)
		}
		out = append(out, st)
	}
	return out, nil
}

// ParseSampleCorpus reads corpus strata BOUND:RATE,… (e.g.
// 1000:0.02,10000:0.005) into bounds and rates.
func ParseSampleCorpus(s string) (bounds []int, rates []float64, err error) {
	for i, part := range splitComma(s) {
		bound, rate, ok := strings.Cut(part, ":")
		b, err1 := strconv.Atoi(strings.TrimSpace(bound))
		r, err2 := strconv.ParseFloat(strings.TrimSpace(rate), 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, nil, fmt.Errorf("stratum %d, %q, is not BOUND:RATE (e.g. 1000:0.02)", i+1, part)
		}
		bounds, rates = append(bounds, b), append(rates, r)
	}
	return bounds, rates, nil
}

// splitComma splits a comma-separated list, dropping empty entries.
func splitComma(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
