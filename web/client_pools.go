package web

import (
	"context"
	"fmt"
	"net/http"

	"boolpool/api"
)

// ensureCSRF fetches the session's CSRF token when the client does not
// know it yet (state-changing requests need it).
func (c *Client) ensureCSRF(ctx context.Context) error {
	c.mu.Lock()
	known := c.csrf != ""
	c.mu.Unlock()
	if known {
		return nil
	}
	_, err := c.Me(ctx)
	return err
}

// Runs lists a project's stored runs (researchers).
func (c *Client) Runs(ctx context.Context, project string) ([]api.RunSummary, error) {
	return getJSON[[]api.RunSummary](ctx, c, projectPath(project, "/runs"))
}

// PreviewPool computes a pool's composition without saving it.
func (c *Client) PreviewPool(ctx context.Context, project string, spec api.PoolSpec) (api.PoolPreview, error) {
	return sendJSON[api.PoolPreview](ctx, c, http.MethodPost, projectPath(project, "/pools/preview"), spec)
}

// PublishPool queues the job that saves a pool and publishes it as
// relevance items; follow it with Job (its result is an api.PoolPublished).
func (c *Client) PublishPool(ctx context.Context, project string, spec api.PoolSpec) (api.JobView, error) {
	return sendJSON[api.JobView](ctx, c, http.MethodPost, projectPath(project, "/pools"), spec)
}

// Queries lists a project's queries with their expressions.
func (c *Client) Queries(ctx context.Context, project string) ([]api.QueryExpression, error) {
	return getJSON[[]api.QueryExpression](ctx, c, projectPath(project, "/queries"))
}

// SetExpression saves a corrected decomposition of a query.
func (c *Client) SetExpression(ctx context.Context, queryID int64, req api.ExpressionRequest) (api.QueryExpression, error) {
	return sendJSON[api.QueryExpression](ctx, c, http.MethodPut, fmt.Sprintf("/api/queries/%d/expression", queryID), req)
}

// Decompose asks for the decomposer's reading of a query.
func (c *Client) Decompose(ctx context.Context, queryID int64) (api.ExpressionSuggestion, error) {
	return getJSON[api.ExpressionSuggestion](ctx, c, fmt.Sprintf("/api/queries/%d/decompose", queryID))
}

// DecomposeAll stores the decomposer's expressions for a project's queries
// (only those without one when req.OnlyMissing).
func (c *Client) DecomposeAll(ctx context.Context, project string, req api.DecomposeAllRequest) (api.DecomposeSummary, error) {
	return sendJSON[api.DecomposeSummary](ctx, c, http.MethodPost, projectPath(project, "/decompose"), req)
}
