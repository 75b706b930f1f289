package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/estimate"
	"boolpool/server/pooling"
)

// sampleFlags are `boolpool pool`'s flags of strategy sample (a stratified
// sample with inclusion probabilities; pooling.SampleParams).
type sampleFlags struct {
	strata     *string
	budget     *int
	corpus     *string
	corpusRest *float64
	seed       *uint64
}

// sampleFlagNames maps each flag to the spec field its errors name.
var sampleFlagNames = []struct{ flag, field string }{
	{"sample-strata", "sample.strata"},
	{"sample-budget", "sample.budget"},
	{"sample-corpus-rest", "sample.corpus.rest_rate"},
	{"sample-corpus", "sample.corpus"},
	{"sample-seed", "sample.seed"},
}

func addSampleFlags(fs *flag.FlagSet) *sampleFlags {
	return &sampleFlags{
		strata:     fs.String("sample-strata", "", "strategy sample: strata of the best rank over the runs, `FROM-TO:RATE,…` from rank 1, contiguous (empty: the default strata, shown in the report)"),
		budget:     fs.Int("sample-budget", 0, "strategy sample: scale the rates to about this many new judgments over all queries (0: the rates as given)"),
		corpus:     fs.String("sample-corpus", "", "strategy sample: whole-corpus strata of the BM25 ranking of the query over the documents no rank stratum holds, `BOUND:RATE,…` (e.g. 1000:0.02,10000:0.005: ranks 1-1000 at 2 %, 1001-10000 at 0.5 %)"),
		corpusRest: fs.Float64("sample-corpus-rest", 0, "strategy sample: every other document of the corpus at this `rate` (0: none)"),
		seed:       fs.Uint64("sample-seed", 0, "strategy sample: random seed (0: derived from the pool's name, so the same name draws the same sample)"),
	}
}

// params reads the flags into the spec's sample parameters (nil unless
// strategy is sample; a sample flag with another strategy is a usage
// error). Syntax errors name the flag; the rules of the values are
// pooling.Check's (see sampleFlagError).
func (f *sampleFlags) params(fs *flag.FlagSet, strategy string) (*pooling.SampleParams, error) {
	if strategy != pooling.Sample {
		var set []string
		fs.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "sample-") {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return nil, fmt.Errorf("%w: %s: only with --strategy sample", errUsage, strings.Join(set, ", "))
		}
		return nil, nil
	}
	p := &pooling.SampleParams{Budget: *f.budget, Seed: *f.seed}
	strata, err := api.ParseSampleStrata(*f.strata)
	if err != nil {
		return nil, fmt.Errorf("%w: --sample-strata: %v", errUsage, err)
	}
	for _, s := range strata {
		p.Strata = append(p.Strata, estimate.RankStratum{From: s.From, To: s.To, Rate: s.Rate})
	}
	if *f.corpus != "" || *f.corpusRest != 0 {
		c := &estimate.CorpusStratum{}
		if c.Bounds, c.Rates, err = api.ParseSampleCorpus(*f.corpus); err != nil {
			return nil, fmt.Errorf("%w: --sample-corpus: %v", errUsage, err)
		}
		if *f.corpusRest != 0 {
			c.Rest, c.RestRate = true, *f.corpusRest
		}
		p.Corpus = c
	}
	return p, nil
}

// sampleFlagError names the flag of an invalid sample field
// (sample.strata[1].rate → --sample-strata: stratum 2's rate …); other
// errors are returned as they are.
func sampleFlagError(err error) error {
	var inv *apperr.Invalid
	if !errors.As(err, &inv) {
		return err
	}
	for _, m := range sampleFlagNames {
		if inv.Field == m.field || strings.HasPrefix(inv.Field, m.field+".") || strings.HasPrefix(inv.Field, m.field+"[") {
			return fmt.Errorf("%w: --%s: %s", errUsage, m.flag, inv.Error())
		}
	}
	return err
}

// printSampleReport prints what a sampled pool drew.
func printSampleReport(w io.Writer, s *pooling.SampleReport) error {
	fmt.Fprintf(w, "sample: %d documents drawn, %d new judgments asked for (%.1f expected), %d judged before (certainty stratum, not published again); seed %d\n\n",
		s.Units, s.New, s.Expected, s.JudgedBefore, s.Config.Seed)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "stratum\tpopulation\tsampled")
	for _, st := range s.Strata {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", st.Name, st.Population, st.Sampled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
