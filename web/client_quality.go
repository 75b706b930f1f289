package web

import (
	"context"
	"net/http"

	"boolpool/api"
)

// SetQuality changes a project's gold settings (researchers). Like
// Adjudicate, it fetches the CSRF token first when the page lacks it.
func (c *Client) SetQuality(ctx context.Context, project string, q api.QualitySettings) (api.QualitySettings, error) {
	return sendJSON[api.QualitySettings](ctx, c, http.MethodPut, projectPath(project, "/quality"), q)
}
