package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/server/poolestimate"
	"boolpool/server/store"
)

// estimateHandlers serve the estimates of a project's runs from its
// sampled pool (issue 24).
type estimateHandlers struct {
	research researchHandlers
	st       *store.Store
}

// estimates answers GET /api/projects/:project/estimates?pool=NAME&measures=LIST:
// poolestimate.Compute, the numbers `boolpool eval --estimate` prints.
func (h estimateHandlers) estimates(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	res, err := poolestimate.Compute(c.Request().Context(), h.st, p.ID, poolestimate.Options{
		Pool: c.QueryParam("pool"), Measures: c.QueryParam("measures")})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
