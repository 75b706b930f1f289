package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/judging"
)

// taskService is what the task handlers need.
type taskService interface {
	Queue(ctx context.Context, r judging.Rater, project string, req api.QueueRequest) (api.Queue, error)
	Task(ctx context.Context, r judging.Rater, itemID int64) (api.Task, error)
	Instructions(ctx context.Context, r judging.Rater, project, kind string) (api.Instructions, error)
	Stats(ctx context.Context, r judging.Rater, project string) (api.ProjectStats, error)
	Projects(ctx context.Context, r judging.Rater) (api.MyProjects, error)
}

type taskHandlers struct{ svc taskService }

// queue leases the rater's next tasks: POST because it takes leases.
func (h taskHandlers) queue(c echo.Context) error {
	var req api.QueueRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	q, err := h.svc.Queue(c.Request().Context(), rater(c), c.Param("project"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, q)
}

// projects lists the signed-in user's own projects with their progress
// (GET /api/me/projects).
func (h taskHandlers) projects(c echo.Context) error {
	out, err := h.svc.Projects(c.Request().Context(), rater(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

func (h taskHandlers) item(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return apperr.Invalidf("id", "must be a positive integer")
	}
	t, err := h.svc.Task(c.Request().Context(), rater(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h taskHandlers) instructions(c echo.Context) error {
	in, err := h.svc.Instructions(c.Request().Context(), rater(c), c.Param("project"), c.QueryParam("kind"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, in)
}

func (h taskHandlers) stats(c echo.Context) error {
	st, err := h.svc.Stats(c.Request().Context(), rater(c), c.Param("project"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st)
}

// rater is the signed-in user of a request behind RequireSession.
func rater(c echo.Context) judging.Rater {
	ss, _ := auth.CurrentSession(c)
	return judging.Rater{ID: ss.User.ID, Role: ss.User.Role, Crowd: ss.User.ExternalID != nil}
}
