package httpapi

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
)

// FuzzBindJSON feeds arbitrary bodies to the strict JSON request decoder
// with every request type: it must never panic, and every rejection must
// be an *apperr.Invalid (a 400 naming the field), never an internal error.
func FuzzBindJSON(f *testing.F) {
	for _, s := range []string{
		`{"client_id":"00000000-0000-4000-8000-000000000001","item_id":1,"kind":"relevance","relevance":2,"evidence":"partial"}`,
		`{"username":"a","password":"b"}`, `{"kind":"relevance","n":3}`, `{"attributions":[{"atom":0,"sentences":[1,2]}]}`,
		`{"relevance":"x"}`, `[]`, ``, `{"a":`, `{"comment":"\u0000"}`, `{"n":1e400}`,
	} {
		f.Add(s)
	}
	e := echo.New()
	f.Fuzz(func(t *testing.T, body string) {
		targets := []any{&api.JudgmentRequest{}, &api.LoginRequest{}, &api.QueueRequest{}}
		for _, v := range targets {
			req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
			c := e.NewContext(req, httptest.NewRecorder())
			err := bindJSON(c, v)
			var inv *apperr.Invalid
			if err != nil && !errors.As(err, &inv) {
				t.Fatalf("body %q: error %v (%T) is not *apperr.Invalid", body, err, err)
			}
		}
	})
}
