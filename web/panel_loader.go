package web

import (
	"context"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// panelLoader is how a dashboard panel keeps up with the dashboard's
// snapshots (each applied judgment bumps the version): it loads again when
// the project or the version changes, one request at a time (a burst of
// snapshots costs at most one more), and dispatches every answer through
// the panel's own context, since a dispatch from an element that a
// re-render replaced (a button, the dashboard's snapshot update) is
// dropped, and the panel would then wait forever.
type panelLoader struct {
	client  *Client
	loaded  string // the project@version last asked for
	mounted bool
	loading bool // a request is in flight
	again   bool // ask again when it is back (snapshots came meanwhile)
	self    app.Context
}

// panelKey is what a panel loads for: a project at a snapshot version.
func panelKey(project string, version uint64) string { return fmt.Sprintf("%s@%d", project, version) }

// mount readies the loader and loads (the panel's OnMount); on the server
// it does nothing.
func (l *panelLoader) mount(ctx app.Context, load func(app.Context)) {
	if !app.IsClient {
		return
	}
	l.client, l.mounted, l.self = NewClient(), true, ctx
	load(ctx)
}

// OnDismount stops the reloads (and a panel's polling).
func (l *panelLoader) OnDismount() { l.mounted = false }

// update loads again when key (project@version) is not the one asked for
// last (the panel's OnUpdate: a new snapshot, or another project).
func (l *panelLoader) update(ctx app.Context, key string, load func(app.Context)) {
	if app.IsClient && l.client != nil && l.loaded != key {
		load(ctx)
	}
}

// panelLoad asks fetch for key through l and hands the answer to done;
// with a request in flight it asks again once that one is back (reload:
// the panel's load).
func panelLoad[T any](l *panelLoader, key string, reload func(app.Context), fetch func(context.Context, *Client) (T, error), done func(app.Context, T, error)) {
	l.loaded = key
	if l.loading {
		l.again = true
		return
	}
	l.loading = true
	cl, self := l.client, l.self
	self.Async(func() {
		data, err := fetch(context.Background(), cl)
		self.Dispatch(func(ctx app.Context) {
			l.loading = false
			if l.again && l.mounted {
				l.again = false
				reload(ctx)
			}
			done(ctx, data, err)
		})
	})
}
