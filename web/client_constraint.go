package web

import (
	"context"
	"net/http"
	"net/url"

	"boolpool/api"
)

// Derived fetches a project's derived qrels per query and its consistency
// flags (researchers).
func (c *Client) Derived(ctx context.Context, project string) (api.DerivedQrels, error) {
	return getJSON[api.DerivedQrels](ctx, c, projectPath(project, "/derived"))
}

// Leaderboard fetches the runs' measures over a qrels mode: direct,
// derived or both (researchers).
func (c *Client) Leaderboard(ctx context.Context, project, qrels string) (api.QrelsLeaderboard, error) {
	return getJSON[api.QrelsLeaderboard](ctx, c, projectPath(project, "/leaderboard?qrels="+url.QueryEscape(qrels)))
}

// PoolConstraints creates constraint items (researchers).
func (c *Client) PoolConstraints(ctx context.Context, project string, req api.ConstraintPoolRequest) (api.ConstraintPoolResult, error) {
	return sendJSON[api.ConstraintPoolResult](ctx, c, http.MethodPost, projectPath(project, "/constraints"), req)
}
