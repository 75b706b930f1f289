package web

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// selectField is a labelled drop-down of options (each its own value and
// text), selected checked, that hands the chosen value to onChange.
func selectField(id, label string, options []string, selected string, onChange func(string)) app.UI {
	return app.Div().Class("field").Body(
		app.Label().For(id).Text(label),
		app.Select().ID(id).OnChange(func(ctx app.Context, e app.Event) { onChange(ctx.JSSrc().Get("value").String()) }).Body(
			app.Range(options).Slice(func(i int) app.UI {
				return app.Option().Value(options[i]).Selected(options[i] == selected).Text(options[i])
			}),
		),
	)
}
