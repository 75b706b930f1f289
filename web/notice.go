package web

import (
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// liveNotice is a status message that is always in the page (collapsed
// while empty): screen readers announce a live region when its text
// changes, and the elements after it keep their place in the tree, so a
// re-render does not replace (and drop the events of) a form below it.
func liveNotice(id, msg string) app.UI {
	p := app.P().ID(id).Class("notice").Role("status").Aria("live", "polite").Text(msg)
	if msg == "" {
		p = p.Class("empty")
	}
	return p
}

// userMessage is an API error as a person should read it: the server's
// explanation without the package and operation prefixes that wrap it
// ("store: update user 3: …") and without the trailing status word
// ("…: conflict"); a missing thing still says so (`project "x" not
// found.`, which read `project "x".`).
func userMessage(err error) string {
	if err == nil {
		return ""
	}
	var keep []string
	notFound := false
	for _, part := range strings.Split(err.Error(), ": ") {
		if part == "not found" {
			notFound = true
		}
		if internalPart(part) {
			continue
		}
		keep = append(keep, part)
	}
	if len(keep) == 0 {
		return "The server refused the change."
	}
	msg := strings.Join(keep, ": ")
	if notFound && !strings.Contains(strings.ToLower(msg), "not found") {
		msg = strings.TrimSuffix(msg, ".") + " not found"
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// internalPart reports whether one ": "-separated part of an error is a
// Go package or operation prefix, or a bare status word.
func internalPart(s string) bool {
	switch s {
	case "conflict", "not found", "forbidden", "invalid input", "internal error":
		return true
	}
	for _, pkg := range []string{"store", "httpapi", "export", "consensus", "judging", "pooling", "ingest", "live", "jobs", "auth"} {
		if s == pkg || strings.HasPrefix(s, pkg+" ") {
			return true
		}
	}
	return false
}

// revealNotice scrolls the element id into view (the least movement that
// shows it) once the current render is done, so an outcome is seen next
// to the control that caused it.
func revealNotice(ctx app.Context, id string) {
	ctx.Defer(func(ctx app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			el.Call("scrollIntoView", map[string]any{"block": "nearest"})
		}
	})
}
