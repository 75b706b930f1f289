package auth

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// Cookie names.
const (
	SessionCookie = "boolpool_session"
)

const sessionKey = "boolpool.session"

// SetSessionCookie writes the session cookie: HttpOnly (scripts cannot read
// it), SameSite=Lax (no cross-site POSTs), Secure behind TLS.
func (s *Service) SetSessionCookie(c echo.Context, l Login) {
	c.SetCookie(&http.Cookie{
		Name: SessionCookie, Value: l.Token, Path: "/",
		Expires: l.ExpiresAt, MaxAge: int(time.Until(l.ExpiresAt).Seconds()),
		HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteLaxMode,
	})
}

// ClearSessionCookie removes the session cookie.
func (s *Service) ClearSessionCookie(c echo.Context) {
	c.SetCookie(&http.Cookie{
		Name: SessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteLaxMode,
	})
}

// SessionToken returns the request's session token ("" if none).
func SessionToken(c echo.Context) string {
	ck, err := c.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// RequireSession rejects requests without a live session (401) and
// state-changing requests whose X-CSRF-Token header does not match the
// session's token (403).
func (s *Service) RequireSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ss, err := s.Session(c.Request().Context(), SessionToken(c))
		if err != nil {
			return err
		}
		if !safeMethod(c.Request().Method) {
			got := c.Request().Header.Get(vocab.CSRFHeader)
			if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(ss.CSRFToken)) != 1 {
				return fmt.Errorf("auth: %s header missing or wrong: %w", vocab.CSRFHeader, apperr.ErrForbidden)
			}
		}
		c.Set(sessionKey, ss)
		return next(c)
	}
}

// RequireRole lets through only users whose role is at least min (use after
// RequireSession).
func RequireRole(min string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ss, ok := CurrentSession(c)
			if !ok {
				return fmt.Errorf("auth: no session: %w", apperr.ErrUnauthorized)
			}
			if !vocab.RoleAtLeast(ss.User.Role, min) {
				return fmt.Errorf("auth: %s role required: %w", min, apperr.ErrForbidden)
			}
			return next(c)
		}
	}
}

// CurrentSession returns the session RequireSession stored on c.
func CurrentSession(c echo.Context) (store.Session, bool) {
	ss, ok := c.Get(sessionKey).(store.Session)
	return ss, ok
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// SameOrigin refuses state-changing requests whose Origin header names
// another site (browsers send it on cross-site POSTs). With SameSite=Lax
// cookies and the CSRF header this is defence in depth; it also covers the
// login form, which has no session yet.
func SameOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if origin := r.Header.Get("Origin"); origin != "" && !safeMethod(r.Method) {
			u, err := url.Parse(origin)
			if err != nil || u.Host != r.Host {
				return fmt.Errorf("auth: cross-site request from %q: %w", origin, apperr.ErrForbidden)
			}
		}
		return next(c)
	}
}

// CrowdBindCookie names the cookie that binds a participant id of project
// to this browser; it is only sent to the project's entry path.
func CrowdBindCookie(project string) string { return "boolpool_crowd_" + project }

// SetCrowdBindCookie stores the participant-binding token (HttpOnly, for
// 90 days, only on /enter/<project>).
func (s *Service) SetCrowdBindCookie(c echo.Context, project, token string) {
	c.SetCookie(&http.Cookie{
		Name: CrowdBindCookie(project), Value: token, Path: "/enter/" + project,
		MaxAge: 90 * 24 * 3600, HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteLaxMode,
	})
}

// EntryFormCookie carries the start page's form token (double submit): a
// cross-site page can neither read it nor, being SameSite=Strict, make
// the browser send it.
const EntryFormCookie = "boolpool_entry_form"

// NewEntryFormToken sets a fresh form token cookie and returns it for the
// start page's hidden field.
func (s *Service) NewEntryFormToken(c echo.Context) (string, error) {
	tok, err := randomToken()
	if err != nil {
		return "", err
	}
	c.SetCookie(&http.Cookie{
		Name: EntryFormCookie, Value: tok, Path: "/enter/", MaxAge: 3600,
		HttpOnly: true, Secure: s.opts.SecureCookies, SameSite: http.SameSiteStrictMode,
	})
	return tok, nil
}

// UseEntryForm spends a start page's form token: true the first time, false
// for a token already used (a form sent twice).
func (s *Service) UseEntryForm(ctx context.Context, formToken string) (bool, error) {
	return s.st.UseEntryForm(ctx, hashToken(formToken))
}

// CheckEntryForm reports whether the form's token matches its cookie.
func CheckEntryForm(c echo.Context, formToken string) bool {
	ck, err := c.Cookie(EntryFormCookie)
	if err != nil || ck.Value == "" || formToken == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(ck.Value), []byte(formToken)) == 1
}
