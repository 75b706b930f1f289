// Package httpapi is boolpool's HTTP layer: the Echo server, its one route
// table, middleware, and the central error handler that turns typed errors
// into JSON problems. Handlers are thin: bind, validate, call, respond.
package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/server/auth"
	"boolpool/server/config"
	"boolpool/server/consensus"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/live"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// Server is the HTTP server with its dependencies.
type Server struct {
	cfg  config.Config
	svc  Services
	log  *slog.Logger
	echo *echo.Echo
	// streams bounds each account's open live streams on this server.
	streams *streamSlots
	// onShutdown runs when shutdown starts (ends long-lived event streams).
	onShutdown []func()
}

// Services are what the handlers call: built (and closed) by the one
// composition root, server/app (app.New), for `boolpool serve` and the
// tests alike.
type Services struct {
	Store     *store.Store        // plain reads and writes of the handlers
	Auth      *auth.Service       // sign-in, sessions, crowd entry
	Judging   *judging.Service    // the rater workflow (tells Consensus of each judgment)
	Consensus *consensus.Service  // stored consensus, adjudication queue
	Live      *live.Service       // dashboards (follows Consensus)
	Jobs      *jobs.Client        // background jobs (River): the setup page starts, lists and cancels them; nil: none
	CAL       *pooling.CALControl // stops and extends the queries of live cal pools
	// Relay carries judgments between the servers of one database (nil:
	// one server). Run listens for the others while it serves.
	Relay *live.Relay
	// Encoders are the encoder names the encode job kind accepts (for the
	// setup page).
	Encoders []string
}

// New builds the server and its routes over the services.
func New(cfg config.Config, svc Services, log *slog.Logger) *Server {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{cfg: cfg, svc: svc, log: log, echo: e, streams: newStreamSlots(cfg.StreamsPerUser())}
	if svc.Live != nil {
		s.onShutdown = append(s.onShutdown, svc.Live.Hub().CloseAll)
	}
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s
}

// RelayJudgments listens for the judgments other servers on the database
// store and shows them on this server's live dashboards, until ctx ends;
// ready is called when it listens. Run does it; tests that serve Handler
// call it themselves.
func (s *Server) RelayJudgments(ctx context.Context, ready func()) {
	if s.svc.Relay == nil {
		if ready != nil {
			ready()
		}
		<-ctx.Done()
		return
	}
	s.svc.Relay.Run(ctx, ready)
}

// Handler exposes the server for httptest.
func (s *Server) Handler() http.Handler { return s.echo }

// Run serves until ctx is cancelled, then shuts down gracefully, letting
// in-flight requests (judgment writes) finish. The caller closes the
// services afterwards.
func (s *Server) Run(ctx context.Context) error {
	srv := s.httpServer()
	for _, f := range s.onShutdown {
		srv.RegisterOnShutdown(f)
	}
	// Uploads of a server that was killed mid-import stay on disk: remove
	// the ones whose process is gone.
	if n, err := sweepUploads(s.cfg.UploadRoot(), time.Now(), s.log); err != nil {
		s.log.Warn("removing stale uploads", "err", err)
	} else if n > 0 {
		s.log.Info("removed stale uploads", "dirs", n, "root", s.cfg.UploadRoot())
	}
	relayCtx, stopRelay := context.WithCancel(context.WithoutCancel(ctx))
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		s.RelayJudgments(relayCtx, nil)
	}()
	defer func() { stopRelay(); <-relayDone }()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		return fmt.Errorf("httpapi: listen: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	s.log.Info("shutting down")
	err := srv.Shutdown(shutdownCtx)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("httpapi: shutdown: %w", err)
	}
	return nil
}

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is 200 only when the database answers and its schema is current.
// It is unauthenticated: the answer says which of the two failed and
// nothing more (a connection error names the database's user, host, port
// and name); the details go to the log.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	if err := s.svc.Store.Ping(ctx); err != nil {
		s.log.Warn("readyz: database unavailable", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "database unavailable"})
	}
	if err := s.svc.Store.CheckSchema(ctx); err != nil {
		s.log.Warn("readyz: schema not current", "err", err)
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "schema not current"})
	}
	return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
}

// Route is one registered method and path (for the authorisation matrix
// test and documentation).
type Route struct {
	Method, Path string
}

// Routes lists every registered route.
func (s *Server) Routes() []Route {
	var out []Route
	for _, r := range s.echo.Routes() {
		out = append(out, Route{Method: r.Method, Path: r.Path})
	}
	return out
}
