package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"boolpool/api"
)

// Dashboard fetches a project's live snapshot once (researchers).
func (c *Client) Dashboard(ctx context.Context, project string) (api.LiveSnapshot, error) {
	return getJSON[api.LiveSnapshot](ctx, c, projectPath(project, "/dashboard"))
}

// AdjudicationQueue fetches one page of the items awaiting a
// researcher's decision (limit at most 200).
func (c *Client) AdjudicationQueue(ctx context.Context, project string, limit, offset int) (api.AdjudicationQueue, error) {
	return getJSON[api.AdjudicationQueue](ctx, c, fmt.Sprintf("/api/projects/%s/adjudication?limit=%d&offset=%d", url.PathEscape(project), limit, offset))
}

// IncompleteQueries fetches every query with unjudged items, with texts.
func (c *Client) IncompleteQueries(ctx context.Context, project string) ([]api.QueryProgress, error) {
	return getJSON[[]api.QueryProgress](ctx, c, projectPath(project, "/progress/queries"))
}

// Adjudicate records a researcher's decision on an item (sendJSON: the
// CSRF token is fetched first when the page does not know it yet).
func (c *Client) Adjudicate(ctx context.Context, itemID int64, req api.AdjudicationRequest) (api.AdjudicationResult, error) {
	return sendJSON[api.AdjudicationResult](ctx, c, http.MethodPost, fmt.Sprintf("/api/items/%d/adjudication", itemID), req)
}

// Exports lists a project's recorded export snapshots (admins).
func (c *Client) Exports(ctx context.Context, project string) ([]api.ExportSnapshot, error) {
	return getJSON[[]api.ExportSnapshot](ctx, c, projectPath(project, "/exports"))
}

// exportURL is the download address of one export format.
func exportURL(project, format string) string {
	return "/api/projects/" + url.PathEscape(project) + "/exports/" + url.PathEscape(format)
}

// Estimates fetches the runs' measures estimated from a sampled pool
// (pool "": the project's newest sampled pool).
func (c *Client) Estimates(ctx context.Context, project, pool string) (api.EstimateReport, error) {
	return getJSON[api.EstimateReport](ctx, c, projectPath(project, "/estimates?pool="+url.QueryEscape(pool)))
}

// dispositionName is the file name of a Content-Disposition header
// (`attachment; filename="x.qrels"`), or "".
func dispositionName(cd string) string {
	const key = `filename="`
	i := strings.Index(cd, key)
	if i < 0 {
		return ""
	}
	rest := cd[i+len(key):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}
