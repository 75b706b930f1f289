package web

import (
	"context"
	"net/http"
	"net/url"

	"boolpool/api"
)

// SetQuality changes a project's gold settings (researchers). Like
// Adjudicate, it fetches the CSRF token first when the page lacks it.
func (c *Client) SetQuality(ctx context.Context, project string, q api.QualitySettings) (api.QualitySettings, error) {
	c.mu.Lock()
	known := c.csrf != ""
	c.mu.Unlock()
	if !known {
		if _, err := c.Me(ctx); err != nil {
			return api.QualitySettings{}, err
		}
	}
	var out api.QualitySettings
	err := c.do(ctx, http.MethodPut, "/api/projects/"+url.PathEscape(project)+"/quality", q, &out)
	return out, err
}
