package web

import (
	"context"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// CALExtendStep is how many judgments the Extend button adds to a query's
// review.
const CALExtendStep = 20

// CALPanel is the dashboard's "Active learning" section: per query of each
// cal pool, the batches served, where its items came from (runs or active
// learning), the relevant documents found so far, the estimated recall with
// its basis and whether the stopping rule fired, with Stop and Extend
// buttons. It reloads whenever the dashboard's snapshot version changes
// (every applied judgment), and shows nothing for a project without cal
// pools.
type CALPanel struct {
	app.Compo
	Project string
	Version uint64

	panelLoader
	pools   []api.CALPool
	busy    bool
	message string
	polling bool
}

// NewCALPanel returns the panel of a project.
func NewCALPanel(project string, version uint64) *CALPanel {
	return &CALPanel{Project: project, Version: version}
}

// OnMount loads the project's cal pools.
func (c *CALPanel) OnMount(ctx app.Context) { c.mount(ctx, c.load) }

// OnUpdate reloads after a new snapshot (or for another project).
func (c *CALPanel) OnUpdate(ctx app.Context) { c.update(ctx, panelKey(c.Project, c.Version), c.load) }

// load fetches the pools; one request at a time (a burst of snapshots
// costs at most one more).
func (c *CALPanel) load(ctx app.Context) {
	project := c.Project
	panelLoad(&c.panelLoader, panelKey(c.Project, c.Version), c.load,
		func(ctx context.Context, cl *Client) ([]api.CALPool, error) { return cl.CALPools(ctx, project) },
		func(ctx app.Context, pools []api.CALPool, err error) {
			if err != nil {
				c.message = "Could not load the active-learning pools: " + err.Error()
				return
			}
			c.pools = pools
			c.poll(ctx)
		})
}

// poll reloads every two seconds while some query's next batch is being
// computed (its batch is judged, it is active): the batch arrives from a
// background job, not with a judgment, so no snapshot announces it.
func (c *CALPanel) poll(ctx app.Context) {
	if c.polling || !c.mounted || !c.waiting() {
		return
	}
	c.polling = true
	c.self.After(2*time.Second, func(ctx app.Context) {
		c.polling = false
		if c.mounted {
			c.load(ctx)
		}
	})
}

// waiting reports whether a query waits for its next batch.
func (c *CALPanel) waiting() bool {
	for _, p := range c.pools {
		if p.Status != "published" {
			continue
		}
		for _, q := range p.Queries {
			if q.State == "active" && q.Pending == 0 {
				return true
			}
		}
	}
	return false
}

// act stops or extends a query, then reloads.
func (c *CALPanel) act(ctx app.Context, q api.CALQueryStatus, extend bool) {
	cl, project, self := c.client, c.Project, c.self
	c.busy = true
	self.Async(func() {
		var err error
		if extend {
			_, err = cl.ExtendCALQuery(context.Background(), project, q.PoolID, q.QueryID, CALExtendStep)
		} else {
			_, err = cl.StopCALQuery(context.Background(), project, q.PoolID, q.QueryID)
		}
		self.Dispatch(func(ctx app.Context) {
			c.busy = false
			switch {
			case err != nil:
				c.message = "Could not change " + q.Query + ": " + err.Error()
			case extend:
				c.message = fmt.Sprintf("%s goes on for %d more judgments.", q.Query, CALExtendStep)
			default:
				c.message = q.Query + " is stopped: no further batches."
			}
			c.load(ctx)
		})
	})
}

// Render draws one table per cal pool.
func (c *CALPanel) Render() app.UI {
	if len(c.pools) == 0 && c.message == "" {
		return app.Section().ID("cal").Hidden(true)
	}
	return app.Section().ID("cal").Aria("label", "Active learning").DataSet("loading", c.loading).Body(
		app.H2().Text("Active learning"),
		app.If(c.message != "", func() app.UI { return app.P().ID("cal-message").Class("notice").Role("status").Text(c.message) }),
		app.Range(c.pools).Slice(func(i int) app.UI { return c.renderPool(c.pools[i]) }),
	)
}

func (c *CALPanel) renderPool(p api.CALPool) app.UI {
	return app.Div().Class("cal-pool").DataSet("pool", p.Name).Body(
		app.H3().Textf("%s (stopping rule: %s)", p.Name, p.Stop),
		app.Table().Class("cal-table").Body(
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Query"), app.Th().Scope("col").Text("Batch"),
				app.Th().Scope("col").Text("Items (runs / active learning)"), app.Th().Scope("col").Text("Judged"),
				app.Th().Scope("col").Text("Relevant found"), app.Th().Scope("col").Text("Estimated recall"),
				app.Th().Scope("col").Text("Basis"), app.Th().Scope("col").Text("Stopping rule"),
				app.Th().Scope("col").Text("State"), app.Th().Scope("col").Text("Actions"),
			)),
			app.TBody().Body(app.Range(p.Queries).Slice(func(i int) app.UI {
				q := p.Queries[i]
				fired := "not yet"
				switch {
				case q.Fired:
					fired = "fired"
				case p.Stop == "none":
					fired = "off"
				}
				state := q.State
				if q.Reason != "" {
					state += " (" + q.Reason + ")"
				}
				return app.Tr().DataSet("query", q.Query).DataSet("state", q.State).DataSet("fired", q.Fired).Body(
					app.Th().Scope("row").Title(q.Text).Text(q.Query),
					app.Td().Class("cal-round").Textf("%d (%d items, %d open)", q.Round+1, q.BatchSize, q.Pending),
					app.Td().Class("cal-items").Textf("%d (%d / %d)", q.Items, q.FromRuns, q.FromCAL),
					app.Td().Class("cal-judged").Text(q.Judged),
					app.Td().Class("cal-found").Text(q.Found),
					app.Td().Class("cal-recall").Textf("%.0f%%", q.Recall*100),
					app.Td().Class("cal-basis").Text(q.Basis),
					app.Td().Class("cal-fired").Text(fired),
					app.Td().Class("cal-state").Text(state),
					app.Td().Body(
						app.Button().Class("cal-stop").Disabled(c.busy || q.State != "active").Aria("label", "Stop "+q.Query).
							Text("Stop").OnClick(func(ctx app.Context, e app.Event) { c.act(ctx, q, false) }),
						app.Button().Class("cal-extend").Disabled(c.busy).Aria("label", fmt.Sprintf("Extend %s by %d judgments", q.Query, CALExtendStep)).
							Textf("Extend +%d", CALExtendStep).OnClick(func(ctx app.Context, e app.Event) { c.act(ctx, q, true) }),
					),
				)
			})),
		),
	)
}
