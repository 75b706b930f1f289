package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"boolpool/server/apperr"
	"boolpool/server/judging"
	"boolpool/api"
)

// judgmentService is what the judgment handler needs.
type judgmentService interface {
	Submit(ctx context.Context, r judging.Rater, req api.JudgmentRequest) (api.JudgmentResponse, error)
}

type judgeHandlers struct{ svc judgmentService }

// submit stores one judgment. 201 for a new one, 200 for a retry of a
// stored one (same body either way).
func (h judgeHandlers) submit(c echo.Context) error {
	var req api.JudgmentRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	res, err := h.svc.Submit(c.Request().Context(), rater(c), req)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if res.Duplicate {
		status = http.StatusOK
	}
	return c.JSON(status, res)
}

// bindJSON decodes a JSON body strictly (unknown fields are errors), naming
// the offending field in the 400.
func bindJSON(c echo.Context, v any) error {
	raw, err := io.ReadAll(c.Request().Body)
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return apperr.Invalidf("body", "larger than %d bytes", maxErr.Limit)
	}
	if err != nil {
		return apperr.Invalidf("body", "unreadable: %v", err)
	}
	// PostgreSQL text cannot hold NUL: refuse it here as bad input rather
	// than fail later with a 500.
	if bytes.Contains(raw, []byte(`\u0000`)) {
		return apperr.Invalidf("body", "contains a NUL character (\\u0000), which no text field can hold")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		var maxErr *http.MaxBytesError
		switch {
		case errors.Is(err, io.EOF):
			return apperr.Invalidf("body", "empty; a JSON object is required")
		case errors.As(err, &typeErr):
			return apperr.Invalidf(typeErr.Field, "must be %s", typeErr.Type)
		case errors.As(err, &syntaxErr):
			return apperr.Invalidf("body", "malformed JSON at byte %d", syntaxErr.Offset)
		case errors.As(err, &maxErr):
			return apperr.Invalidf("body", "larger than %d bytes", maxErr.Limit)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return apperr.Invalidf(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "unknown field")
		default:
			return apperr.Invalidf("body", "%v", err)
		}
	}
	if dec.More() {
		return apperr.Invalidf("body", "trailing data after the JSON object")
	}
	return nil
}
