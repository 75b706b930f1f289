package cal

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"boolpool/server/boolexpr"
	"boolpool/server/lexical"
	"boolpool/server/retrieval"
)

// TestRecallSample is a diagnosis tool (see docs/pooling-and-judging.md,
// "Continuous active learning"): with BOOLPOOL_SHARED_DATA and
// BOOLPOOL_CAL_SAMPLE=k it checks that every gold title of every k-th
// DebQUEST val query is a corpus document id, reviews each such query with
// the gold as the oracle (no stopping rule) and logs
// the share of the sample's gold found after 25, 50, 100 and 200 (and
// BOOLPOOL_CAL_MAX) judgments per query. BOOLPOOL_CAL_RUNS=1 adds the
// fusion of the six lexical runs as the prior; BOOLPOOL_CAL_VERBOSE=1 logs
// every query's found and missed documents; BOOLPOOL_CAL_SEQS=FILE writes
// the judgment sequences (for trying stopping rules offline);
// BOOLPOOL_CAL_CEILING=1 measures the leave-one-out ceiling instead.
// BOOLPOOL_CAL_SPLIT=train reads the train queries instead.
// BOOLPOOL_CAL_NAMEW, _PARTS, _NEG, _ITER, _PRIORW, _PRIORD set the options.
func TestRecallSample(t *testing.T) {
	dir := os.Getenv("BOOLPOOL_SHARED_DATA")
	k, _ := strconv.Atoi(os.Getenv("BOOLPOOL_CAL_SAMPLE"))
	if dir == "" || k < 1 {
		t.Skip("needs BOOLPOOL_SHARED_DATA and BOOLPOOL_CAL_SAMPLE")
	}
	docs, _ := benchCorpus(t)
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 2)
	if err != nil {
		t.Fatal(err)
	}
	fo := DefaultFeatureOptions()
	if v, err := strconv.ParseFloat(os.Getenv("BOOLPOOL_CAL_NAMEW"), 64); err == nil {
		fo.NameWeight = v
	}
	var enc *testEncoder
	if v, err := strconv.ParseFloat(os.Getenv("BOOLPOOL_CAL_DENSEW"), 64); err == nil && v > 0 {
		enc = newTestEncoder(t)
		fo.Dense, fo.DenseWeight = enc.corpus(t, docs), v
	}
	f, err := FromIndexWith(ix, fo)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	if v, err := strconv.Atoi(os.Getenv("BOOLPOOL_CAL_NEG")); err == nil {
		opt.Negatives = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("BOOLPOOL_CAL_PRIORW"), 64); err == nil {
		opt.PriorWeight = v
	}
	if v, err := strconv.ParseFloat(os.Getenv("BOOLPOOL_CAL_PRIORD"), 64); err == nil {
		opt.PriorDepth = v
	}
	opt.QueryParts = os.Getenv("BOOLPOOL_CAL_PARTS") != ""
	if v, err := strconv.ParseFloat(os.Getenv("BOOLPOOL_CAL_COSW"), 64); err == nil {
		opt.QueryCosine = v
	}
	if v, err := strconv.Atoi(os.Getenv("BOOLPOOL_CAL_ITER")); err == nil {
		opt.Train.Iterations = v
	}
	e := NewEngine(f, opt)
	split := "val"
	if v := os.Getenv("BOOLPOOL_CAL_SPLIT"); v != "" {
		split = v
	}
	fq, err := os.Open(filepath.Join(dir, "debquest", split+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fq.Close()
	sc := bufio.NewScanner(fq)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	cuts := []int{25, 50, 100, 200}
	if v, err := strconv.Atoi(os.Getenv("BOOLPOOL_CAL_MAX")); err == nil && v > 200 {
		cuts = append(cuts, v)
	}
	var seqs [][]bool
	found := make([]int, len(cuts))
	// The ceiling also counts the held-out gold within 20, 50 and 100
	// judgments per relevant.
	ceilingPer := []int{20, 50, 100}
	ceilHits := make([]int, len(ceilingPer))
	gold, qn := 0, 0
	verbose := os.Getenv("BOOLPOOL_CAL_VERBOSE") != ""
	for i := 0; sc.Scan(); i++ {
		if i%k != 0 {
			continue
		}
		var q struct {
			Query         string
			Docs          []string
			OriginalQuery string `json:"original_query"`
			Metadata      struct{ Template string }
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		var prior []string
		if os.Getenv("BOOLPOOL_CAL_RUNS") != "" {
			prior = fusedRuns(t, ix, q.Query, q.OriginalQuery, q.Metadata.Template)
		}
		rel := map[string]bool{}
		for _, d := range q.Docs {
			// Every gold title must be a document id of the corpus exactly,
			// or no review could find it.
			if _, ok := f.DocNum(d); !ok {
				t.Fatalf("query %q: gold document %q is not in the corpus", q.Query, d)
			}
			rel[d] = true
		}
		gold += len(rel)
		qn++
		var qvec []float32
		if enc != nil {
			qvec = enc.text(t, q.Query)
		}
		if os.Getenv("BOOLPOOL_CAL_CEILING") != "" {
			// Diagnosis only (the gold as training labels, never as a
			// feature): how separable is the gold with these features?
			labels := map[uint32]bool{}
			for d := range rel {
				n, _ := f.DocNum(d)
				labels[n] = true
			}
			// Leave one out: trained on the query and every other gold
			// document, is the held-out one within 10 per relevant?
			// With the query-cosine feature, it is one more column (as in
			// Engine.next).
			cos := e.cosines(qvec)
			dim := f.Dim()
			withCos := func(v Vec, c float64) Vec {
				if cos == nil {
					return v
				}
				return withExtra(v, []uint32{uint32(dim)}, []float32{float32(c)})
			}
			hit := 0
			for h := range labels {
				var pos []Vec
				for _, p := range e.pseudoDocs(q.Query, qvec) {
					pos = append(pos, withCos(p, opt.QueryCosine))
				}
				for d := range labels {
					if d != h {
						pos = append(pos, withCos(f.Row(d), at(cos, d)))
					}
				}
				var neg []Vec
				for j := 0; j < 100; j++ {
					d := uint32((j*7919 + i*104729) % f.NumDocs())
					neg = append(neg, withCos(f.Row(d), at(cos, d)))
				}
				tdim := dim
				if cos != nil {
					tdim++
				}
				m, err := Train(tdim, pos, neg, opt.Train)
				if err != nil {
					t.Fatal(err)
				}
				scores := make([]float64, f.NumDocs())
				m.ScoreAll(f, scores)
				if cos != nil {
					for d := range scores {
						scores[d] += m.W[dim] * cos[d]
					}
				}
				above := 0
				for d, sc := range scores {
					if sc > scores[h] && !labels[uint32(d)] {
						above++
					}
				}
				if above < 10*len(rel) {
					hit++
				}
				for j, per := range ceilingPer {
					if above < per*len(rel) {
						ceilHits[j]++
					}
				}
			}
			found[0] += hit
			continue
		}
		s := e.NewSessionVec(q.Query, qvec, prior)
		n := 0
		got := map[string]int{}
		for n < cuts[len(cuts)-1] {
			batch, err := s.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range batch {
				if n == cuts[len(cuts)-1] {
					break
				}
				n++
				if err := s.Judge(d, rel[d]); err != nil {
					t.Fatal(err)
				}
				if rel[d] {
					got[d] = n
				}
			}
		}
		seqs = append(seqs, append([]bool(nil), s.Judgments()...))
		for ci, c := range cuts {
			for _, at := range got {
				if at <= c {
					found[ci]++
				}
			}
		}
		if verbose {
			var miss []string
			for _, d := range q.Docs {
				if _, ok := got[d]; !ok {
					miss = append(miss, d)
				}
			}
			var hit []string
			for d, at := range got {
				hit = append(hit, fmt.Sprintf("%s@%d", d, at))
			}
			sort.Strings(hit)
			t.Logf("%q gold %d found %d: %s | missed: %s", q.Query, len(rel), len(got), strings.Join(hit, " "), strings.Join(miss, " "))
		}
	}
	if out := os.Getenv("BOOLPOOL_CAL_SEQS"); out != "" {
		data, _ := json.Marshal(map[string]any{"gold": gold, "seqs": seqs})
		if err := os.WriteFile(out, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("BOOLPOOL_CAL_CEILING") != "" {
		more := ""
		for j, per := range ceilingPer {
			more += fmt.Sprintf(", %.3f within %d", float64(ceilHits[j])/float64(gold), per)
		}
		t.Logf("RESULT %d queries, %d gold: leave-one-out, %.3f of the gold ranks within 10 per relevant%s", qn, gold, float64(found[0])/float64(gold), more)
		return
	}
	var parts []string
	for ci, c := range cuts {
		parts = append(parts, fmt.Sprintf("@%d/query %.3f", c, float64(found[ci])/float64(gold)))
	}
	t.Logf("RESULT %d queries, %d gold: %s", qn, gold, strings.Join(parts, ", "))
}

var markRe = regexp.MustCompile(`<mark>(.*?)</mark>`)

// fusedRuns is the reciprocal-rank fusion (k = 60) of the top 100 of the
// six lexical runs `pool simulate` pools in docs/pooling-and-judging.md's table.
func fusedRuns(t *testing.T, ix *lexical.Index, text, original, template string) []string {
	t.Helper()
	q := retrieval.Query{ID: "q", Text: text, Template: template}
	for _, m := range markRe.FindAllStringSubmatch(original, -1) {
		q.Atoms = append(q.Atoms, m[1])
	}
	e, err := boolexpr.FromTemplate(template, len(q.Atoms))
	if err != nil {
		t.Fatal(err)
	}
	q.Expr = e
	var lists [][]retrieval.Result
	for _, name := range []string{"bm25", "bm25-strict-boolean", "pnorm", "sparse-disentangled-negation", "sparse-maxpool-union", "sparse-cpt"} {
		m, err := retrieval.New(name, nil, retrieval.Deps{Lexical: ix})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Retrieve(context.Background(), q, 100)
		if err != nil {
			t.Fatal(err)
		}
		lists = append(lists, res)
	}
	var out []string
	for _, x := range retrieval.RRF(lists, 60, 0) {
		out = append(out, x.DocID)
	}
	return out
}
