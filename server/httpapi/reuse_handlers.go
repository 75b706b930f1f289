package httpapi

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/server/apperr"
	"boolpool/server/reuse"
	"boolpool/server/store"
)

// reuseHandlers serve the reusability and ranking-stability reports
// (issue 24): thin wrappers of reuse.LoadReusability and LoadStability.
type reuseHandlers struct {
	research researchHandlers
	st       *store.Store
}

// reusability: GET /api/projects/:project/reusability?pool=NAME
// [&measures=LIST][&split=S] → api.Reusability.
func (h reuseHandlers) reusability(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	opt := reuse.Options{Pool: c.QueryParam("pool"), Measures: c.QueryParam("measures"), Split: c.QueryParam("split")}
	if opt.Pool == "" {
		return apperr.Invalidf("pool", "required: the pool to test")
	}
	return reply(c, toAPIReusability)(reuse.LoadReusability(c.Request().Context(), h.st, p.ID, opt))
}

// stability: GET /api/projects/:project/stability[?pool=NAME]
// [&measures=LIST][&split=S][&bootstrap=B][&seed=S] → api.Stability.
func (h reuseHandlers) stability(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	opt := reuse.Options{Pool: c.QueryParam("pool"), Measures: c.QueryParam("measures"), Split: c.QueryParam("split"),
		Resamples: reuse.DefaultBootstrap, Seed: 1}
	if s := c.QueryParam("bootstrap"); s != "" {
		if opt.Resamples, err = strconv.Atoi(s); err != nil {
			return apperr.Invalidf("bootstrap", "not a whole number: %q", apperr.Clip(s, 40))
		}
	}
	if s := c.QueryParam("seed"); s != "" {
		if opt.Seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			return apperr.Invalidf("seed", "not a whole number: %q", apperr.Clip(s, 40))
		}
	}
	return reply(c, toAPIStability)(reuse.LoadStability(c.Request().Context(), h.st, p.ID, opt))
}
