package httpapi

import (
	"github.com/labstack/echo/v4/middleware"
)

// routes is the one route table, grouped by middleware and role.
func (s *Server) routes() {
	e := s.echo
	e.Use(middleware.Recover())
	e.Use(middleware.BodyLimit(bodyLimit(s.cfg.MaxBodyBytes)))

	// Probes: no auth, no session.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)
}
