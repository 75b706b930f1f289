package web

import (
	"encoding/json"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Connection states of a liveFeed, shown on the dashboard.
const (
	liveConnecting = "connecting"
	liveOpen       = "open"
	liveRetrying   = "retrying"
	liveClosed     = "closed"
)

// liveFeed subscribes to a project's server-sent dashboard snapshots
// (GET /api/projects/:project/live) with the browser's own EventSource,
// which reconnects by itself after a network error. Handlers run on the UI
// goroutine through ctx.Dispatch.
type liveFeed struct {
	source app.Value
	funcs  []app.Func
}

// openLiveFeed starts the subscription. onSnapshot gets every decoded
// snapshot; onState gets the connection state as it changes.
func openLiveFeed(ctx app.Context, project string, onSnapshot func(app.Context, api.LiveSnapshot), onState func(app.Context, string)) *liveFeed {
	f := &liveFeed{}
	ctor := app.Window().Get("EventSource")
	if !ctor.Truthy() {
		ctx.Dispatch(func(ctx app.Context) { onState(ctx, liveRetrying) })
		return f
	}
	f.source = ctor.New("/api/projects/" + url.PathEscape(project) + "/live")
	f.on("snapshot", func(ev app.Value) {
		var snap api.LiveSnapshot
		if err := json.Unmarshal([]byte(ev.Get("data").String()), &snap); err != nil {
			return
		}
		ctx.Dispatch(func(ctx app.Context) { onSnapshot(ctx, snap) })
	})
	// The server ends the stream with "revoked" when the account was
	// disabled, demoted or removed from the project: stop, do not retry.
	f.on("revoked", func(app.Value) {
		f.source.Call("close")
		ctx.Dispatch(func(ctx app.Context) { onState(ctx, liveClosed) })
	})
	f.on("open", func(app.Value) { ctx.Dispatch(func(ctx app.Context) { onState(ctx, liveOpen) }) })
	f.on("error", func(app.Value) {
		// The browser retries after network errors by itself, but gives up
		// (readyState CLOSED) on an HTTP error such as an expired session.
		state := liveRetrying
		if f.source.Get("readyState").Int() == 2 {
			state = liveClosed
		}
		ctx.Dispatch(func(ctx app.Context) { onState(ctx, state) })
	})
	return f
}

func (f *liveFeed) on(event string, h func(ev app.Value)) {
	fn := app.FuncOf(func(this app.Value, args []app.Value) any {
		if len(args) > 0 {
			h(args[0])
		}
		return nil
	})
	f.source.Call("addEventListener", event, fn)
	f.funcs = append(f.funcs, fn)
}

// close ends the subscription and releases the callbacks.
func (f *liveFeed) close() {
	if f == nil {
		return
	}
	if f.source != nil && f.source.Truthy() {
		f.source.Call("close")
	}
	for _, fn := range f.funcs {
		fn.Release()
	}
	f.funcs = nil
}
