package web

import (
	"context"
	"net/url"

	"boolpool/api"
)

// Reusability fetches the leave-out report of one pool (researchers).
func (c *Client) Reusability(ctx context.Context, project, pool string) (api.Reusability, error) {
	return getJSON[api.Reusability](ctx, c, projectPath(project, "/reusability?pool="+url.QueryEscape(pool)))
}

// Stability fetches the ranking-stability report (researchers).
func (c *Client) Stability(ctx context.Context, project string) (api.Stability, error) {
	return getJSON[api.Stability](ctx, c, projectPath(project, "/stability"))
}
