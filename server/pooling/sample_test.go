package pooling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"testing"

	"boolpool/server/apperr"
	"boolpool/server/estimate"
	"boolpool/server/retrieval"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// sampleFixture is a project of 400 documents and 3 queries with two
// stored runs of 150 documents each per query (overlapping in part), and
// the union's best rank of every document per query.
type sampleFixture struct {
	st      *store.Store
	project int64
	queries map[string]int64 // ext id → row id
	best    map[string]map[string]int
}

func newSampleFixture(t *testing.T) sampleFixture {
	t.Helper()
	ctx := context.Background()
	st, p := storetest.NewProject(t, "sampled")
	fx := sampleFixture{st: st, project: p.ID, queries: map[string]int64{}, best: map[string]map[string]int{}}
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for d := 0; d < 400; d++ {
			body := fmt.Sprintf("alpha%d beta%d gamma common words", d%7, d%13)
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("d%03d", d), Title: "doc", Body: body}); err != nil {
				return err
			}
		}
		for q := 0; q < 3; q++ {
			id, err := im.Query(ctx, store.QueryIn{ExtID: fmt.Sprintf("q%d", q), Text: fmt.Sprintf("alpha%d beta%d", q, q+1), Seq: q})
			if err != nil {
				return err
			}
			fx.queries[fmt.Sprintf("q%d", q)] = id
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := retrieval.LoadQueries(ctx, st, p.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	for r, name := range []string{"a", "b"} {
		res := map[string][]retrieval.Result{}
		for q := 0; q < 3; q++ {
			qid := fmt.Sprintf("q%d", q)
			if fx.best[qid] == nil {
				fx.best[qid] = map[string]int{}
			}
			for i := 0; i < 150; i++ {
				// Run a: documents q*10 + i; run b: every other document from q*10 + 50.
				d := (q*10 + i + r*50 + r*i) % 400
				doc := fmt.Sprintf("d%03d", d)
				res[qid] = append(res[qid], retrieval.Result{DocID: doc, Score: float64(1000 - i)})
				if b, ok := fx.best[qid][doc]; !ok || i+1 < b {
					fx.best[qid][doc] = i + 1
				}
			}
		}
		if _, err := retrieval.SaveRun(ctx, st, p.ID, name, "test", nil, qs, res); err != nil {
			t.Fatal(err)
		}
	}
	return fx
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// design reads a pool's design and checks what every design must hold:
// each stratum's units number its sampled count, each unit's inclusion
// probability is n_h/N_h of its stratum, and the stored items are the
// units in priority order with origin sample.
func checkedDesign(t *testing.T, st *store.Store, poolID int64) map[string]store.PoolDesignQuery {
	t.Helper()
	ctx := context.Background()
	ds, err := st.PoolDesign(ctx, poolID)
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.PoolItems(ctx, poolID)
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for q, d := range ds {
		n := make([]int, len(d.Strata))
		for _, u := range d.Units {
			n[u.Stratum]++
			s := d.Strata[u.Stratum]
			if want := float64(s.Sampled) / float64(s.Population); math.Abs(u.Pi-want) > 1e-12 {
				t.Errorf("%s %s: π %v in stratum %q, want n/N = %d/%d", q, u.Doc, u.Pi, s.Name, s.Sampled, s.Population)
			}
		}
		for h, s := range d.Strata {
			if n[h] != s.Sampled {
				t.Errorf("%s stratum %q: %d units, sampled %d", q, s.Name, n[h], s.Sampled)
			}
		}
		units += len(d.Units)
	}
	if units != len(items) {
		t.Fatalf("%d units, %d pool items", units, len(items))
	}
	at := map[string]int{}
	for _, it := range items {
		if it.Origin != OriginSample || it.Inclusion <= 0 || it.Priority != at[it.QueryExtID] {
			t.Fatalf("item %+v (want origin sample, an inclusion probability, priority %d)", it, at[it.QueryExtID])
		}
		u := ds[it.QueryExtID].Units[it.Priority]
		if u.Doc != it.DocExtID || u.Pi != it.Inclusion || u.Stratum != it.Stratum {
			t.Fatalf("item %+v is not unit %+v", it, u)
		}
		at[it.QueryExtID]++
	}
	return ds
}

// TestSamplePool: strategy sample draws every query's stratified sample
// over the runs' union: the rate-1 stratum whole, the others at n_h/N_h,
// populations that partition the union by best rank; the draw is the same
// when the pool is made again under its name (seed 0) and differs under
// another seed; the report sums the design.
func TestSamplePool(t *testing.T) {
	ctx := context.Background()
	fx := newSampleFixture(t)
	spec := Spec{Name: "s", Runs: []string{"a", "b"}, Strategy: Sample, Sample: &SampleParams{Strata: []estimate.RankStratum{
		{From: 1, To: 10, Rate: 1}, {From: 11, To: 60, Rate: 0.2}, {From: 61, To: 150, Rate: 0.1}}}}
	m, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: spec}, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := checkedDesign(t, fx.st, m.PoolID)
	if len(ds) != 3 {
		t.Fatalf("%d query designs, want 3", len(ds))
	}
	pool, err := fx.st.PoolByName(ctx, fx.project, "s")
	if err != nil || pool.Strategy != Sample || pool.Depth != 150 {
		t.Fatalf("pool %+v (%v): want strategy sample, depth 150 (the deepest stratum)", pool, err)
	}
	for q, d := range ds {
		union := fx.best[q]
		pop := 0
		for _, s := range d.Strata {
			pop += s.Population
		}
		if pop != len(union) {
			t.Errorf("%s: strata hold %d documents, the union %d", q, pop, len(union))
		}
		drawn := map[string]bool{}
		for _, u := range d.Units {
			if _, ok := union[u.Doc]; !ok {
				t.Errorf("%s: %s drawn, not in the runs' union", q, u.Doc)
			}
			drawn[u.Doc] = true
		}
		top := 0
		for doc, r := range union {
			if r <= 10 {
				top++
				if !drawn[doc] {
					t.Errorf("%s: %s (best rank %d) missing from the rate-1 stratum", q, doc, r)
				}
			}
		}
		// The rate-1 stratum's units have π = 1; the others' are below 1.
		for _, u := range d.Units {
			if r := union[u.Doc]; (r <= 10) != (u.Pi == 1) {
				t.Errorf("%s: %s of best rank %d has π %v", q, u.Doc, r, u.Pi)
			}
		}
		if top == 0 {
			t.Fatalf("%s: no document within rank 10", q)
		}
	}
	rep := m.Report.Sample
	if rep == nil || rep.Units != m.Composition.Items || rep.New != rep.Units || rep.JudgedBefore != 0 || len(rep.Strata) < 3 {
		t.Fatalf("report %+v (composition %d items)", rep, m.Composition.Items)
	}
	// Expected new judgments: Σ rate × population, by best rank.
	want, pairs := 0.0, 0
	for _, union := range fx.best {
		for _, r := range union {
			switch {
			case r <= 10:
				want++
			case r <= 60:
				want += 0.2
			default:
				want += 0.1
			}
		}
		pairs += 3
	}
	if math.Abs(rep.Expected-want) > 1e-9 || math.Abs(rep.Expected-float64(rep.New)) > float64(pairs) {
		t.Errorf("expected %v, want %v; drew %d (each stratum's size rounds rate × N up or down)", rep.Expected, want, rep.New)
	}
	if rep.Config.Seed != nameSeed("s") {
		t.Errorf("seed %d, want the name's %d", rep.Config.Seed, nameSeed("s"))
	}

	// The same name draws the same sample (a retried pool job); another
	// seed another one.
	again, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: spec}, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(checkedDesign(t, fx.st, again.PoolID)) != fmt.Sprint(ds) {
		t.Error("making the pool again under its name drew another sample")
	}
	other := spec
	other.Name = "s2"
	other.Sample = &SampleParams{Strata: spec.Sample.Strata, Seed: 99}
	m2, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: other}, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(checkedDesign(t, fx.st, m2.PoolID)["q0"].Units) == fmt.Sprint(ds["q0"].Units) {
		t.Error("seed 99 drew the same sample as the name's seed")
	}
}

// TestSamplePoolBudget: with a budget the rates are scaled so that the
// pool asks for that many new judgments in expectation.
func TestSamplePoolBudget(t *testing.T) {
	ctx := context.Background()
	fx := newSampleFixture(t)
	for _, budget := range []int{120, 250} {
		spec := Spec{Name: fmt.Sprintf("b%d", budget), Runs: []string{"a", "b"}, Strategy: Sample, Sample: &SampleParams{Budget: budget, Strata: []estimate.RankStratum{
			{From: 1, To: 10, Rate: 1}, {From: 11, To: 60, Rate: 0.5}, {From: 61, To: 150, Rate: 0.5}}}}
		m, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: spec}, quiet(), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkedDesign(t, fx.st, m.PoolID)
		rep := m.Report.Sample
		// Rounding per (query, stratum) moves the count by at most one each.
		slack := float64(3 * len(rep.Strata))
		if math.Abs(rep.Expected-float64(budget)) > 1e-6 || math.Abs(float64(rep.New)-float64(budget)) > slack {
			t.Errorf("budget %d: expected %.1f, drew %d (slack %.0f); config %+v", budget, rep.Expected, rep.New, slack, rep.Config)
		}
	}
	// Over many seeds the mean draw is the budget (each stratum's size is
	// rate × N rounded at random: at most ±1 per stratum, so its standard
	// error over 40 draws is below sqrt(strata)/sqrt(40)).
	const budget, draws = 200, 40
	total, strata := 0, 0
	for seed := uint64(1); seed <= draws; seed++ {
		rep, err := Preview(ctx, fx.st, fx.project, Spec{Name: "p", Runs: []string{"a", "b"}, Strategy: Sample, Sample: &SampleParams{Budget: budget, Seed: seed}}, quiet())
		if err != nil {
			t.Fatal(err)
		}
		total += rep.Sample.New
		strata = len(rep.Sample.Strata) * 3
	}
	if mean := float64(total) / draws; math.Abs(mean-budget) > 3*math.Sqrt(float64(strata))/math.Sqrt(draws) {
		t.Errorf("mean draw %.2f over %d seeds, budget %d", mean, draws, budget)
	}
	// A budget below the rate-1 strata is refused, naming the budget.
	_, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: Spec{Name: "tiny", Runs: []string{"a", "b"}, Strategy: Sample, Sample: &SampleParams{Budget: 10}}}, quiet(), nil)
	var inv *apperr.Invalid
	if !errors.As(err, &inv) || inv.Field != "sample.budget" {
		t.Errorf("budget 10: %v, want invalid sample.budget", err)
	}
}

// TestSamplePoolJudgedBefore: adding a sampled pool to a project that has
// judgments: the judged documents are the design's certainty stratum
// (π = 1), items of the pool, and publishing creates no item for them.
func TestSamplePoolJudgedBefore(t *testing.T) {
	ctx := context.Background()
	fx := newSampleFixture(t)
	st := fx.st
	// A first pool, published, and three of its items judged.
	first, err := Make(ctx, st, fx.project, MakeRequest{Spec: Spec{Name: "first", Runs: []string{"a"}, Depth: 3, Strategy: Depth}, Publish: true}, quiet(), nil)
	if err != nil || first.Publish.Items != 9 {
		t.Fatalf("first pool %+v: %v", first.Publish, err)
	}
	u, err := st.CreateUser(ctx, store.NewUser{Username: "rater", Role: "annotator", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Pool().Query(ctx, `SELECT i.id, q.ext_id, d.ext_id FROM items i JOIN queries q ON q.id = i.query_id
		JOIN documents d ON d.id = i.document_id WHERE i.pool_id = $1 AND q.ext_id = 'q0' ORDER BY i.priority`, first.PoolID)
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]bool{}
	var ids []int64
	for rows.Next() {
		var id int64
		var q, d string
		if err := rows.Scan(&id, &q, &d); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		judged[d] = true
	}
	rows.Close()
	for n, id := range ids {
		rel := int16(n % 2)
		ev := "partial"
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", n+1), ItemID: id,
			UserID: u.ID, ProjectID: fx.project, Kind: "relevance", Relevance: &rel, Evidence: &ev}); err != nil {
			t.Fatal(err)
		}
	}
	var before int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM items WHERE project_id = $1 AND kind = 'relevance'`, fx.project).Scan(&before); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "s", Runs: []string{"a", "b"}, Strategy: Sample, Sample: &SampleParams{Strata: []estimate.RankStratum{
		{From: 1, To: 10, Rate: 1}, {From: 11, To: 150, Rate: 0.1}}}}
	m, err := Make(ctx, st, fx.project, MakeRequest{Spec: spec, Publish: true}, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := checkedDesign(t, st, m.PoolID)
	d := ds["q0"]
	var certain *store.PoolStratum
	h := -1
	for i, s := range d.Strata {
		if s.Name == JudgedBeforeStratum {
			certain, h = &d.Strata[i], i
		}
	}
	if certain == nil || certain.Population != len(judged) || certain.Sampled != len(judged) {
		t.Fatalf("q0 strata %+v: want a %q stratum of the %d judged documents", d.Strata, JudgedBeforeStratum, len(judged))
	}
	inStratum := map[string]bool{}
	for _, u := range d.Units {
		if u.Stratum == h {
			if u.Pi != 1 {
				t.Errorf("judged before %s has π %v", u.Doc, u.Pi)
			}
			inStratum[u.Doc] = true
		} else if judged[u.Doc] {
			t.Errorf("judged document %s drawn again in stratum %q", u.Doc, d.Strata[u.Stratum].Name)
		}
	}
	if len(inStratum) != len(judged) {
		t.Errorf("judged before %v, want %v", inStratum, judged)
	}
	for _, q := range []string{"q1", "q2"} {
		for _, s := range ds[q].Strata {
			if s.Name == JudgedBeforeStratum && s.Population != 0 {
				t.Errorf("%s: %d judged before, none were", q, s.Population)
			}
		}
	}
	if m.Report.Sample.JudgedBefore != len(judged) || m.Report.Sample.New != m.Report.Sample.Units-len(judged) {
		t.Errorf("report %+v", m.Report.Sample)
	}
	// Publishing created items only for documents without one: not for the
	// judged ones (their items stay the first pool's), nor for the first
	// pool's unjudged ones.
	var after, moved int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE pool_id = $2) FROM items WHERE project_id = $1 AND kind = 'relevance'`,
		fx.project, m.PoolID).Scan(&after, &moved); err != nil {
		t.Fatal(err)
	}
	if after != before+m.Publish.Items || moved != m.Publish.Items {
		t.Errorf("items %d → %d, %d of the sampled pool; publish says %d", before, after, moved, m.Publish.Items)
	}
	var republished int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM items i JOIN documents d ON d.id = i.document_id
		WHERE i.pool_id = $1 AND d.ext_id = ANY($2) AND i.query_id = $3`, m.PoolID, keys(judged), fx.queries["q0"]).Scan(&republished); err != nil || republished != 0 {
		t.Errorf("%d judged documents published again (%v)", republished, err)
	}
	if m.Publish.Items > m.Report.Sample.New || m.Publish.Items == 0 {
		t.Errorf("published %d items for %d new units", m.Publish.Items, m.Report.Sample.New)
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSamplePoolCorpus: corpus strata draw documents no run retrieved by
// the BM25 ranking of the query (no sources), and the rest stratum covers
// the whole corpus: the strata partition the 400 documents.
func TestSamplePoolCorpus(t *testing.T) {
	ctx := context.Background()
	fx := newSampleFixture(t)
	spec := Spec{Name: "c", Runs: []string{"a"}, Strategy: Sample, Sample: &SampleParams{
		Strata: []estimate.RankStratum{{From: 1, To: 20, Rate: 1}},
		Corpus: &estimate.CorpusStratum{Bounds: []int{50}, Rates: []float64{0.2}, Rest: true, RestRate: 0.05}}}
	m, err := Make(ctx, fx.st, fx.project, MakeRequest{Spec: spec}, quiet(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := checkedDesign(t, fx.st, m.PoolID)
	items, err := fx.st.PoolItems(ctx, m.PoolID)
	if err != nil {
		t.Fatal(err)
	}
	outside := 0
	for _, it := range items {
		if len(it.Sources) == 0 {
			outside++
		}
	}
	for q, d := range ds {
		pop := 0
		for _, s := range d.Strata {
			pop += s.Population
		}
		if pop != 400 {
			t.Errorf("%s: strata hold %d documents, the corpus 400", q, pop)
		}
	}
	if outside == 0 {
		t.Error("no item from the corpus strata")
	}
	if m.Report.Sample.Config.Corpus == nil || m.Composition.ProbeOnly != 0 {
		t.Errorf("report %+v composition %+v", m.Report.Sample, m.Composition)
	}
	var params struct {
		Sample SampleParams `json:"sample"`
	}
	pool, _ := fx.st.PoolByName(ctx, fx.project, "c")
	if err := json.Unmarshal(pool.Params, &params); err != nil || params.Sample.Proxy != ProxyBM25 || params.Sample.Seed == 0 {
		t.Errorf("stored params %s (%v)", pool.Params, err)
	}
}

// TestSampleCheck: bad sample specs are refused naming the field.
func TestSampleCheck(t *testing.T) {
	ctx := context.Background()
	fx := newSampleFixture(t)
	strata := func(s ...estimate.RankStratum) *SampleParams { return &SampleParams{Strata: s} }
	cases := []struct {
		name   string
		sample *SampleParams
		probes bool
		field  string
	}{
		{"rate", strata(estimate.RankStratum{From: 1, To: 10, Rate: 1}, estimate.RankStratum{From: 11, To: 20, Rate: 1.5}), false, "sample.strata[1].rate"},
		{"zero rate", strata(estimate.RankStratum{From: 1, To: 10, Rate: 0}), false, "sample.strata[0].rate"},
		{"gap", strata(estimate.RankStratum{From: 1, To: 10, Rate: 1}, estimate.RankStratum{From: 12, To: 20, Rate: 1}), false, "sample.strata[1].from"},
		{"start", strata(estimate.RankStratum{From: 2, To: 10, Rate: 1}), false, "sample.strata[0].from"},
		{"too deep", strata(estimate.RankStratum{From: 1, To: 5000, Rate: 1}), false, "sample.strata[0].to"},
		{"budget", &SampleParams{Budget: -1}, false, "sample.budget"},
		{"corpus rates", &SampleParams{Corpus: &estimate.CorpusStratum{Bounds: []int{100, 1000}, Rates: []float64{0.1}}}, false, "sample.corpus.rates"},
		{"corpus bounds", &SampleParams{Corpus: &estimate.CorpusStratum{Bounds: []int{100, 50}, Rates: []float64{0.1, 0.1}}}, false, "sample.corpus.bounds[1]"},
		{"rest rate", &SampleParams{Corpus: &estimate.CorpusStratum{Rest: true}}, false, "sample.corpus.rest_rate"},
		{"proxy", &SampleParams{Proxy: "cal", Corpus: &estimate.CorpusStratum{Bounds: []int{10}, Rates: []float64{0.1}}}, false, "sample.proxy"},
		{"probes", nil, true, "probes"},
	}
	for _, tc := range cases {
		_, err := Check(ctx, fx.st, fx.project, Spec{Name: "x", Runs: []string{"a"}, Strategy: Sample, Sample: tc.sample, Probes: tc.probes})
		var inv *apperr.Invalid
		if !errors.As(err, &inv) || inv.Field != tc.field {
			t.Errorf("%s: %v, want invalid %s", tc.name, err, tc.field)
		}
	}
	// Defaults: the estimate package's strata, the depth their end, a seed.
	got, err := Check(ctx, fx.st, fx.project, Spec{Name: "x", Runs: []string{"a"}, Strategy: Sample})
	if err != nil {
		t.Fatal(err)
	}
	def := estimate.DefaultConfig().Strata
	if got.Sample == nil || len(got.Sample.Strata) != len(def) || got.Depth != def[len(def)-1].To || got.Sample.Seed != nameSeed("x") {
		t.Fatalf("defaults %+v %+v", got, got.Sample)
	}
	// Another strategy drops the sample parameters.
	if got, err := Check(ctx, fx.st, fx.project, Spec{Name: "x", Runs: []string{"a"}, Depth: 5, Strategy: Depth, Sample: &SampleParams{Budget: 5}}); err != nil || got.Sample != nil {
		t.Fatalf("depth spec %+v (%v)", got, err)
	}
}
