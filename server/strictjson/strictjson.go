// Package strictjson is the one strict JSON decoder of the server: request
// bodies (httpapi) and job parameters (jobs, app, atompool) are decoded
// with unknown fields refused, a single value required, and every failure
// an *apperr.Invalid naming the offending field, so a typo is a clear 400
// instead of a silent default.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"boolpool/server/apperr"
)

// Decode decodes raw into v. field names the whole value in errors
// ("body", "params"); a field error names the JSON field under it
// ("params.depth"; a body's fields by their own name, as the HTTP problem
// reports them).
func Decode(raw []byte, field string, v any) error {
	// PostgreSQL text cannot hold NUL: refuse it here as bad input rather
	// than fail later with a 500.
	if bytes.Contains(raw, []byte(`\u0000`)) {
		return apperr.Invalidf(field, "contains a NUL character (\\u0000), which no text field can hold")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.Is(err, io.EOF):
			return apperr.Invalidf(field, "empty; a JSON object is required")
		case errors.As(err, &typeErr):
			return apperr.Invalidf(sub(field, typeErr.Field), "must be %s", typeErr.Type)
		case errors.As(err, &syntaxErr):
			return apperr.Invalidf(field, "malformed JSON at byte %d", syntaxErr.Offset)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return apperr.Invalidf(sub(field, name), "unknown field")
		default:
			return apperr.Invalidf(field, "%v", err)
		}
	}
	if dec.More() {
		return apperr.Invalidf(field, "trailing data after the JSON object")
	}
	return nil
}

// Params decodes a job's parameters: empty means {} (every default).
func Params(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	return Decode(raw, "params", v)
}

// sub names a field under the whole value; a request body's fields are
// named by themselves.
func sub(field, name string) string {
	if field == "body" || field == "" {
		return name
	}
	if name == "" {
		return field
	}
	return field + "." + name
}
