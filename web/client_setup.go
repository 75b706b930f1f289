package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Projects lists the projects the user may set up.
func (c *Client) Projects(ctx context.Context) ([]api.ProjectView, error) {
	return getJSON[[]api.ProjectView](ctx, c, "/api/projects")
}

// CreateProject creates a project (the user becomes a member).
func (c *Client) CreateProject(ctx context.Context, req api.NewProjectRequest) (api.ProjectView, error) {
	return sendJSON[api.ProjectView](ctx, c, http.MethodPost, "/api/projects", req)
}

// SetupOptions lists formats, retrieval methods, encoders and job kinds.
func (c *Client) SetupOptions(ctx context.Context) (api.SetupOptions, error) {
	return getJSON[api.SetupOptions](ctx, c, "/api/setup/options")
}

// Jobs lists a project's recent jobs.
func (c *Client) Jobs(ctx context.Context, project string, limit int) ([]api.JobView, error) {
	return getJSON[[]api.JobView](ctx, c, fmt.Sprintf("/api/projects/%s/jobs?limit=%d", url.PathEscape(project), limit))
}

// Job reads one job (its state, progress and result).
func (c *Client) Job(ctx context.Context, id int64) (api.JobView, error) {
	return getJSON[api.JobView](ctx, c, fmt.Sprintf("/api/jobs/%d", id))
}

// StartJob queues a job.
func (c *Client) StartJob(ctx context.Context, project string, req api.JobRequest) (api.JobView, error) {
	return sendJSON[api.JobView](ctx, c, http.MethodPost, projectPath(project, "/jobs"), req)
}

// CancelJob ends a queued or running job.
func (c *Client) CancelJob(ctx context.Context, id int64) (api.JobView, error) {
	return sendJSON[api.JobView](ctx, c, http.MethodPost, fmt.Sprintf("/api/jobs/%d/cancel", id), nil)
}

// UpdateUser changes an account (admins).
func (c *Client) UpdateUser(ctx context.Context, id int64, req api.UserUpdateRequest) (api.UserView, error) {
	return sendJSON[api.UserView](ctx, c, http.MethodPatch, fmt.Sprintf("/api/admin/users/%d", id), req)
}

// Upload sends the files chosen in a file input to the project's import
// route with the browser's own fetch and FormData, so the files stream
// from disk instead of being copied into the wasm heap. Call it from a
// goroutine (ctx.Async): it waits for JavaScript promises.
func (c *Client) Upload(ctx context.Context, project, format, runName string, input app.Value) (api.ImportResult, error) {
	if err := c.ensureCSRF(ctx); err != nil {
		return api.ImportResult{}, err
	}
	fd := app.Window().Get("FormData").New()
	fd.Call("append", "format", format)
	if runName != "" {
		fd.Call("append", "run_name", runName)
	}
	files := input.Get("files")
	for i := 0; i < files.Length(); i++ {
		fd.Call("append", "files", files.Index(i))
	}
	c.mu.Lock()
	csrf := c.csrf
	c.mu.Unlock()
	opts := map[string]any{
		"method":      http.MethodPost,
		"body":        fd,
		"credentials": "same-origin",
		"headers":     map[string]any{api.CSRFHeader: csrf, "Accept": "application/json"},
	}
	path := "/api/projects/" + url.PathEscape(project) + "/imports"
	res, err := await(app.Window().Call("fetch", c.base+path, opts))
	if err != nil {
		return api.ImportResult{}, fmt.Errorf("POST %s: %w", path, err)
	}
	status := res.Get("status").Int()
	text, err := await(res.Call("text"))
	if err != nil {
		return api.ImportResult{}, fmt.Errorf("POST %s: %w", path, err)
	}
	body := []byte(text.String())
	if status >= 400 {
		ae := &APIError{Status: status}
		_ = json.Unmarshal(body, &ae.Problem)
		return api.ImportResult{}, ae
	}
	var out api.ImportResult
	if err := json.Unmarshal(body, &out); err != nil {
		return out, fmt.Errorf("decode %s: %w", path, err)
	}
	return out, nil
}

// await waits for a JavaScript promise; a rejection is a network error.
func await(promise app.Value) (app.Value, error) {
	done := make(chan app.Value, 1)
	failed := make(chan string, 1)
	onDone := app.FuncOf(func(this app.Value, args []app.Value) any {
		done <- args[0]
		return nil
	})
	onFail := app.FuncOf(func(this app.Value, args []app.Value) any {
		failed <- args[0].Call("toString").String()
		return nil
	})
	defer onDone.Release()
	defer onFail.Release()
	promise.Call("then", onDone, onFail)
	select {
	case v := <-done:
		return v, nil
	case msg := <-failed:
		return nil, fmt.Errorf("%w: %s", ErrNetwork, msg)
	}
}
