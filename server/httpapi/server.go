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

	"boolpool/server/config"
	"boolpool/server/store"
)

// Server is the HTTP server with its dependencies.
type Server struct {
	cfg   config.Config
	store *store.Store
	log   *slog.Logger
	echo  *echo.Echo
	// onShutdown runs when shutdown starts (ends long-lived event streams).
	onShutdown []func()
}

// New builds the server and its routes.
func New(cfg config.Config, st *store.Store, log *slog.Logger) *Server {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{cfg: cfg, store: st, log: log, echo: e}
	e.HTTPErrorHandler = s.handleError
	s.routes()
	return s
}

// Handler exposes the server for httptest.
func (s *Server) Handler() http.Handler { return s.echo }

// Run serves until ctx is cancelled, then shuts down gracefully, letting
// in-flight requests (judgment writes) finish.
func (s *Server) Run(ctx context.Context) error {
	srv := &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s.echo,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	for _, f := range s.onShutdown {
		srv.RegisterOnShutdown(f)
	}
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
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("httpapi: shutdown: %w", err)
	}
	return nil
}

func (s *Server) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is 200 only when the database answers and its schema is current.
func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 3*time.Second)
	defer cancel()
	if err := s.store.Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "database unreachable", "detail": err.Error()})
	}
	if err := s.store.CheckSchema(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "schema not current", "detail": err.Error()})
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
