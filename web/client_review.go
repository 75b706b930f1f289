package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"boolpool/api"
)

// ReviewQueue fetches every annotator's review counts and, when annotator
// is set, one page of their judgments not yet reviewed (researchers).
func (c *Client) ReviewQueue(ctx context.Context, project, annotator string, limit, offset int) (api.ReviewQueue, error) {
	var q api.ReviewQueue
	v := url.Values{"limit": {fmt.Sprint(limit)}, "offset": {fmt.Sprint(offset)}}
	if annotator != "" {
		v.Set("annotator", annotator)
	}
	err := c.do(ctx, http.MethodGet, projectPath(project, "/reviews?"+v.Encode()), nil, &q)
	return q, err
}

// Review records a researcher's review of a judgment (sendJSON: the CSRF
// token is fetched first when the page does not know it yet).
func (c *Client) Review(ctx context.Context, judgmentID int64, req api.ReviewRequest) (api.ReviewResult, error) {
	return sendJSON[api.ReviewResult](ctx, c, http.MethodPost, fmt.Sprintf("/api/judgments/%d/review", judgmentID), req)
}

// Feedback fetches the reviews of the signed-in user's own judgments in a
// project, newest first.
func (c *Client) Feedback(ctx context.Context, project string, limit, offset int) (api.Feedback, error) {
	return getJSON[api.Feedback](ctx, c, fmt.Sprintf("/api/projects/%s/feedback?limit=%d&offset=%d", url.PathEscape(project), limit, offset))
}

// BrowseItems fetches one page of the item browser; filter holds its
// query parameters (text, query, annotator, label, agreement, gold, from,
// to, kind, limit, offset).
func (c *Client) BrowseItems(ctx context.Context, project string, filter url.Values) (api.BrowseItems, error) {
	return getJSON[api.BrowseItems](ctx, c, projectPath(project, "/browse/items?"+filter.Encode()))
}

// BrowseQueries fetches one page of the project's queries containing text.
func (c *Client) BrowseQueries(ctx context.Context, project, text string, limit, offset int) (api.BrowseQueries, error) {
	v := url.Values{"text": {text}, "limit": {fmt.Sprint(limit)}, "offset": {fmt.Sprint(offset)}}
	return getJSON[api.BrowseQueries](ctx, c, projectPath(project, "/browse/queries?"+v.Encode()))
}

// ItemDetail fetches any item with all its judgments and reviews.
func (c *Client) ItemDetail(ctx context.Context, itemID int64) (api.ItemDetail, error) {
	return getJSON[api.ItemDetail](ctx, c, fmt.Sprintf("/api/items/%d/detail", itemID))
}
