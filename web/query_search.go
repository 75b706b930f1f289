package web

import (
	"context"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// actionBrowseQuery asks the item browser to list one query's items (tag
// query: its id).
const actionBrowseQuery = "browse/query"

// querySearchPage is how many queries the list shows at once.
const querySearchPage = 50

// QuerySearch is the searchable query list of the item browser: the
// project's queries whose text or id contains the search (on the server,
// a page at a time), each with its items, how many have a consensus and
// how many disagree; a query's Items button lists its items, Edit opens
// it in the query-expression editor.
type QuerySearch struct {
	app.Compo
	Iproject string

	text    string
	offset  int
	res     api.BrowseQueries
	loaded  bool
	message string
}

// NewQuerySearch returns the list.
func NewQuerySearch() *QuerySearch { return &QuerySearch{} }

// Project sets the project.
func (s *QuerySearch) Project(v string) *QuerySearch { s.Iproject = v; return s }

// OnMount loads the first page.
func (s *QuerySearch) OnMount(ctx app.Context) {
	if app.IsClient {
		s.load(ctx)
	}
}

func (s *QuerySearch) load(ctx app.Context) {
	cl, project, text, offset := NewClient(), s.Iproject, s.text, s.offset
	ctx.Async(func() {
		res, err := cl.BrowseQueries(context.Background(), project, text, querySearchPage, offset)
		ctx.Dispatch(func(ctx app.Context) {
			s.loaded = true
			if err != nil {
				s.message = "Could not search the queries: " + userMessage(err)
				return
			}
			s.res, s.message = res, ""
		})
	})
}

func (s *QuerySearch) search(ctx app.Context, e app.Event) {
	e.PreventDefault()
	s.offset = 0
	s.load(ctx)
}

func (s *QuerySearch) turnPage(ctx app.Context, e app.Event) {
	if off, ok := pageOffset(ctx); ok {
		s.offset = off
		s.load(ctx)
	}
}

// Render draws the list.
func (s *QuerySearch) Render() app.UI {
	res := s.res
	from, to := res.Offset+1, res.Offset+len(res.Queries)
	count := fmt.Sprintf("Queries %d–%d of %d", from, to, res.Total)
	if res.Total == 0 {
		count = "No query matches."
	}
	return app.Section().ID("query-search").Aria("label", "Queries").Body(
		app.Form().ID("query-search-form").Class("filters").OnSubmit(s.search).Body(
			app.Label().For("q-text").Text("Search the queries (text or id)"),
			app.Input().ID("q-text").Type("search").MaxLength(500).Value(s.text).
				OnInput(func(ctx app.Context, e app.Event) { s.text = ctx.JSSrc().Get("value").String() }),
			app.Button().Type("submit").ID("q-search").Class("primary").Text("Search"),
		),
		app.If(s.message != "", func() app.UI { return app.P().Class("notice", "error").Role("alert").Text(s.message) }),
		app.If(s.loaded, func() app.UI {
			return pager("query-count", count, "", res.Offset, to, res.Total, querySearchPage, s.turnPage)
		}),
		app.If(len(res.Queries) > 0, func() app.UI {
			return app.Table().ID("query-results").Body(
				app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Query"), app.Th().Scope("col").Text("Text"),
					app.Th().Scope("col").Text("Items"), app.Th().Scope("col").Text("Judged"), app.Th().Scope("col").Text("Disagreeing"),
					app.Th().Scope("col").Text(""))),
				app.TBody().Body(app.Range(res.Queries).Slice(func(i int) app.UI {
					q := res.Queries[i]
					return app.Tr().DataSet("query", q.ID).Body(
						app.Th().Scope("row").Text(q.ExtID), app.Td().Text(shorten(q.Text, 140)),
						app.Td().Text(q.Items), app.Td().Text(q.Judged), app.Td().Text(q.Disagreeing),
						app.Td().Body(
							app.Button().Type("button").Class("link", "query-items").DataSet("query", q.ID).Text("Items").
								OnClick(func(ctx app.Context, e app.Event) {
									ctx.NewAction(actionBrowseQuery, app.Tags{"query": eventData(ctx, "query")})
								}),
							app.Text(" · "),
							app.A().Href(fmt.Sprintf("/queries/%s", s.Iproject)).Text("Edit"),
						),
					)
				})),
			)
		}),
	)
}
