package web

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// askedReport is a report a dashboard panel loads only when asked (its
// button): loading while the request is out, then the report or why it
// failed.
type askedReport[T any] struct {
	loading bool
	rep     *T
	errMsg  string
}

// ask fetches the report unless a request is already out; an error is
// shown after failure ("Stability could not be computed: ").
func (a *askedReport[T]) ask(ctx app.Context, failure string, fetch func(context.Context) (T, error)) {
	if a.loading {
		return
	}
	a.loading, a.errMsg = true, ""
	ctx.Async(func() {
		rep, err := fetch(context.Background())
		ctx.Dispatch(func(app.Context) {
			a.loading = false
			if err != nil {
				a.errMsg = failure + err.Error()
				return
			}
			a.rep = &rep
		})
	})
}
