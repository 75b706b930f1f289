package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestPoolSampleCLI: `boolpool pool --strategy sample` draws a stratified
// sample whose report sums the design (the rate-1 stratum whole), with the
// corpus strata of --sample-corpus; bad sample flags are usage errors
// naming the flag.
func TestPoolSampleCLI(t *testing.T) {
	cli := newCLITest(t)
	var docs, qs strings.Builder
	for d := 0; d < 40; d++ {
		fmt.Fprintf(&docs, `{"title": "doc%02d", "text": "fruit%d colour%d shared words"}`+"\n", d, d%5, d%3)
	}
	for q := 0; q < 2; q++ {
		fmt.Fprintf(&qs, `{"query": "fruit%d colour%d", "docs": ["doc%02d"], "original_query": "<mark>fruit%d colour%d</mark>", "scores": null, "metadata": {"template": "_"}}`+"\n",
			q, q, q, q, q)
	}
	docFile, qFile := cli.write("docs.jsonl", docs.String()), cli.write("q.jsonl", qs.String())
	cli.must("import", "--project", "p", "--format", "quest", docFile, qFile)
	cli.must("index", "--project", "p")
	cli.must("retrieve", "--project", "p", "--method", "bm25", "--name", "bm25", "--depth", "20")

	out, _ := cli.must("pool", "--project", "p", "--runs", "bm25", "--strategy", "sample", "--sample-strata", "1-4:1,5-20:0.25",
		"--sample-corpus", "10:0.5", "--sample-corpus-rest", "0.1", "--sample-seed", "7", "--json")
	var rep struct {
		Name     string `json:"name"`
		Strategy string `json:"strategy"`
		Depth    int    `json:"depth"`
		Sample   struct {
			Units, New, JudgedBefore int
			Strata                   []struct {
				Name                string
				Population, Sampled int
			}
			Config struct {
				Seed   uint64
				Strata []struct{ From, To int }
				Corpus *struct {
					Bounds   []int
					Rest     bool
					RestRate float64 `json:"rest_rate"`
				}
			}
		} `json:"sample"`
		Composition struct {
			Items int `json:"items"`
		} `json:"composition"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	s := rep.Sample
	if rep.Name != "sample" || rep.Strategy != "sample" || rep.Depth != 20 || s.Config.Seed != 7 || len(s.Config.Strata) != 2 ||
		s.Config.Corpus == nil || s.Config.Corpus.Bounds[0] != 10 || !s.Config.Corpus.Rest || s.Config.Corpus.RestRate != 0.1 {
		t.Fatalf("report %s", out)
	}
	pop, sampled := 0, 0
	for _, st := range s.Strata {
		pop += st.Population
		sampled += st.Sampled
	}
	// Two queries, each stratifying the whole corpus of 40 documents.
	if pop != 80 || sampled != s.Units || s.Units != rep.Composition.Items || s.New != s.Units || s.Units < 8 {
		t.Fatalf("strata %+v: population %d (want 80), sampled %d, units %d, items %d", s.Strata, pop, sampled, s.Units, rep.Composition.Items)
	}
	// The text report shows the strata.
	out, _ = cli.must("pool", "--project", "p", "--runs", "bm25", "--strategy", "sample", "--sample-strata", "1-4:1,5-20:0.25", "--name", "s2")
	if !strings.Contains(out, "sample: ") || !strings.Contains(out, "population") {
		t.Errorf("text report:\n%s", out)
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--strategy", "sample", "--sample-strata", "1-10"}, []string{"--sample-strata", "FROM-TO:RATE"}},
		{[]string{"--strategy", "sample", "--sample-strata", "1-10:1,11-20:1.5"}, []string{"--sample-strata", "sample.strata[1].rate"}},
		{[]string{"--strategy", "sample", "--sample-strata", "1-10:1,12-20:0.5"}, []string{"--sample-strata", "sample.strata[1].from"}},
		{[]string{"--strategy", "sample", "--sample-budget", "-3"}, []string{"--sample-budget"}},
		{[]string{"--strategy", "sample", "--sample-corpus", "many"}, []string{"--sample-corpus", "BOUND:RATE"}},
		{[]string{"--strategy", "sample", "--sample-corpus", "100:2"}, []string{"--sample-corpus", "sample.corpus.rates[0]"}},
		{[]string{"--strategy", "sample", "--sample-corpus-rest", "1.5"}, []string{"--sample-corpus-rest"}},
		{[]string{"--strategy", "depth", "--sample-budget", "10"}, []string{"--sample-budget", "only with --strategy sample"}},
	} {
		args := append([]string{"pool", "--project", "p", "--runs", "bm25"}, tc.args...)
		_, e, code := cli.exec(args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage): %s", tc.args, code, e)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%v: %q does not say %q", tc.args, e, w)
			}
		}
	}
}
