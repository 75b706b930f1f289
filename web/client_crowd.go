package web

import (
	"context"
	"net/http"
	"net/url"

	"boolpool/api"
)

// CrowdSettings reads a project's crowd entry (researchers).
func (c *Client) CrowdSettings(ctx context.Context, project string) (api.CrowdSettings, error) {
	var out api.CrowdSettings
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/crowd", nil, &out)
	return out, err
}

// UpdateCrowd turns crowd entry on or off and sets the participant cap.
func (c *Client) UpdateCrowd(ctx context.Context, project string, req api.CrowdUpdateRequest) (api.CrowdSettings, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.CrowdSettings{}, err
	}
	var out api.CrowdSettings
	err := c.do(ctx, http.MethodPut, "/api/projects/"+url.PathEscape(project)+"/crowd", req, &out)
	return out, err
}

// RotateCrowdKey replaces the entry link's key; old links stop working.
func (c *Client) RotateCrowdKey(ctx context.Context, project string) (api.CrowdSettings, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.CrowdSettings{}, err
	}
	var out api.CrowdSettings
	err := c.do(ctx, http.MethodPost, "/api/projects/"+url.PathEscape(project)+"/crowd/rotate", nil, &out)
	return out, err
}

// CrowdParticipants reads a project's payment table (researchers).
func (c *Client) CrowdParticipants(ctx context.Context, project string) (api.CrowdParticipants, error) {
	var out api.CrowdParticipants
	err := c.do(ctx, http.MethodGet, "/api/projects/"+url.PathEscape(project)+"/crowd/participants", nil, &out)
	return out, err
}

// CrowdParticipantsCSVPath is where the payment table downloads as CSV.
func CrowdParticipantsCSVPath(project string) string {
	return "/api/projects/" + url.PathEscape(project) + "/crowd/participants.csv"
}
