package httpapi

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
)

// handleError is the one place where errors become HTTP statuses.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	p := problemFor(err)
	// Details and fields can carry client input: an answer must not grow
	// with it.
	p.Detail = apperr.Clip(p.Detail, maxDetail)
	p.Field = apperr.Clip(p.Field, maxField)
	if p.Status >= 500 {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
		p.Detail = "internal error; see the server log"
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(p.Status)
		return
	}
	_ = c.JSON(p.Status, p)
}

func problemFor(err error) api.Problem {
	p := statusFor(err)
	var rf *apperr.Refused
	if p.Field == "" && p.Status < 500 && errors.As(err, &rf) {
		p.Field = rf.Field
	}
	return p
}

func statusFor(err error) api.Problem {
	var inv *apperr.Invalid
	var he *echo.HTTPError
	switch {
	case errors.As(err, &inv):
		return api.Problem{Title: "invalid input", Status: http.StatusBadRequest, Detail: inv.Error(), Field: inv.Field}
	case errors.Is(err, apperr.ErrNotFound):
		return api.Problem{Title: "not found", Status: http.StatusNotFound, Detail: err.Error()}
	case errors.Is(err, apperr.ErrConflict):
		return api.Problem{Title: "conflict", Status: http.StatusConflict, Detail: err.Error()}
	case errors.Is(err, apperr.ErrUnauthorized):
		return api.Problem{Title: "not signed in", Status: http.StatusUnauthorized, Detail: err.Error()}
	case errors.Is(err, apperr.ErrForbidden):
		return api.Problem{Title: "forbidden", Status: http.StatusForbidden, Detail: err.Error()}
	case errors.Is(err, apperr.ErrRateLimited):
		return api.Problem{Title: "too many requests", Status: http.StatusTooManyRequests, Detail: err.Error()}
	case errors.Is(err, apperr.ErrUnavailable):
		return api.Problem{Title: "unavailable", Status: http.StatusServiceUnavailable, Detail: err.Error()}
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
		return api.Problem{Title: http.StatusText(he.Code), Status: he.Code, Detail: msg}
	default:
		return api.Problem{Title: "internal error", Status: http.StatusInternalServerError}
	}
}

// Bounds of a problem's detail and field.
const (
	maxDetail = 2000
	maxField  = 300
)
