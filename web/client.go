package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// ErrNetwork marks a request that never got an HTTP answer (offline, server
// down, request blocked).
var ErrNetwork = errors.New("network unavailable")

// APIError is an HTTP error answer from the server.
type APIError struct {
	Status  int
	Problem api.Problem
}

func (e *APIError) Error() string {
	if e.Problem.Detail != "" {
		return e.Problem.Detail
	}
	if e.Problem.Title != "" {
		return e.Problem.Title
	}
	return http.StatusText(e.Status)
}

// StatusOf returns the HTTP status of err (0 if it is not an APIError).
func StatusOf(err error) int {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// Client talks to the boolpool JSON API from the browser. It remembers the
// session's CSRF token and sends it on every state-changing request.
type Client struct {
	base string
	st   Storage // where a pending sign-out is kept (nil: none is checked)
	mu   sync.Mutex
	csrf string
}

// requestTimeout bounds one request, answer included.
const requestTimeout = 20 * time.Second

// maxAnswerBytes bounds an answer body the client reads.
const maxAnswerBytes = 8 << 20

// NewClient returns a client for the page's own origin.
func NewClient() *Client {
	base := ""
	if app.IsClient {
		u := app.Window().URL()
		base = u.Scheme + "://" + u.Host
		return &Client{base: base, st: browserStorage{}}
	}
	return &Client{base: base}
}

func (c *Client) setCSRF(t string) {
	c.mu.Lock()
	c.csrf = t
	c.mu.Unlock()
}

// do sends a request, after ending the server session of a sign-out made
// while offline (SettleSignOut): until that worked, nothing is sent as the
// signed-out user and the answer is a 401 (a sign-in itself answers why
// the sign-out could not be settled).
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	if err := c.SettleSignOut(ctx); err != nil {
		if path == "/api/auth/login" {
			return err
		}
		return errSignOutPending(err)
	}
	return c.roundTrip(ctx, method, path, in, out)
}

// roundTrip sends one request with the session's CSRF token.
func (c *Client) roundTrip(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	header := [][2]string{{"Accept", "application/json"}}
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = b
		header = append(header, [2]string{"Content-Type", "application/json"})
	}
	if method != http.MethodGet {
		c.mu.Lock()
		header = append(header, [2]string{api.CSRFHeader, c.csrf})
		c.mu.Unlock()
	}
	status, data, err := send(ctx, method, c.base+path, header, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w: %v", method, path, ErrNetwork, err)
	}
	if status >= 400 {
		ae := &APIError{Status: status}
		_ = json.Unmarshal(data, &ae.Problem)
		return ae
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("decode %s: %w", path, err)
		}
	}
	return nil
}

// getJSON fetches path and decodes its answer into a T.
func getJSON[T any](ctx context.Context, c *Client, path string) (T, error) {
	var out T
	err := c.do(ctx, http.MethodGet, path, nil, &out)
	return out, err
}

// sendJSON sends in to path with method (a change: the CSRF token is
// fetched first when the page lacks it) and decodes the answer into a T.
func sendJSON[T any](ctx context.Context, c *Client, method, path string, in any) (T, error) {
	var out T
	if err := c.ensureCSRF(ctx); err != nil {
		return out, err
	}
	err := c.do(ctx, method, path, in, &out)
	return out, err
}

// projectPath is the API path rest of a project (/api/projects/NAME rest).
func projectPath(project, rest string) string {
	return "/api/projects/" + url.PathEscape(project) + rest
}

// Me returns the signed-in user (401 APIError when signed out).
func (c *Client) Me(ctx context.Context) (api.Me, error) {
	var me api.Me
	err := c.do(ctx, http.MethodGet, "/api/me", nil, &me)
	if err == nil {
		c.setCSRF(me.CSRFToken)
	}
	return me, err
}

// MyProjects lists the signed-in user's projects with their progress.
func (c *Client) MyProjects(ctx context.Context) (api.MyProjects, error) {
	return getJSON[api.MyProjects](ctx, c, "/api/me/projects")
}

// Login opens a session.
func (c *Client) Login(ctx context.Context, username, password string) (api.Me, error) {
	var me api.Me
	err := c.do(ctx, http.MethodPost, "/api/auth/login", api.LoginRequest{Username: username, Password: password}, &me)
	if err == nil {
		c.setCSRF(me.CSRFToken)
	}
	return me, err
}

// Logout ends the session.
func (c *Client) Logout(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/api/auth/logout", nil, nil)
}

// Queue leases up to n tasks of kind in project.
func (c *Client) Queue(ctx context.Context, project, kind string, n int) (api.Queue, error) {
	var q api.Queue
	err := c.do(ctx, http.MethodPost, "/api/projects/"+project+"/queue", api.QueueRequest{Kind: kind, N: n}, &q)
	return q, err
}

// Item fetches one item assigned to the user.
func (c *Client) Item(ctx context.Context, id int64) (api.Task, error) {
	return getJSON[api.Task](ctx, c, fmt.Sprintf("/api/items/%d", id))
}

// Instructions fetches a project's instructions for a task kind.
func (c *Client) Instructions(ctx context.Context, project, kind string) (api.Instructions, error) {
	return getJSON[api.Instructions](ctx, c, "/api/projects/"+project+"/instructions?kind="+kind)
}

// Stats fetches a project's judging summary (researchers).
func (c *Client) Stats(ctx context.Context, project string) (api.ProjectStats, error) {
	return getJSON[api.ProjectStats](ctx, c, "/api/projects/"+project+"/stats")
}

// Users lists all accounts (admins).
func (c *Client) Users(ctx context.Context) ([]api.UserView, error) {
	return getJSON[[]api.UserView](ctx, c, "/api/admin/users")
}

// CreateUser creates an account (admins).
func (c *Client) CreateUser(ctx context.Context, req api.NewUserRequest) (api.UserView, error) {
	var u api.UserView
	err := c.do(ctx, http.MethodPost, "/api/admin/users", req, &u)
	return u, err
}

// homeFor is where a user lands after signing in.
func homeFor(me api.Me) string {
	switch me.Role {
	case api.RoleAdmin:
		return "/admin"
	case api.RoleResearcher:
		return "/researcher"
	}
	// An annotator in several projects chooses one on the home page.
	if len(me.Projects) == 1 {
		return "/judge/" + me.Projects[0]
	}
	return "/"
}

// lastPathPart is the final segment of a URL path ("/judge/demo" → "demo").
func lastPathPart(p string) string {
	p = strings.TrimRight(p, "/")
	return p[strings.LastIndex(p, "/")+1:]
}
