package web

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// sampleChoice is the pool builder's choice for strategy sample (a
// stratified sample with inclusion probabilities): the rank strata and
// corpus strata in the CLI's notation, the judgment budget and the seed.
// The seed is chosen when the page opens, so that the preview and the
// published pool are the same draw.
type sampleChoice struct {
	strata string  // FROM-TO:RATE,… ("": the server's defaults)
	corpus string  // BOUND:RATE,… ("": no corpus strata)
	rest   float64 // rate of the rest of the corpus (0: none)
	budget int     // new judgments over all queries (0: the rates as given)
	seed   uint64
}

// newSampleChoice is the default design: ranks 1-10 whole, 11-100 at 0.2,
// 101-1000 at 0.05, with a fresh seed.
func newSampleChoice() sampleChoice {
	return sampleChoice{strata: api.FormatSampleStrata([]api.SampleStratum{{From: 1, To: 10, Rate: 1}, {From: 11, To: 100, Rate: 0.2}, {From: 101, To: 1000, Rate: 0.05}}),
		seed: 1 + rand.Uint64N(1<<53-1)}
}

// spec is the choice as the wire spec; an error names the field of the
// form that does not parse.
func (c *sampleChoice) spec() (*api.SampleSpec, error) {
	s := &api.SampleSpec{Budget: c.budget, Seed: c.seed}
	var err error
	if s.Strata, err = api.ParseSampleStrata(c.strata); err != nil {
		return nil, fmt.Errorf("rank strata: %w", err)
	}
	if c.corpus != "" || c.rest != 0 {
		s.Corpus = &api.SampleCorpus{Rest: c.rest != 0, RestRate: c.rest}
		if s.Corpus.Bounds, s.Corpus.Rates, err = api.ParseSampleCorpus(c.corpus); err != nil {
			return nil, fmt.Errorf("corpus strata: %w", err)
		}
	}
	return s, nil
}

// render draws the sample fields; changed is called on every edit.
func (c *sampleChoice) render(changed func()) app.UI {
	text := func(v *string) func(app.Context, app.Event) {
		return func(ctx app.Context, e app.Event) { *v = ctx.JSSrc().Get("value").String(); changed() }
	}
	return app.Div().ID("pool-sample").Body(
		app.P().Class("hint").Text("A stratified random sample: every drawn item records its inclusion probability, so AP, nDCG, P@k and R@k "+
			"can be estimated without bias from the judgments (statAP, Aslam, Pavlu & Yilmaz 2006; infAP, Yilmaz, Kanoulas & Aslam 2008). "+
			"Documents this project has judged already count with probability 1 and are not published again."),
		app.Div().Class("field").Body(
			app.Label().For("pool-sample-strata").Text("Rank strata: best rank over the runs FROM-TO:RATE, from rank 1, contiguous"),
			app.Input().ID("pool-sample-strata").Type("text").Value(c.strata).Placeholder("1-10:1,11-100:0.2,101-1000:0.05").OnInput(text(&c.strata)),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-sample-budget").Text("Judgment budget over all queries (empty: the rates as given; else they are scaled to it)"),
			app.Input().ID("pool-sample-budget").Type("number").Min(0).Value(map[bool]string{true: "", false: strconv.Itoa(c.budget)}[c.budget == 0]).
				OnInput(func(ctx app.Context, e app.Event) {
					c.budget, _ = strconv.Atoi(ctx.JSSrc().Get("value").String())
					changed()
				}),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-sample-corpus").Text("Corpus strata (optional): BM25 rank of the query over the documents no run has, BOUND:RATE"),
			app.Input().ID("pool-sample-corpus").Type("text").Value(c.corpus).Placeholder("1000:0.02,10000:0.005").OnInput(text(&c.corpus)),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-sample-rest").Text("Rest of the corpus at rate (empty: not sampled)"),
			app.Input().ID("pool-sample-rest").Type("number").Min(0).Max(1).Step(0.0001).Value(map[bool]string{true: "", false: strconv.FormatFloat(c.rest, 'g', -1, 64)}[c.rest == 0]).
				OnInput(func(ctx app.Context, e app.Event) {
					c.rest, _ = strconv.ParseFloat(ctx.JSSrc().Get("value").String(), 64)
					changed()
				}),
		),
		app.Div().Class("field").Body(
			app.Label().For("pool-sample-seed").Text("Random seed"),
			app.Input().ID("pool-sample-seed").Type("number").Min(1).Value(strconv.FormatUint(c.seed, 10)).
				OnInput(func(ctx app.Context, e app.Event) {
					c.seed, _ = strconv.ParseUint(ctx.JSSrc().Get("value").String(), 10, 64)
					changed()
				}),
		),
	)
}
