package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// Signing out must end the server's session, also when the network is down
// at that moment (issue 25: after "Sign out anyway" offline, the session
// stayed alive and the next person at a shared computer judged under the
// previous user's name). Signing out therefore first writes a pending
// sign-out marker to browser storage; every request of a Client settles
// it before anything else (GET /api/me only for the CSRF token, then POST
// /api/auth/logout) and, while it cannot, refuses to act as the signed-in
// user (a 401, so pages go to the sign-in page). The sign-in page keeps
// trying until the server confirms. The outbox is not touched: unsent
// judgments stay with their author for their next sign-in.

// pendingSignOutKey is the browser-storage key of the marker.
const pendingSignOutKey = "boolpool.signout.pending.v1"

// pendingSignOut is a sign-out the server has not confirmed yet.
type pendingSignOut struct {
	UserID   int64     `json:"user_id"` // 0: whoever the session is
	Username string    `json:"username,omitempty"`
	At       time.Time `json:"at"`
}

// markSignOut records that the user signed out in this browser.
func markSignOut(st Storage, me api.Me, now time.Time) error {
	if err := st.Set(pendingSignOutKey, pendingSignOut{UserID: me.UserID, Username: me.Username, At: now}); err != nil {
		return fmt.Errorf("sign-out: remember it: %w", err)
	}
	return nil
}

// signOutPending returns the sign-out waiting for the server, if any.
func signOutPending(st Storage) (pendingSignOut, bool) {
	if st == nil {
		return pendingSignOut{}, false
	}
	var p pendingSignOut
	if err := st.Get(pendingSignOutKey, &p); err != nil || p.At.IsZero() {
		return pendingSignOut{}, false
	}
	return p, true
}

// errSignOutPending is what a request answers while the user's sign-out
// waits for the network: the page treats it as signed out.
func errSignOutPending(cause error) error {
	return &APIError{Status: http.StatusUnauthorized, Problem: api.Problem{
		Title:  "Signed out",
		Detail: "You signed out in this browser; the server session ends as soon as the network is back (" + cause.Error() + ")",
	}}
}

// SettleSignOut ends the server session of a pending sign-out: nil when
// there is none (any more), else why it could not (the network). A session
// that is already gone, or another user's (signed in since), settles it
// without a logout.
func (c *Client) SettleSignOut(ctx context.Context) error {
	p, ok := signOutPending(c.st)
	if !ok {
		return nil
	}
	var me api.Me
	err := c.roundTrip(ctx, http.MethodGet, "/api/me", nil, &me)
	switch {
	case StatusOf(err) == http.StatusUnauthorized:
		c.st.Del(pendingSignOutKey)
		c.setCSRF("")
		return nil
	case err != nil:
		return err
	case p.UserID != 0 && me.UserID != p.UserID:
		c.st.Del(pendingSignOutKey)
		return nil
	}
	// The token is the one the logout needs; it is not kept for anything
	// else (the user is signing out).
	c.setCSRF(me.CSRFToken)
	err = c.roundTrip(ctx, http.MethodPost, "/api/auth/logout", nil, nil)
	c.setCSRF("")
	if err != nil && StatusOf(err) != http.StatusUnauthorized {
		return err
	}
	c.st.Del(pendingSignOutKey)
	return nil
}

// browserStorage is window.localStorage holding JSON values, for the code
// that runs without a go-app context (the Client).
type browserStorage struct{}

func (browserStorage) Set(k string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("storage %s: %w", k, err)
	}
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return fmt.Errorf("storage %s: no localStorage", k)
	}
	ls.Call("setItem", k, string(b))
	return nil
}

func (browserStorage) Get(k string, v any) error {
	ls := app.Window().Get("localStorage")
	if !ls.Truthy() {
		return fmt.Errorf("storage %s: no localStorage", k)
	}
	item := ls.Call("getItem", k)
	if !item.Truthy() {
		return fmt.Errorf("storage %s: not set", k)
	}
	if err := json.Unmarshal([]byte(item.String()), v); err != nil {
		return fmt.Errorf("storage %s: %w", k, err)
	}
	return nil
}

func (browserStorage) Del(k string) {
	if ls := app.Window().Get("localStorage"); ls.Truthy() {
		ls.Call("removeItem", k)
	}
}
