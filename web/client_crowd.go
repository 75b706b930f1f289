package web

import (
	"context"
	"net/http"
	"net/url"

	"boolpool/api"
)

// CrowdSettings reads a project's crowd entry (researchers).
func (c *Client) CrowdSettings(ctx context.Context, project string) (api.CrowdSettings, error) {
	return getJSON[api.CrowdSettings](ctx, c, projectPath(project, "/crowd"))
}

// UpdateCrowd turns crowd entry on or off and sets the participant cap.
func (c *Client) UpdateCrowd(ctx context.Context, project string, req api.CrowdUpdateRequest) (api.CrowdSettings, error) {
	return sendJSON[api.CrowdSettings](ctx, c, http.MethodPut, projectPath(project, "/crowd"), req)
}

// RotateCrowdKey replaces the entry link's key; old links stop working.
func (c *Client) RotateCrowdKey(ctx context.Context, project string) (api.CrowdSettings, error) {
	return sendJSON[api.CrowdSettings](ctx, c, http.MethodPost, projectPath(project, "/crowd/rotate"), nil)
}

// CrowdParticipants reads a project's payment table (researchers).
func (c *Client) CrowdParticipants(ctx context.Context, project string) (api.CrowdParticipants, error) {
	return getJSON[api.CrowdParticipants](ctx, c, projectPath(project, "/crowd/participants"))
}

// CrowdParticipantsCSVPath is where the payment table downloads as CSV.
func CrowdParticipantsCSVPath(project string) string {
	return "/api/projects/" + url.PathEscape(project) + "/crowd/participants.csv"
}
