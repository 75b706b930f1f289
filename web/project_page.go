package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// projectPage is what each page about one project holds (embedded): the
// signed-in user, the project the path names, the page's state and
// message, whether it is mounted, its API client and its own context (an
// answer is dispatched there: a dispatch from an element that a re-render
// replaced is dropped).
type projectPage struct {
	me      api.Me
	project string
	state   string
	message string
	mounted bool
	client  *Client
	page    app.Context
}

// mountProject readies the page on the client (its OnMount): mounted, its
// context, the project of the path and a client, which it returns with
// the project for the first load.
func (p *projectPage) mountProject(ctx app.Context) (*Client, string) {
	p.mounted, p.page, p.project, p.client = true, ctx, pageProject(ctx), NewClient()
	return p.client, p.project
}
