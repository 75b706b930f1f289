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
	var out api.DerivedQrels
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/derived", nil, &out)
	return out, err
}

// Leaderboard fetches the runs' measures over a qrels mode: direct,
// derived or both (researchers).
func (c *Client) Leaderboard(ctx context.Context, project, qrels string) (api.QrelsLeaderboard, error) {
	var out api.QrelsLeaderboard
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/leaderboard?qrels="+url.QueryEscape(qrels), nil, &out)
	return out, err
}

// PoolConstraints creates constraint items (researchers).
func (c *Client) PoolConstraints(ctx context.Context, project string, req api.ConstraintPoolRequest) (api.ConstraintPoolResult, error) {
	c.mu.Lock()
	known := c.csrf != ""
	c.mu.Unlock()
	if !known {
		if _, err := c.Me(ctx); err != nil {
			return api.ConstraintPoolResult{}, err
		}
	}
	var out api.ConstraintPoolResult
	err := c.do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(project)+"/constraints", req, &out)
	return out, err
}
