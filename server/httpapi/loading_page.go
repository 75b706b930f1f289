package httpapi

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/auth"
	"boolpool/server/judging"
	"boolpool/server/store"
)

// loadingPages serves the task pages (/judge/<p>, /paraphrase/<p>,
// /validate/<p>, /constraint/<p>) through go-app with the project's task
// instructions written into go-app's loading screen, so that a participant
// on a slow link reads them while app.wasm downloads (app.js removes the
// loading screen once the app runs). Only a signed-in member of the project
// gets them: for anyone else the page is go-app's as it is. These pages
// differ per user, so they are never stored (no-store, no ETag).
type loadingPages struct {
	app      http.Handler
	sessions interface {
		Session(ctx context.Context, token string) (store.Session, error)
	}
	tasks interface {
		Instructions(ctx context.Context, r judging.Rater, project, kind string) (judging.Instructions, error)
	}
	log *slog.Logger
}

// serve answers one task page; kind is the task kind the route shows.
func (lp loadingPages) serve(kind string) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request().Clone(c.Request().Context())
		// go-app answers 304 to its version's ETag; a page cached while
		// signed in must not be reused signed out, nor the other way round.
		req.Header.Del("If-None-Match")
		var page bufferedResponse
		lp.app.ServeHTTP(&page, req)
		if page.status == 0 {
			page.status = http.StatusOK
		}
		page.Header().Del("ETag")
		page.Header().Set("Cache-Control", "no-store")
		body := page.body.Bytes()
		if page.status == http.StatusOK && req.Method == http.MethodGet {
			if in, ok := lp.instructions(c, kind); ok {
				if b, err := withInstructions(body, in); err != nil {
					lp.log.Warn("task instructions not added to the loading page", "path", req.URL.Path, "err", err)
				} else {
					body = b
				}
			}
		}
		h := c.Response().Header()
		for k, v := range page.header {
			h[k] = v
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		c.Response().WriteHeader(page.status)
		_, err := c.Response().Write(body)
		return err
	}
}

// instructions returns the instructions of the request's project for kind
// when the request comes from a signed-in user who may work in it.
func (lp loadingPages) instructions(c echo.Context, kind string) (api.Instructions, bool) {
	ctx := c.Request().Context()
	token := auth.SessionToken(c)
	if token == "" {
		return api.Instructions{}, false
	}
	ss, err := lp.sessions.Session(ctx, token)
	if err != nil {
		return api.Instructions{}, false
	}
	r := judging.Rater{ID: ss.User.ID, Role: ss.User.Role, Crowd: ss.User.ExternalID != nil}
	d, err := lp.tasks.Instructions(ctx, r, c.Param("project"), kind)
	if err != nil {
		// Not a member, no such project: the page as anyone sees it.
		return api.Instructions{}, false
	}
	return toAPIInstructions(d), true
}

// loaderEnd is where go-app's loading screen ends (the <aside
// id="app-wasm-loader"> is the first aside of its page).
var loaderEnd = []byte("</aside>")

// withInstructions inserts the instructions at the end of go-app's loading
// screen.
func withInstructions(page []byte, in api.Instructions) ([]byte, error) {
	start := bytes.Index(page, []byte(`id="app-wasm-loader"`))
	if start < 0 {
		return nil, errNoLoader
	}
	end := bytes.Index(page[start:], loaderEnd)
	if end < 0 {
		return nil, errNoLoader
	}
	end += start
	var block bytes.Buffer
	if err := loadingInstructions.Execute(&block, in); err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(page)+block.Len())
	out = append(out, page[:end]...)
	out = append(out, block.Bytes()...)
	return append(out, page[end:]...), nil
}

var errNoLoader = errors.New("httpapi: go-app page has no loading screen")

// loadingInstructions is the instructions block of the loading screen
// (html/template escapes the project's text).
var loadingInstructions = template.Must(template.New("instructions").Parse(
	`<section id="loading-instructions" class="loading-instructions" aria-labelledby="loading-instructions-title">` +
		`<h2 id="loading-instructions-title">Instructions</h2>` +
		`<p class="loading-instructions-hint">Read them while the app loads; press i in the app to see them again.</p>` +
		`<p>{{.Text}}</p>` +
		`{{if .Examples}}<ul class="examples">{{range .Examples}}` +
		`<li class="example {{if .Good}}good{{else}}bad{{end}}"><strong>{{if .Good}}Good example{{else}}Bad example{{end}}: </strong>` +
		`<span>query “{{.Query}}”</span>{{if .Document}}<span> · document “{{.Document}}”</span>{{end}}` +
		`<span> → {{.Label}}. </span><em>{{.Explanation}}</em></li>{{end}}</ul>{{end}}` +
		`</section>`))

// bufferedResponse holds go-app's answer so it can be changed before it
// is sent.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
