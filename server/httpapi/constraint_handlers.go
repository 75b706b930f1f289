package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/server/atompool"
	"boolpool/server/store"
	"boolpool/web/api"
)

// constraintHandlers serve constraint judging for researchers (issue 13):
// creating constraint items and the derived qrels they feed.
type constraintHandlers struct {
	research researchHandlers
	st       *store.Store
}

// pool creates constraint items (POST /api/projects/:project/constraints).
func (h constraintHandlers) pool(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	var req api.ConstraintPoolRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := atompool.Pool(c.Request().Context(), h.st, p.ID, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

// derived returns every query's derived qrels counts and the consistency
// flags (GET /api/projects/:project/derived).
func (h constraintHandlers) derived(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	out, err := atompool.Summary(c.Request().Context(), h.st, p.ID, false)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}
