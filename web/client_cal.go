package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"boolpool/api"
)

// CALPools lists a project's cal pools with the state of every query
// (researchers).
func (c *Client) CALPools(ctx context.Context, project string) ([]api.CALPool, error) {
	return getJSON[[]api.CALPool](ctx, c, projectPath(project, "/cal"))
}

func calQueryPath(project string, poolID, queryID int64, action string) string {
	return fmt.Sprintf("/api/projects/%s/pools/%d/cal/%d/%s", url.PathEscape(project), poolID, queryID, action)
}

// StopCALQuery ends the review of one query of a cal pool.
func (c *Client) StopCALQuery(ctx context.Context, project string, poolID, queryID int64) (api.CALQueryStatus, error) {
	return sendJSON[api.CALQueryStatus](ctx, c, http.MethodPost, calQueryPath(project, poolID, queryID, "stop"), nil)
}

// ExtendCALQuery lets the review of one query go on for n more judgments.
func (c *Client) ExtendCALQuery(ctx context.Context, project string, poolID, queryID int64, n int) (api.CALQueryStatus, error) {
	return sendJSON[api.CALQueryStatus](ctx, c, http.MethodPost, calQueryPath(project, poolID, queryID, "extend"), api.CALExtendRequest{Judgments: n})
}
