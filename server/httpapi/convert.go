package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// The conversions between the domain packages' types and the wire types of
// api live at the HTTP edge, one file per domain package (convert_*.go) and
// one function per type: toAPIX turns a domain value into the wire's X,
// to<Package>X turns a wire request into the domain's. The domain packages
// import no wire type (internal/archtest).

// convSlice converts each element of xs with f; nil stays nil.
func convSlice[A, B any](xs []A, f func(A) B) []B {
	if xs == nil {
		return nil
	}
	out := make([]B, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// convPtr converts *p with f; nil stays nil.
func convPtr[A, B any](p *A, f func(A) B) *B {
	if p == nil {
		return nil
	}
	v := f(*p)
	return &v
}

// convMap converts each value of m with f; nil stays nil.
func convMap[K comparable, A, B any](m map[K]A, f func(A) B) map[K]B {
	if m == nil {
		return nil
	}
	out := make(map[K]B, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

// reply returns a handler's last step for a service call's result: the
// error, or the value turned into its wire type by conv as a 200 JSON body:
//
//	return reply(c, toAPIQueue)(h.svc.Queue(ctx, r, project, req))
func reply[D, W any](c echo.Context, conv func(D) W) func(D, error) error {
	return func(v D, err error) error {
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, conv(v))
	}
}

// sliceOf lifts a conversion to slices (for reply).
func sliceOf[D, W any](conv func(D) W) func([]D) []W {
	return func(xs []D) []W { return convSlice(xs, conv) }
}
