package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// loadWithMe fetches the signed-in user and then, if that worked, the
// page's data with load, off the UI goroutine; done runs on the UI
// goroutine with both and the first error (data is the zero value when
// an error stopped the load early).
func loadWithMe[T any](ctx app.Context, cl *Client, load func(c context.Context) (T, error), done func(ctx app.Context, me api.Me, data T, err error)) {
	ctx.Async(func() {
		c := context.Background()
		me, err := cl.Me(c)
		var data T
		if err == nil {
			data, err = load(c)
		}
		ctx.Dispatch(func(ctx app.Context) { done(ctx, me, data, err) })
	})
}

// eventData is the data-name attribute of the element an event came from.
// Row handlers read their row's key this way at event time: go-app keeps
// the first handler closure of a row position across re-renders, so a
// closure must not capture the row's data.
func eventData(ctx app.Context, name string) string {
	return ctx.JSSrc().Get("dataset").Get(name).String()
}

// pageProject is the project that the page's path names (/pools/:project).
func pageProject(ctx app.Context) string { return lastPathPart(ctx.Page().URL().Path) }

// titleProjectPage titles a project's page "<title> · <project> · boolpool"
// and returns the project.
func titleProjectPage(ctx app.Context, title string) string {
	project := pageProject(ctx)
	ctx.Page().SetTitle(title + " · " + project + " · boolpool")
	return project
}
