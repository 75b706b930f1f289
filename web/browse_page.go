package web

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// browsePageSize is how many items the browser lists at once.
const browsePageSize = 50

// browseKeys are the item browser's filters, as URL and API parameters.
var browseKeys = []string{"text", "query", "annotator", "label", "agreement", "gold", "from", "to", "kind"}

// agreementOptions are the agreement filter's choices.
var agreementOptions = []struct{ value, label string }{
	{"", "any"},
	{api.AgreementDisagree, "disagreement (votes on both sides)"},
	{api.AgreementAgree, "agreement (two or more votes, one side)"},
	{api.AgreementSingle, "a single vote"},
	{api.AgreementAdjudicated, "decided by a researcher"},
	{api.AgreementUnjudged, "not judged"},
}

// BrowsePage is a project's item browser (/browse/:project): the items,
// filtered on the server by text (query or document), query, annotator,
// grade, agreement, gold and judging date, a page at a time; any item
// opens with all its judgments (ItemDetailPanel, ?item=N) to review
// them. The Queries tab (?tab=queries) is the searchable query list
// (QuerySearch). The filters are in the URL: a reload or a shared link
// shows the same list.
type BrowsePage struct {
	app.Compo
	projectPage
	filter     url.Values
	offset     int
	tab        string
	items      api.BrowseItems
	annotators []string
	item       int64
	detail     *api.ItemDetail
}

// NewBrowsePage returns the page.
func NewBrowsePage() *BrowsePage {
	return &BrowsePage{projectPage: projectPage{state: stateLoading}, filter: url.Values{"kind": {api.KindRelevance}}}
}

// OnNav reads the project, the filters and the open item of the URL.
func (p *BrowsePage) OnNav(ctx app.Context) {
	p.project = titleProjectPage(ctx, "Item browser")
	p.fromURL(ctx.Page().URL().Query())
}

func (p *BrowsePage) fromURL(q url.Values) {
	p.filter = url.Values{"kind": {api.KindRelevance}}
	for _, k := range browseKeys {
		if v := q.Get(k); v != "" {
			p.filter.Set(k, v)
		}
	}
	if q.Has("kind") {
		p.filter.Set("kind", q.Get("kind"))
	}
	p.offset, _ = strconv.Atoi(q.Get("offset"))
	p.offset = max(p.offset, 0)
	p.item, _ = strconv.ParseInt(q.Get("item"), 10, 64)
	p.tab = q.Get("tab")
}

// OnMount loads the list, the annotators and the open item.
func (p *BrowsePage) OnMount(ctx app.Context) {
	if !app.IsClient {
		return
	}
	p.mountProject(ctx)
	p.fromURL(ctx.Page().URL().Query())
	ctx.Handle(actionReviewed, func(ctx app.Context, a app.Action) {
		ctx.Dispatch(func(ctx app.Context) {
			p.message = fmt.Sprintf("Review of judgment %s recorded.", a.Tags.Get("judgment"))
			p.reload(ctx)
		})
	})
	ctx.Handle(actionBrowseQuery, func(ctx app.Context, a app.Action) {
		ctx.Dispatch(func(ctx app.Context) {
			p.filter.Set("query", a.Tags.Get("query"))
			p.tab, p.offset, p.item = "", 0, 0
			p.apply(ctx)
		})
	})
	cl, project := p.client, p.project
	ctx.Async(func() {
		q, err := cl.ReviewQueue(context.Background(), project, "", 1, 0)
		if err != nil {
			return // the list's own load reports errors
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.annotators = p.annotators[:0]
			for _, a := range q.Annotators {
				p.annotators = append(p.annotators, a.Annotator)
			}
		})
	})
	p.reload(ctx)
}

// params are the list's API parameters (filters and page).
func (p *BrowsePage) params() url.Values {
	v := url.Values{}
	for k, vs := range p.filter {
		if len(vs) > 0 && vs[0] != "" {
			v.Set(k, vs[0])
		}
	}
	v.Set("limit", strconv.Itoa(browsePageSize))
	v.Set("offset", strconv.Itoa(p.offset))
	return v
}

// apply shows the list for the current filters and records them in the URL.
func (p *BrowsePage) apply(ctx app.Context) {
	v := p.params()
	v.Del("limit")
	if p.offset == 0 {
		v.Del("offset")
	}
	if p.item != 0 {
		v.Set("item", strconv.FormatInt(p.item, 10))
	}
	if p.tab != "" {
		v.Set("tab", p.tab)
	}
	setURLQuery(ctx, v)
	p.reload(ctx)
}

type browseLoad struct {
	items  api.BrowseItems
	detail *api.ItemDetail
}

func (p *BrowsePage) reload(ctx app.Context) {
	cl, project, params, item := p.client, p.project, p.params(), p.item
	loadWithMe(ctx, cl, func(c context.Context) (browseLoad, error) {
		var out browseLoad
		var err error
		if out.items, err = cl.BrowseItems(c, project, params); err != nil {
			return out, err
		}
		if item != 0 {
			d, err := cl.ItemDetail(c, item)
			if err != nil {
				return out, err
			}
			out.detail = &d
		}
		return out, nil
	}, func(ctx app.Context, me api.Me, l browseLoad, err error) {
		p.me, p.items, p.detail = me, l.items, l.detail
		var msg string
		p.state, msg = pageState(ctx, err, false)
		if err != nil {
			p.message = msg
		}
	})
}

// set returns an event handler storing a filter field's value.
func (p *BrowsePage) set(key string) app.EventHandler {
	return func(ctx app.Context, e app.Event) { p.filter.Set(key, ctx.JSSrc().Get("value").String()) }
}

func (p *BrowsePage) submit(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.offset, p.message = 0, ""
	p.apply(ctx)
}

func (p *BrowsePage) clear(ctx app.Context, e app.Event) {
	p.filter, p.offset, p.message = url.Values{"kind": {api.KindRelevance}}, 0, ""
	for _, k := range browseKeys {
		setFieldValue("f-"+k, "")
	}
	setFieldValue("f-kind", api.KindRelevance)
	p.apply(ctx)
}

// open shows the item of the button (data-item).
func (p *BrowsePage) open(ctx app.Context, e app.Event) {
	if id, err := strconv.ParseInt(eventData(ctx, "item"), 10, 64); err == nil {
		p.item, p.message = id, ""
		p.apply(ctx)
	}
}

func (p *BrowsePage) turnPage(ctx app.Context, e app.Event) {
	if off, ok := pageOffset(ctx); ok {
		p.offset = off
		p.apply(ctx)
	}
}

func (p *BrowsePage) showTab(ctx app.Context, e app.Event) {
	p.tab = eventData(ctx, "tab")
	p.apply(ctx)
}

// Render draws the page.
func (p *BrowsePage) Render() app.UI {
	tabBtn := func(tab, label string) app.UI {
		id := "tab-items"
		if tab != "" {
			id = "tab-" + tab
		}
		return app.Button().Type("button").Class("tab").ID(id).DataSet("tab", tab).
			Aria("pressed", p.tab == tab).OnClick(p.showTab).Text(label)
	}
	return NewPage("browse").State(p.state).ClientSide(p.mounted).Data("total", p.items.Total).Data("item", p.item).
		Nav(p.me, "browse", p.project).
		Title("Item browser · "+p.project, app.A().Href("/review/"+p.project).Text("Review queue")).
		Content(
			app.Div().Class("tabs").Role("group").Aria("label", "Browse").Body(tabBtn("", "Items"), tabBtn("queries", "Queries")),
			app.If(p.message != "", func() app.UI {
				return app.P().ID("browse-message").Class("notice").Role("status").Text(p.message)
			}),
			app.If(p.tab == "queries" && p.mounted, func() app.UI { return NewQuerySearch().Project(p.project) }),
			app.If(p.tab != "queries", func() app.UI { return p.renderItems() }),
		)
}

func (p *BrowsePage) renderItems() app.UI {
	f := func(k string) string { return p.filter.Get(k) }
	sel := func(key, label string, opts [][2]string) app.UI {
		return app.Div().Class("field").Body(
			app.Label().For("f-"+key).Text(label),
			app.Select().ID("f-"+key).OnChange(p.set(key)).Body(app.Range(opts).Slice(func(i int) app.UI {
				return app.Option().Value(opts[i][0]).Selected(opts[i][0] == f(key)).Text(opts[i][1])
			})),
		)
	}
	labels := [][2]string{{"", "any"}}
	for i := range relevanceLabels {
		labels = append(labels, [2]string{strconv.Itoa(i), relevanceName(i)})
	}
	agreements := make([][2]string, len(agreementOptions))
	for i, o := range agreementOptions {
		agreements[i] = [2]string{o.value, o.label}
	}
	annotators := [][2]string{{"", "anyone"}}
	for _, a := range p.annotators {
		annotators = append(annotators, [2]string{a, a})
	}
	kinds := [][2]string{{api.KindRelevance, "relevance"}, {api.KindConstraint, "constraint"}, {api.KindParaphrase, "paraphrase"},
		{api.KindValidation, "validation"}, {"", "any kind"}}
	res := p.items
	from, to := res.Offset+1, res.Offset+len(res.Items)
	return app.Div().Class("browse").Body(
		app.Form().ID("browse-filters").Class("filters").Aria("label", "Filters").OnSubmit(p.submit).Body(
			app.Div().Class("field").Body(
				app.Label().For("f-text").Text("Text (query or document)"),
				app.Input().ID("f-text").Type("search").MaxLength(500).Value(f("text")).OnInput(p.set("text")),
			),
			sel("annotator", "Annotator", annotators),
			sel("label", "Grade", labels),
			sel("agreement", "Agreement", agreements),
			sel("gold", "Gold", [][2]string{{"", "any"}, {"yes", "gold only"}, {"no", "not gold"}}),
			app.Div().Class("field").Body(
				app.Label().For("f-from").Text("Judged from"),
				app.Input().ID("f-from").Type("date").Value(f("from")).OnChange(p.set("from")),
			),
			app.Div().Class("field").Body(
				app.Label().For("f-to").Text("to (inclusive)"),
				app.Input().ID("f-to").Type("date").Value(f("to")).OnChange(p.set("to")),
			),
			sel("kind", "Kind", kinds),
			app.If(f("query") != "", func() app.UI {
				return app.P().ID("f-query").Class("hint").Body(
					app.Textf("Query %s only ", f("query")),
					app.Button().Type("button").Class("link").ID("f-query-clear").Text("(all queries)").
						OnClick(func(ctx app.Context, e app.Event) { p.filter.Del("query"); p.offset = 0; p.apply(ctx) }),
				)
			}),
			app.Div().Class("actions").Body(
				app.Button().Type("submit").ID("browse-apply").Class("primary").Text("Filter"),
				app.Button().Type("button").ID("browse-clear").Text("Clear").OnClick(p.clear),
			),
		),
		app.If(p.detail != nil, func() app.UI {
			return app.Div().Body(
				app.Button().Type("button").Class("link").ID("item-close").Text("Close item").
					OnClick(func(ctx app.Context, e app.Event) { p.item, p.detail = 0, nil; p.apply(ctx) }),
				NewItemDetailPanel(*p.detail, p.project, p.me.UserID),
			)
		}),
		pager("browse-count", browseCount(from, to, res.Total), "browse", res.Offset, to, res.Total, browsePageSize, p.turnPage),
		app.If(len(res.Items) > 0, func() app.UI {
			return app.Table().ID("browse-items").Class("browse-items").Body(
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Item"), app.Th().Scope("col").Text("Query"), app.Th().Scope("col").Text("Document"),
					app.Th().Scope("col").Text("Votes"), app.Th().Scope("col").Text("Consensus"), app.Th().Scope("col").Text("Last judged"),
				)),
				app.TBody().Body(app.Range(res.Items).Slice(func(i int) app.UI { return p.renderRow(res.Items[i]) })),
			)
		}),
	)
}

func browseCount(from, to, total int) string {
	switch {
	case total == 0:
		return "No item matches."
	case to-from+1 == total:
		return fmt.Sprintf("All %d matching items", total)
	}
	return fmt.Sprintf("Items %d–%d of %d matching", from, to, total)
}

func (p *BrowsePage) renderRow(it api.BrowseItem) app.UI {
	votes := make([]string, len(it.Votes))
	for i, v := range it.Votes {
		votes[i] = fmt.Sprintf("%s %d", v.Annotator, v.Relevance)
	}
	cons := "—"
	if it.Consensus != nil {
		cons = fmt.Sprintf("%s, %d", it.Consensus.Status, it.Consensus.Relevance)
	}
	last := ""
	if it.LastJudged != nil {
		last = it.LastJudged.Local().Format("2006-01-02 15:04")
	}
	tr := app.Tr().DataSet("item", it.ItemID).DataSet("disagreeing", it.Disagreeing)
	if it.ItemID == p.item {
		tr = tr.Class("selected").Aria("current", "true")
	}
	return tr.Body(
		app.Td().Body(app.Button().Type("button").Class("link", "browse-open").DataSet("item", it.ItemID).OnClick(p.open).
			Textf("Item %d", it.ItemID), app.If(it.IsGold, func() app.UI { return app.Span().Class("gold").Text(" gold") })),
		app.Td().Body(app.Span().Class("hint").Text(it.QueryExtID+" "), app.Text(shorten(it.QueryText, 100))),
		app.Td().Text(strings.TrimSpace(it.DocExtID+" "+it.DocTitle)),
		app.Td().Class("votes").Text(strings.Join(votes, " · ")),
		app.Td().Text(cons),
		app.Td().Text(last),
	)
}
