package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/judging"
	"boolpool/server/strictjson"
)

// judgmentService is what the judgment handler needs.
type judgmentService interface {
	Submit(ctx context.Context, r judging.Rater, req judging.JudgmentRequest) (judging.JudgmentResponse, error)
}

type judgeHandlers struct{ svc judgmentService }

// submit stores one judgment. 201 for a new one, 200 for a retry of a
// stored one (same body either way).
func (h judgeHandlers) submit(c echo.Context) error {
	var req api.JudgmentRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := h.svc.Submit(c.Request().Context(), rater(c), toJudgingJudgmentRequest(req))
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if res.Duplicate {
		status = http.StatusOK
	}
	return c.JSON(status, toAPIJudgmentResponse(res))
}

// bindJSON decodes a JSON body strictly (server/strictjson: unknown fields
// are errors), naming the offending field in the 400.
func bindJSON(c echo.Context, v any) error {
	raw, err := io.ReadAll(c.Request().Body)
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return apperr.Invalidf("body", "larger than %d bytes", maxErr.Limit)
	}
	if err != nil {
		return apperr.Invalidf("body", "unreadable: %v", err)
	}
	return strictjson.Decode(raw, "body", v)
}
