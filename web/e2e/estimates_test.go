//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

// estQueries are the queries of the estimates test: the fixture's q1 and
// q2 and a third one imported here.
var estQueries = []string{"q1", "q2", "q3"}

// estDocs are the fixture's d1..d6 and 24 documents imported here.
func estDocs() []string {
	docs := []string{"d1", "d2", "d3", "d4", "d5", "d6"}
	for i := range 24 {
		docs = append(docs, fmt.Sprintf("n%02d", i))
	}
	return docs
}

// estOracle is the fixed grade an annotator gives document number i (of
// estDocs) for query number k: about a fifth of each query's documents
// grade 2, another fifth grade 1.
func estOracle(k, i int) int {
	switch (i*7 + k*3) % 10 {
	case 0, 1:
		return 2
	case 2, 3:
		return 1
	}
	return 0
}

// estRuns are three runs of different quality over every query: each
// ranks its 12 best documents by quality·grade plus seeded noise, so that
// "good" mostly ranks the relevant first and "weak" is nearly random.
func estRuns(queryIDs map[string]int64) map[string][]store.RunResultIn {
	docs := estDocs()
	out := map[string][]store.RunResultIn{}
	for r, run := range []struct {
		name    string
		quality float64
	}{{"good", 1.2}, {"mid", 0.5}, {"weak", 0.05}} {
		for k, q := range estQueries {
			rng := rand.New(rand.NewPCG(uint64(r+1), uint64(k+1)))
			type scored struct {
				doc   string
				score float64
			}
			var all []scored
			for i, d := range docs {
				all = append(all, scored{d, run.quality*float64(estOracle(k, i)) + rng.Float64()})
			}
			sort.Slice(all, func(a, b int) bool { return all[a].score > all[b].score })
			for rank, s := range all[:12] {
				out[run.name] = append(out[run.name], store.RunResultIn{QueryID: queryIDs[q], DocExtID: s.doc, Rank: rank + 1, Score: s.score})
			}
		}
	}
	return out
}

// TestEstimatesDashboard is issue 24's end-to-end acceptance: a sampled
// pool (ranks 1-3 of three runs taken whole, ranks 4-12 at rate 0.5) is
// published through the API, annotators judge every published item
// through the API, the researcher's dashboard shows every run's estimates
// with their intervals, and those are the numbers GET
// /api/projects/:p/estimates answers and `boolpool eval --estimate`
// (the built binary, on the same database) prints.
func TestEstimatesDashboard(t *testing.T) {
	e := newEnv(t, 1)
	ctx := context.Background()
	pid := e.fx.Project.ID

	// A third query and 24 more documents.
	spans, text, err := boolexpr.ParseMarked("<mark>Railways of Europe</mark>")
	if err != nil {
		t.Fatal(err)
	}
	expr, err := json.Marshal(boolexpr.Atom(0))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.st.Import(ctx, pid, func(im *store.Importer) error {
		for i := range 24 {
			body := fmt.Sprintf("Document number %d is about railways and birds.", i)
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("n%02d", i), Title: fmt.Sprintf("Note %d", i), Body: body, SentenceStarts: []int32{0}}); err != nil {
				return err
			}
		}
		id, err := im.Query(ctx, store.QueryIn{ExtID: "q3", Text: text, OriginalQuery: "<mark>Railways of Europe</mark>",
			Atoms: []store.Atom{{Text: text[spans[0].Start:spans[0].End], Start: spans[0].Start, End: spans[0].End}}, Expression: expr, Seq: 2})
		e.fx.Queries["q3"] = id
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, res := range estRuns(e.fx.Queries) {
		if _, err := e.st.SaveRun(ctx, pid, name, name, nil, res); err != nil {
			t.Fatal(err)
		}
	}

	// The researcher publishes the sampled pool through the API (a job).
	res := dashLogin(t, e.url, "researcher")
	spec := api.PoolSpec{Name: "sampled", Runs: []string{"good", "mid", "weak"}, Strategy: api.StrategySample,
		Sample: &api.SampleSpec{Strata: []api.SampleStratum{{From: 1, To: 3, Rate: 1}, {From: 4, To: 12, Rate: 0.5}}, Seed: 11}}
	job := publishPool(res, spec, 60*time.Second)
	var pub api.PoolPublished
	if err := json.Unmarshal(job.Result, &pub); job.State != api.JobDone || err != nil {
		t.Fatalf("publish job %+v: %v", job, err)
	}
	s := pub.Preview.Sample
	if s == nil || len(s.Strata) != 2 || s.Strata[0].Sampled != s.Strata[0].Population || s.Strata[1].Sampled == 0 || s.Strata[1].Sampled >= s.Strata[1].Population {
		t.Fatalf("the pool did not sample its second stratum: %+v", s)
	}
	t.Logf("published %d items: strata %+v", pub.ItemsCreated, s.Strata)

	// Annotators judge every item they are given through the API, with
	// the oracle's grade, until no one is given any more.
	docIdx := map[string]int{}
	for i, d := range estDocs() {
		docIdx[d] = i
	}
	qIdx := map[int64]int{}
	for k, q := range estQueries {
		qIdx[e.fx.Queries[q]] = k
	}
	annotators := []*dashUser{dashLogin(t, e.url, "annotator1"), dashLogin(t, e.url, "annotator2")}
	n := 0
	for idle := 0; idle < len(annotators); {
		u := annotators[n%len(annotators)]
		var q api.Queue
		if st := u.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 8}, &q); st != 200 {
			t.Fatalf("queue: %d", st)
		}
		if len(q.Tasks) == 0 {
			idle++
			n++
			continue
		}
		idle = 0
		for _, task := range q.Tasks {
			k, ok := qIdx[task.Query.ID]
			if !ok || task.Document == nil {
				t.Fatalf("task %+v: unknown query or no document", task)
			}
			n++
			grade := estOracle(k, docIdx[task.Document.ExtID])
			req := api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 24000+n), AuthorID: u.ID, ItemID: task.ItemID,
				Kind: api.KindRelevance, Relevance: ptr(grade), Evidence: api.EvidenceComplete, TimeSpentMs: 900}
			if st := u.Do("POST", "/api/judgments", req, nil); st != 201 {
				t.Fatalf("judge item %d: %d", task.ItemID, st)
			}
		}
		if n > 400 {
			t.Fatal("the queues do not empty")
		}
	}

	// What the API answers.
	var want api.EstimateReport
	if st := res.Do("GET", "/api/projects/fixture/estimates?pool=sampled", nil, &want); st != 200 {
		t.Fatalf("estimates: %d", st)
	}
	if !want.Estimated || want.Pool != "sampled" || len(want.Runs) != 3 || len(want.Measures) == 0 {
		t.Fatalf("estimates %+v", want)
	}
	// A cell shows the estimate and its 95 % interval, as the CLI's table.
	cellText := func(v api.EstimateValue) string { return fmt.Sprintf("%.4f [%.4f, %.4f]", v.Est, v.Lo, v.Hi) }
	for _, r := range want.Runs {
		for _, m := range want.Measures {
			v := r.Means[m]
			t.Logf("API %-5s %-10s %.4f [%.4f, %.4f] SE %.4f", r.Run, m, v.Est, v.Lo, v.Hi, v.SE)
			if v.Lo > v.Est || v.Est > v.Hi {
				t.Errorf("%s %s: estimate %g outside its interval [%g, %g]", r.Run, m, v.Est, v.Lo, v.Hi)
			}
		}
		// Every run's top 10 holds documents of the sampled stratum
		// (the three runs' top 3 are at most 9 documents), some of them
		// relevant: precision at 10 has sampling error.
		if v := r.Means["p@10"]; v.SE <= 0 || v.Hi-v.Lo < 1e-4 {
			t.Errorf("%s p@10: degenerate interval %+v where the pool sampled", r.Run, v)
		}
	}
	if t0 := want.RelevantTotal; t0.SE <= 0 || t0.Hi <= t0.Lo || want.JudgedRelevant == 0 {
		t.Errorf("relevant total %+v, judged relevant %d: want a non-degenerate interval", t0, want.JudgedRelevant)
	}
	relevantText := func(r api.EstimateReport) string {
		t0 := r.RelevantTotal
		return fmt.Sprintf("Relevant documents: %d judged relevant; estimated in all %.1f (95 %% interval %.1f–%.1f); estimated recall of the judged set %.3f (%.3f–%.3f).",
			r.JudgedRelevant, t0.Est, t0.Lo, t0.Hi, r.JudgedRecall.Est, r.JudgedRecall.Lo, r.JudgedRecall.Hi)
	}

	// The researcher's dashboard.
	e.login("researcher")
	e.do("dashboard with the estimates", chromedp.Navigate(e.url+"/dashboard/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#dashboard[data-wasm="1"] #estimates #estimates-table tr[data-run]`)))
	e.do("scroll to the estimates", chromedp.ScrollIntoView(chromedp.CSS(`#estimates`)))
	readCells := `JSON.stringify(Object.fromEntries([...document.querySelectorAll('#estimates-table tr[data-run]')].map(tr =>
		[tr.dataset.run, Object.fromEntries([...tr.querySelectorAll('td[data-measure]')].map(td => [td.dataset.measure, td.textContent]))])))`
	matches := func(shown map[string]map[string]string) bool {
		for _, r := range want.Runs {
			for _, m := range want.Measures {
				if shown[r.Run][m] != cellText(r.Means[m]) {
					return false
				}
			}
		}
		return true
	}
	// The panel reloads when the dashboard's snapshot moves on: wait until
	// it shows the final numbers (or time out and report the difference).
	var shown map[string]map[string]string
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		shown = nil
		if err := json.Unmarshal([]byte(eval[string](e, readCells)), &shown); err != nil {
			t.Fatal(err)
		}
		if matches(shown) || time.Now().After(end) {
			break
		}
	}
	e.shot("estimates-01-dashboard")
	for _, r := range want.Runs {
		for _, m := range want.Measures {
			if got, w := shown[r.Run][m], cellText(r.Means[m]); got != w {
				t.Errorf("dashboard %s %s = %q, the API's estimate is %q", r.Run, m, got, w)
			}
			t.Logf("dashboard %-5s %-10s %s", r.Run, m, shown[r.Run][m])
		}
	}
	if len(shown) != len(want.Runs) {
		t.Errorf("dashboard shows runs %v, want %d", shown, len(want.Runs))
	}
	if got := eval[string](e, `document.querySelector('#estimates-relevant').textContent`); got != relevantText(want) {
		t.Errorf("dashboard relevant = %q, want %q", got, relevantText(want))
	}
	if eval[bool](e, `!!document.querySelector('#estimates-design')`) != true {
		t.Error("the panel does not say its numbers come from the sampled pool")
	}
	// The significant pairs: the API's, as the panel words them.
	var sig []string
	for _, p := range want.Pairs {
		if p.Significant {
			sig = append(sig, fmt.Sprintf("%s: %s vs %s, difference %+.4f (adjusted p %.3g)", p.Measure, p.A, p.B, p.Diff, p.PHolm))
		}
	}
	shownPairs := eval[[]string](e, `[...document.querySelectorAll('#estimates-pairs li')].map(li => li.textContent)`)
	if strings.Join(shownPairs, "\n") != strings.Join(sig, "\n") {
		t.Errorf("dashboard pairs %q, the API's significant pairs %q", shownPairs, sig)
	}

	// `boolpool eval --estimate`, the built binary on the same database.
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "boolpool")
	build := exec.Command("go", "build", "-o", bin, "./cmd/boolpool")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build boolpool: %v\n%s", err, out)
	}
	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"eval", "--estimate", "--database-url", e.dbURL, "--project", "fixture"}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("boolpool eval --estimate %v: %v\n%s", args, err, stderr.String())
		}
		return string(out)
	}
	var got api.EstimateReport
	if err := json.Unmarshal([]byte(cli("--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Pool != want.Pool || !got.Estimated || len(got.Runs) != len(want.Runs) || strings.Join(got.Measures, ",") != strings.Join(want.Measures, ",") {
		t.Fatalf("CLI answered pool %q estimated %v runs %d measures %v; the API %q %v %d %v",
			got.Pool, got.Estimated, len(got.Runs), got.Measures, want.Pool, want.Estimated, len(want.Runs), want.Measures)
	}
	for i, r := range want.Runs {
		if got.Runs[i].Run != r.Run {
			t.Fatalf("CLI run %d is %q, the API's %q", i, got.Runs[i].Run, r.Run)
		}
		for _, m := range want.Measures {
			if g, w := got.Runs[i].Means[m], r.Means[m]; g != w {
				t.Errorf("CLI %s %s = %+v, the API %+v", r.Run, m, g, w)
			}
			if g := cellText(got.Runs[i].Means[m]); g != shown[r.Run][m] {
				t.Errorf("CLI %s %s = %q, the dashboard shows %q", r.Run, m, g, shown[r.Run][m])
			}
		}
	}
	if got.RelevantTotal != want.RelevantTotal || got.JudgedRelevant != want.JudgedRelevant || got.JudgedRecall != want.JudgedRecall {
		t.Errorf("CLI relevant %+v %d %+v, the API %+v %d %+v", got.RelevantTotal, got.JudgedRelevant, got.JudgedRecall,
			want.RelevantTotal, want.JudgedRelevant, want.JudgedRecall)
	}
	// The CLI's table prints what the dashboard shows, cell by cell.
	table := cli()
	for _, r := range want.Runs {
		for _, m := range want.Measures {
			if w := shown[r.Run][m]; !strings.Contains(table, r.Run) || !strings.Contains(table, w) {
				t.Errorf("the CLI's table lacks %s %s %q:\n%s", r.Run, m, w, table)
			}
		}
	}
	if !strings.Contains(table, fmt.Sprintf("%d judged relevant; estimated in all %.1f [%.1f, %.1f]", want.JudgedRelevant,
		want.RelevantTotal.Est, want.RelevantTotal.Lo, want.RelevantTotal.Hi)) {
		t.Errorf("the CLI's table lacks the relevant total of the dashboard:\n%s", table)
	}
	t.Logf("boolpool eval --estimate:\n%s", table)
}
