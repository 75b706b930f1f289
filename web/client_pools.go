package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

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
	var out []api.RunSummary
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/runs", nil, &out)
	return out, err
}

// PreviewPool computes a pool's composition without saving it.
func (c *Client) PreviewPool(ctx context.Context, project string, spec api.PoolSpec) (api.PoolPreview, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.PoolPreview{}, err
	}
	var out api.PoolPreview
	err := c.do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(project)+"/pools/preview", spec, &out)
	return out, err
}

// PublishPool queues the job that saves a pool and publishes it as
// relevance items; follow it with Job (its result is an api.PoolPublished).
func (c *Client) PublishPool(ctx context.Context, project string, spec api.PoolSpec) (api.JobView, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.JobView{}, err
	}
	var out api.JobView
	err := c.do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(project)+"/pools", spec, &out)
	return out, err
}

// Queries lists a project's queries with their expressions.
func (c *Client) Queries(ctx context.Context, project string) ([]api.QueryExpression, error) {
	var out []api.QueryExpression
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/queries", nil, &out)
	return out, err
}

// SetExpression saves a corrected decomposition of a query.
func (c *Client) SetExpression(ctx context.Context, queryID int64, req api.ExpressionRequest) (api.QueryExpression, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.QueryExpression{}, err
	}
	var out api.QueryExpression
	err := c.do(ctx, http.MethodPut, fmt.Sprintf("/api/queries/%d/expression", queryID), req, &out)
	return out, err
}

// Decompose asks for the decomposer's reading of a query.
func (c *Client) Decompose(ctx context.Context, queryID int64) (api.ExpressionSuggestion, error) {
	var out api.ExpressionSuggestion
	err := c.do(ctx, http.MethodGet, fmt.Sprintf("/api/queries/%d/decompose", queryID), nil, &out)
	return out, err
}

// DecomposeAll stores the decomposer's expressions for a project's queries
// (only those without one when req.OnlyMissing).
func (c *Client) DecomposeAll(ctx context.Context, project string, req api.DecomposeAllRequest) (api.DecomposeSummary, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.DecomposeSummary{}, err
	}
	var out api.DecomposeSummary
	err := c.do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(project)+"/decompose", req, &out)
	return out, err
}
