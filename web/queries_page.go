package web

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
	"boolpool/server/boolexpr"
)

// QueriesPage is the query-expression editor (/queries/:project): it lists
// a project's queries with their Boolean expressions; the researcher picks
// one, edits the printed expression (letters A, B, … with one atom text
// per line) under live validation, can fill both from the decomposer's
// suggestion, and saves the correction (audited on the server). The list
// can put the decomposer's least confident readings first, the ones to
// check.
type QueriesPage struct {
	app.Compo
	projectPage
	queries  []api.QueryExpression
	selected int64
	expr     string
	atoms    string // one atom text per line
	busy     bool
	// needForce is set when the server refused to renumber the atoms of
	// a judged query: the editor then offers "Save anyway".
	needForce bool
	// byConfidence lists the decomposer's least confident readings
	// first (queries without a confidence last, in import order).
	byConfidence bool
	// search keeps the queries whose id, text or atoms contain it.
	search string
}

// NewQueriesPage returns the page.
func NewQueriesPage() *QueriesPage {
	return &QueriesPage{projectPage: projectPage{state: stateLoading}}
}

// OnNav reads the project and titles the page.
func (p *QueriesPage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Query expressions")
}

// OnMount loads the user and the queries.
func (p *QueriesPage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	cl, project := p.mountProject(ctx)
	loadWithMe(ctx, cl, func(c context.Context) ([]api.QueryExpression, error) { return cl.Queries(c, project) },
		func(ctx app.Context, me api.Me, qs []api.QueryExpression, err error) {
			p.me, p.queries = me, qs
			p.state, p.message = pageState(ctx, err, len(qs) == 0)
		})
}

func (p *QueriesPage) current() *api.QueryExpression {
	for i := range p.queries {
		if p.queries[i].ID == p.selected {
			return &p.queries[i]
		}
	}
	return nil
}

func (p *QueriesPage) edit(q api.QueryExpression) {
	p.selected, p.expr, p.atoms, p.message, p.needForce = q.ID, q.Expression, strings.Join(q.Atoms, "\n"), "", false
}

// editRow opens the editor on the query of the Edit button clicked
// (data-qid); the query is read at event time, not captured.
func (p *QueriesPage) editRow(ctx app.Context, e app.Event) {
	id, _ := strconv.ParseInt(eventData(ctx, "qid"), 10, 64)
	for _, q := range p.queries {
		if q.ID == id {
			p.edit(q)
			// The editor opens above the list, often out of view: bring it
			// in and put the cursor in the expression. The atoms textarea
			// keeps what was typed before unless its value is set (a
			// value attribute does not reset a textarea). In the page's
			// context: opening the editor re-renders the list, so a Defer
			// of this button's would be dropped.
			atoms, expr := p.atoms, p.expr
			p.page.Defer(func(ctx app.Context) {
				setFieldValue("expr-atoms", atoms)
				setFieldValue("expr-input", expr)
				if el := app.Window().GetElementByID("expr-editor"); el.Truthy() {
					el.Call("scrollIntoView", map[string]any{"block": "start"})
				}
				focusField("expr-input")
			})
			return
		}
	}
}

// request is the correction the editor holds.
func (p *QueriesPage) request() api.ExpressionRequest {
	var atoms []string
	for _, l := range strings.Split(p.atoms, "\n") {
		if strings.TrimSpace(l) != "" {
			atoms = append(atoms, l)
		}
	}
	return api.ExpressionRequest{Expression: p.expr, Atoms: atoms}
}

func (p *QueriesPage) suggest(ctx app.Context, e app.Event) {
	if p.busy || p.selected == 0 {
		return
	}
	p.busy = true
	cl, id, page := p.client, p.selected, p.page
	ctx.Async(func() {
		s, err := cl.Decompose(context.Background(), id)
		page.Dispatch(func(ctx app.Context) {
			p.busy = false
			if err != nil {
				p.message = "No suggestion: " + err.Error()
				return
			}
			p.expr, p.atoms = s.Expression, strings.Join(s.Atoms, "\n")
			p.message = "Filled from the decomposer; check it and save."
		})
	})
}

// decomposeAll stores the decomposer's expression for every query that has
// none, then reloads the list and says what happened.
func (p *QueriesPage) decomposeAll(ctx app.Context, e app.Event) {
	if p.busy {
		return
	}
	p.busy = true
	cl, project, page := p.client, p.project, p.page
	ctx.Async(func() {
		sum, err := cl.DecomposeAll(context.Background(), project, api.DecomposeAllRequest{OnlyMissing: true})
		var qs []api.QueryExpression
		if err == nil {
			qs, err = cl.Queries(context.Background(), project)
		}
		page.Dispatch(func(ctx app.Context) {
			p.busy = false
			if err != nil {
				p.message = "Decompose all failed: " + err.Error()
				return
			}
			p.queries = qs
			p.message = decomposeMessage(sum)
		})
	})
}

// decomposeMessage summarises a "decompose all".
func decomposeMessage(s api.DecomposeSummary) string {
	msg := fmt.Sprintf("Decomposed %d of %d queries", s.Stored, s.Queries)
	if s.Skipped > 0 {
		msg += fmt.Sprintf(" (%d already had an expression)", s.Skipped)
	}
	if s.Stored > 0 {
		msg += fmt.Sprintf("; %d below confidence %.2f (\"Least confident first\" lists them at the top)", s.LowConfidence, s.ConfidenceThreshold)
	}
	var parts []string
	for _, t := range s.ByTemplate {
		name := t.Template
		if name == "" {
			name = "no QUEST template"
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, t.Queries))
	}
	if len(parts) > 0 {
		msg += "; " + strings.Join(parts, ", ")
	}
	if len(s.Failed) > 0 {
		var ids []string
		for _, f := range s.Failed {
			ids = append(ids, f.ExtID+" ("+f.Reason+")")
		}
		msg += fmt.Sprintf("; %d failed: %s", len(s.Failed), strings.Join(ids, ", "))
	}
	return msg + "."
}

func (p *QueriesPage) save(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.send(ctx, false)
}

// forceSave saves although the atoms renumber a judged query's
// constraints (the server records the mapping in the audit log).
func (p *QueriesPage) forceSave(ctx app.Context, e app.Event) { p.send(ctx, true) }

func (p *QueriesPage) send(ctx app.Context, force bool) {
	if p.busy || p.selected == 0 {
		return
	}
	req := p.request()
	req.Force = force
	if _, _, perr := api.ParseExpressionRequest(req); perr != nil {
		p.message = "Not saved: " + perr.Error()
		return
	}
	p.busy = true
	cl, id, page := p.client, p.selected, p.page
	ctx.Async(func() {
		q, err := cl.SetExpression(context.Background(), id, req)
		page.Dispatch(func(ctx app.Context) {
			p.busy = false
			defer revealNotice(ctx, "queries-message")
			if err != nil {
				p.needForce = StatusOf(err) == 409
				p.message = "Not saved: " + userMessage(err)
				return
			}
			for i := range p.queries {
				if p.queries[i].ID == q.ID {
					p.queries[i] = q
				}
			}
			p.edit(q)
			p.message = savedMessage(q)
		})
	})
}

// savedMessage confirms a saved correction; when it changed the logic of
// a query with constraint labels (OR → AND), it says their contradiction
// flags were computed under the old expression.
func savedMessage(q api.QueryExpression) string {
	msg := "Saved " + q.ExtID + ": " + q.Expression
	if q.StaleFlags > 0 {
		msg += fmt.Sprintf(". The logic changed: %s of this query carry contradiction flags computed under the old expression, not recomputed (review them in the adjudication queue)",
			plural(q.StaleFlags, "judgment with constraint labels", "judgments with constraint labels"))
	}
	return msg
}

// ordered returns the queries as listed: import order, or with
// byConfidence the least confident first.
func (p *QueriesPage) ordered() []api.QueryExpression {
	qs := matchingQueries(p.queries, p.search)
	if !p.byConfidence {
		return qs
	}
	return byConfidence(qs)
}

// matchingQueries keeps the queries whose id, text or atom texts contain
// text, case-insensitively ("" keeps all). The item browser's Queries tab
// searches on the server, a page at a time, for projects too large to
// list whole.
func matchingQueries(qs []api.QueryExpression, text string) []api.QueryExpression {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return qs
	}
	var out []api.QueryExpression
	for _, q := range qs {
		hay := strings.ToLower(q.ExtID + "\n" + q.Text + "\n" + strings.Join(q.Atoms, "\n"))
		if strings.Contains(hay, t) {
			out = append(out, q)
		}
	}
	return out
}

// byConfidence sorts a copy of qs by the decomposer's confidence,
// ascending; queries without one keep their order after the others.
func byConfidence(qs []api.QueryExpression) []api.QueryExpression {
	out := append([]api.QueryExpression(nil), qs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Confidence, out[j].Confidence
		switch {
		case a == nil:
			return false
		case b == nil:
			return true
		}
		return *a < *b
	})
	return out
}

// confidenceText prints a confidence, or "—" when there is none.
func confidenceText(c *float64) string {
	if c == nil {
		return "—"
	}
	return strconv.FormatFloat(*c, 'f', 2, 64)
}

// Render draws the page.
func (p *QueriesPage) Render() app.UI {
	listed := p.ordered()
	return NewPage("queries").State(p.state).Data("query", p.selected).ClientSide(p.mounted).
		Nav(p.me, "queries", p.project).
		Title("Query expressions · "+p.project,
			app.A().Href("/pools/"+p.project).Text("Pool builder"),
			app.If(len(p.queries) > 0, func() app.UI {
				return app.Button().Type("button").ID("decompose-all").Disabled(p.busy).
					Title("Store the decomposer's expression for every query that has none (audited; corrections are kept)").
					Text("Decompose all missing").OnClick(p.decomposeAll)
			}),
			app.If(len(p.queries) > 0, func() app.UI {
				label := "Least confident first"
				if p.byConfidence {
					label = "Import order"
				}
				return app.Button().Type("button").ID("sort-confidence").Aria("pressed", p.byConfidence).
					Title("Order the list by the decomposer's confidence in each query's expression, least confident first").
					Text(label).OnClick(func(ctx app.Context, e app.Event) { p.byConfidence = !p.byConfidence })
			}),
		).Content(
		liveNotice("queries-message", p.message),
		app.If(p.current() != nil, func() app.UI { return p.renderEditor(*p.current()) }),
		app.If(len(p.queries) > 0, func() app.UI {
			return app.Section().Aria("label", "Queries").Body(
				app.Div().Class("filters").Body(
					app.Label().For("query-filter").Text("Search"),
					app.Input().ID("query-filter").Type("search").Value(p.search).
						Placeholder("id, text or constraint").
						OnInput(func(ctx app.Context, e app.Event) { p.search = ctx.JSSrc().Get("value").String() }),
					app.Span().ID("query-filter-count").Role("status").Textf("%d of %d queries", len(listed), len(p.queries)),
					app.A().Href("/browse/"+p.project+"?tab=queries").Text("Search with judging figures (item browser)"),
				),
				app.Table().ID("query-list").Body(
					app.THead().Body(app.Tr().Body(
						app.Th().Scope("col").Text("Query"), app.Th().Scope("col").Text("Text"),
						app.Th().Scope("col").Text("Expression"), app.Th().Scope("col").Text("Template"),
						app.Th().Scope("col").Title("The decomposer's confidence in its own reading (— for corrected or imported expressions)").Text("Confidence"),
						app.Th().Text(""),
					)),
					app.TBody().Body(app.Range(listed).Slice(func(i int) app.UI {
						q := listed[i]
						return app.Tr().DataSet("query", q.ExtID).Body(
							app.Th().Scope("row").Text(q.ExtID),
							app.Td().Text(q.Text),
							app.Td().Class("expression").Text(printed(q)),
							app.Td().Text(q.Template),
							app.Td().Class("confidence").Text(confidenceText(q.Confidence)),
							app.Td().Body(app.Button().Type("button").Class("edit").DataSet("query", q.ExtID).
								DataSet("qid", q.ID).Text("Edit").OnClick(p.editRow)),
						)
					})),
				),
			)
		}),
	)
}

// printed is a query's expression with its atom texts quoted.
func printed(q api.QueryExpression) string {
	if q.Expression == "" {
		return "—"
	}
	e, err := boolexpr.Parse(q.Expression)
	if err != nil {
		return q.Expression
	}
	return e.Format(q.Atoms)
}

func (p *QueriesPage) renderEditor(q api.QueryExpression) app.UI {
	req := p.request()
	e, atoms, perr := api.ParseExpressionRequest(req)
	var status app.UI
	if perr != nil {
		status = app.P().ID("expr-status").Class("invalid").DataSet("valid", "false").DataSet("field", perr.Field).Text(perr.Error())
	} else {
		t, ok := boolexpr.TemplateOf(e)
		if !ok {
			t = "no QUEST template"
		}
		status = app.P().ID("expr-status").Class("valid").DataSet("valid", "true").Textf("Valid (%s): %s", t, e.Format(atoms))
	}
	return app.Section().ID("expr-editor").Aria("label", "Edit expression").Body(
		app.H2().Text("Query "+q.ExtID),
		app.P().Class("query").Text(q.Text),
		app.Form().ID("expr-form").OnSubmit(p.save).Body(
			app.Div().Class("field").Body(
				app.Label().For("expr-input").Text("Expression (atoms A, B, C…; AND, OR, NOT, parentheses)"),
				app.Input().ID("expr-input").Type("text").Value(p.expr).Attr("spellcheck", "false").
					OnInput(func(ctx app.Context, e app.Event) { p.expr = ctx.JSSrc().Get("value").String() }),
			),
			app.Div().Class("field").Body(
				app.Label().For("expr-atoms").Text("Atoms, one per line (first line is A)"),
				app.Textarea().ID("expr-atoms").Rows(4).Attr("value", p.atoms).Attr("spellcheck", "false").
					OnInput(func(ctx app.Context, e app.Event) { p.atoms = ctx.JSSrc().Get("value").String() }),
			),
			status,
			app.Button().Type("button").ID("expr-suggest").Disabled(p.busy).OnClick(p.suggest).Text("Suggest"),
			app.Button().Type("submit").ID("expr-save").Class("primary").Disabled(p.busy || perr != nil).Text("Save"),
			app.If(p.needForce, func() app.UI {
				return app.Button().Type("button").ID("expr-force").Disabled(p.busy || perr != nil).OnClick(p.forceSave).
					Text("Save anyway: renumber the constraints (recorded in the audit log)")
			}),
		),
	)
}
