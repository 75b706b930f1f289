package web

import (
	"context"
	"net/http"
	"net/url"

	"boolpool/api"
)

// Reusability fetches the leave-out report of one pool (researchers).
func (c *Client) Reusability(ctx context.Context, project, pool string) (api.Reusability, error) {
	var out api.Reusability
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/reusability?pool="+url.QueryEscape(pool), nil, &out)
	return out, err
}

// Stability fetches the ranking-stability report (researchers).
func (c *Client) Stability(ctx context.Context, project string) (api.Stability, error) {
	var out api.Stability
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/stability", nil, &out)
	return out, err
}
