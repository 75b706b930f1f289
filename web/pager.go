package web

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// pager is the line under a paged list: which part of it is shown (count,
// a status paragraph, with id countID when given) and the Previous page
// and Next page buttons (ids idPrefix-prev and idPrefix-next when idPrefix
// is given). offset is the first entry shown, to the entry after the last;
// each button carries the offset it turns to in data-offset for turn
// (pageOffset reads it).
func pager(countID, count, idPrefix string, offset, to, total, pageSize int, turn app.EventHandler) app.HTMLDiv {
	button := func(id, text string, off int) app.UI {
		b := app.Button().Type("button").Class("link")
		if idPrefix != "" {
			b = b.ID(idPrefix + id)
		}
		return b.DataSet("offset", off).OnClick(turn).Text(text)
	}
	status := app.P()
	if countID != "" {
		status = status.ID(countID)
	}
	return app.Div().Class("pager").Body(
		status.Role("status").Text(count),
		app.If(offset > 0, func() app.UI { return button("-prev", "Previous page", max(0, offset-pageSize)) }),
		app.If(to < total, func() app.UI { return button("-next", "Next page", to) }),
	)
}

// pageOffset is the offset a pager button clicked turns to (data-offset,
// at least 0); false when the event came from none.
func pageOffset(ctx app.Context) (int, bool) {
	off, err := strconv.Atoi(eventData(ctx, "offset"))
	if err != nil {
		return 0, false
	}
	return max(0, off), true
}
