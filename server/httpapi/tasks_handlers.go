package httpapi

import (
	"context"
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/judging"
)

// taskService is what the task handlers need.
type taskService interface {
	Queue(ctx context.Context, r judging.Rater, project string, req judging.QueueRequest) (judging.Queue, error)
	Task(ctx context.Context, r judging.Rater, itemID int64) (judging.Task, error)
	Instructions(ctx context.Context, r judging.Rater, project, kind string) (judging.Instructions, error)
	Stats(ctx context.Context, r judging.Rater, project string) (judging.ProjectStats, error)
	Projects(ctx context.Context, r judging.Rater) (judging.MyProjects, error)
}

type taskHandlers struct{ svc taskService }

// queue leases the rater's next tasks: POST because it takes leases.
func (h taskHandlers) queue(c echo.Context) error {
	var req api.QueueRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	return reply(c, toAPIQueue)(h.svc.Queue(c.Request().Context(), rater(c), c.Param("project"), toJudgingQueueRequest(req)))
}

// projects lists the signed-in user's own projects with their progress
// (GET /api/me/projects).
func (h taskHandlers) projects(c echo.Context) error {
	return reply(c, toAPIMyProjects)(h.svc.Projects(c.Request().Context(), rater(c)))
}

func (h taskHandlers) item(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return apperr.Invalidf("id", "must be a positive integer")
	}
	return reply(c, toAPITask)(h.svc.Task(c.Request().Context(), rater(c), id))
}

func (h taskHandlers) instructions(c echo.Context) error {
	return reply(c, toAPIInstructions)(h.svc.Instructions(c.Request().Context(), rater(c), c.Param("project"), c.QueryParam("kind")))
}

func (h taskHandlers) stats(c echo.Context) error {
	return reply(c, toAPIProjectStats)(h.svc.Stats(c.Request().Context(), rater(c), c.Param("project")))
}

// rater is the signed-in user of a request behind RequireSession.
func rater(c echo.Context) judging.Rater {
	ss, _ := auth.CurrentSession(c)
	return judging.Rater{ID: ss.User.ID, Role: ss.User.Role, Crowd: ss.User.ExternalID != nil}
}
