package web

import (
	"context"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// derivedRefresh is how often the derived-qrels panels reload while shown.
const derivedRefresh = 2 * time.Second

// derivedFeed loads a project's derived qrels every derivedRefresh until
// stopped; embedded in a panel, it is the panel's OnDismount.
type derivedFeed struct {
	stop   chan struct{}
	errMsg string // why the last load failed ("" after a success)
}

// start begins the reloads (the panel's OnMount); apply runs on the UI
// goroutine with each answer, a failure sets errMsg ("<what> could not be
// loaded: …").
func (f *derivedFeed) start(ctx app.Context, project, what string, apply func(api.DerivedQrels)) {
	if !app.IsClient || f.stop != nil || project == "" {
		return
	}
	stop := make(chan struct{})
	f.stop = stop
	cl := NewClient()
	reloadEvery(ctx, stop, func(c context.Context) (api.DerivedQrels, error) { return cl.Derived(c, project) },
		func(d api.DerivedQrels, err error) {
			if err != nil {
				f.errMsg = what + " could not be loaded: " + err.Error()
				return
			}
			f.errMsg = ""
			apply(d)
		})
}

// reloadEvery fetches (20 s at most each time) at once and then every
// derivedRefresh until stop is closed; apply runs on the UI goroutine with
// each answer that came before stop.
func reloadEvery[T any](ctx app.Context, stop <-chan struct{}, fetch func(context.Context) (T, error), apply func(T, error)) {
	ctx.Async(func() {
		t := time.NewTicker(derivedRefresh)
		defer t.Stop()
		for {
			c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			v, err := fetch(c)
			cancel()
			select {
			case <-stop:
				return
			default:
			}
			ctx.Dispatch(func(app.Context) { apply(v, err) })
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
}

// OnDismount stops the reloads.
func (f *derivedFeed) OnDismount() {
	if f.stop != nil {
		close(f.stop)
		f.stop = nil
	}
}

// DerivedPanel is the dashboard's derived-qrels section (issue 13): per
// query, how many documents the constraint judgments (atom labels) already
// decide relevant or not relevant and how many are still unknown, for all
// the project's queries at once; the cross-query consistency flags; and a
// button that pools constraint items from the project's pooled documents.
// It reloads every two seconds while shown.
type DerivedPanel struct {
	app.Compo
	Iproject string

	derivedFeed
	data    api.DerivedQrels
	loaded  bool
	pooling bool
	poolMsg string
}

// NewDerivedPanel returns the panel.
func NewDerivedPanel() *DerivedPanel { return &DerivedPanel{} }

// Project sets the project shown.
func (d *DerivedPanel) Project(v string) *DerivedPanel { d.Iproject = v; return d }

// OnMount starts the reloads.
func (d *DerivedPanel) OnMount(ctx app.Context) {
	d.start(ctx, d.Iproject, "Derived qrels", func(v api.DerivedQrels) { d.data, d.loaded = v, true })
}

func (d *DerivedPanel) pool(ctx app.Context, e app.Event) {
	if d.pooling {
		return
	}
	d.pooling = true
	project := d.Iproject
	ctx.Async(func() {
		res, err := NewClient().PoolConstraints(context.Background(), project, api.ConstraintPoolRequest{})
		ctx.Dispatch(func(app.Context) {
			d.pooling = false
			if err != nil {
				d.poolMsg = "Not pooled: " + err.Error()
				return
			}
			d.poolMsg = fmt.Sprintf("%d constraint items created from %d candidate (constraint, document) pairs.", res.Created, res.Candidates)
		})
	})
}

// Render draws the panel.
func (d *DerivedPanel) Render() app.UI {
	v := d.data
	return app.Section().ID("derived").Aria("label", "Derived qrels").DataSet("loaded", d.loaded).
		DataSet("relevant", v.Relevant).DataSet("unknown", v.Unknown).DataSet("judged", v.Constraint.Judged).Body(
		app.H2().Text("Derived qrels (constraint judgments)"),
		app.P().ID("derived-summary").Role("status").Textf(
			"%d constraint items, %d decided by consensus (%d judgments); %d shared constraints with %d labels. Derived: %d relevant, %d not relevant, %d unknown.",
			v.Constraint.Items, v.Constraint.Judged, v.Constraint.Judgments, v.Atoms, v.AtomLabels, v.Relevant, v.NonRelevant, v.Unknown),
		app.If(v.Constraint.MultiRated > 0, func() app.UI {
			kappa := "κ undefined"
			if v.Constraint.Kappa != nil {
				kappa = fmt.Sprintf("Fleiss' κ %.2f over %d items", *v.Constraint.Kappa, v.Constraint.KappaItems)
			}
			return app.P().ID("constraint-agreement").DataSet("multi", v.Constraint.MultiRated).Textf(
				"Agreement: %.0f%% of the %d constraint items with two or more votes are unanimous; %s.",
				100*v.Constraint.Unanimous, v.Constraint.MultiRated, kappa)
		}),
		app.Div().Class("actions").Body(
			app.Button().Type("button").ID("pool-constraints").Disabled(d.pooling).
				Text("Pool constraint items from the pooled documents").OnClick(d.pool),
			app.A().Href("/constraint/"+d.Iproject).Text("Judge constraints"),
		),
		app.If(d.poolMsg != "", func() app.UI { return app.P().ID("pool-message").Class("notice").Role("status").Text(d.poolMsg) }),
		app.If(d.errMsg != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(d.errMsg) }),
		// Collapsed: a project's hundreds of queries would push the
		// agreement and everything below it thousands of pixels down.
		app.Details().ID("derived-queries").DataSet("queries", len(v.Queries)).Body(
			app.Summary().Textf("Per-query derived labels (%s)", plural(len(v.Queries), "query", "queries")),
			app.Table().ID("derived-table").Class("data").Body(
				app.Caption().Text("Per query: documents whose label follows from the constraint labels under the query's logic (unknown: a constraint that matters is unjudged or unsure)"),
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Query"),
					app.Th().Scope("col").Text("Logic"),
					app.Th().Scope("col").Text("Relevant"),
					app.Th().Scope("col").Text("Not relevant"),
					app.Th().Scope("col").Text("Unknown"),
					app.Th().Scope("col").Text("Direct"),
					app.Th().Scope("col").Text("Conflicts"),
				)),
				app.TBody().Body(
					app.Range(v.Queries).Slice(func(i int) app.UI {
						q := v.Queries[i]
						name := q.QueryExtID
						if q.Variant {
							name += " (variant)"
						}
						return app.Tr().ID("derived-"+q.QueryExtID).DataSet("relevant", q.Relevant).DataSet("nonrelevant", q.NonRelevant).
							DataSet("unknown", q.Unknown).Body(
							app.Th().Scope("row").Title(q.Text).Text(name),
							app.Td().Text(q.Expression),
							app.Td().Class("num").Text(q.Relevant),
							app.Td().Class("num").Text(q.NonRelevant),
							app.Td().Class("num").Text(q.Unknown),
							app.Td().Class("num").Text(q.Direct),
							app.Td().Class("num").Text(q.Conflicts),
						)
					}),
				),
			),
		),
		renderFlags(v.Flags),
	)
}

// renderFlags lists consistency flags with their logical reasons.
func renderFlags(flags []api.ConsistencyFlag) app.UI {
	return app.Div().ID("consistency-flags").DataSet("count", len(flags)).Body(
		app.H3().Textf("Cross-query consistency (%d flags)", len(flags)),
		app.If(len(flags) == 0, func() app.UI {
			return app.P().Class("hint").Text("No contradiction between related queries or between direct and derived labels.")
		}),
		app.Ul().Class("flags").Body(
			app.Range(flags).Slice(func(i int) app.UI {
				f := flags[i]
				who := f.Query
				if f.Other != "" {
					who += " / " + f.Other
				}
				return app.Li().Class("flag").DataSet("doc", f.Doc).DataSet("query", f.Query).Body(
					app.Strong().Textf("%s · %s: ", f.Doc, who),
					app.Span().Class("reason").Text(f.Reason),
				)
			}),
		),
	)
}

// ConsistencyPanel is the adjudication queue's list of consistency flags
// (issue 13): documents whose direct judgments contradict a related
// query's or the derived labels, with the logical reason. It reloads every
// two seconds while shown.
type ConsistencyPanel struct {
	app.Compo
	Iproject string

	derivedFeed
	flags []api.ConsistencyFlag
}

// NewConsistencyPanel returns the panel.
func NewConsistencyPanel() *ConsistencyPanel { return &ConsistencyPanel{} }

// Project sets the project shown.
func (c *ConsistencyPanel) Project(v string) *ConsistencyPanel { c.Iproject = v; return c }

// OnMount starts the reloads.
func (c *ConsistencyPanel) OnMount(ctx app.Context) {
	c.start(ctx, c.Iproject, "Consistency flags", func(v api.DerivedQrels) { c.flags = v.Flags })
}

// Render draws the panel.
func (c *ConsistencyPanel) Render() app.UI {
	return app.Section().ID("consistency").Class("consistency-panel").Aria("label", "Cross-query consistency").Body(
		app.If(c.errMsg != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(c.errMsg) }),
		renderFlags(c.flags),
	)
}
