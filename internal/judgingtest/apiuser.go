package judgingtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"testing"

	"boolpool/api"
)

// APIUser is a client of a running server's JSON API with a cookie jar of
// its own: tests sign users in and judge through it (faster than the UI).
type APIUser struct {
	T      testing.TB
	Base   string // the server's URL
	Client *http.Client
	CSRF   string // the session's CSRF token, once signed in
	ID     int64  // the signed-in user
}

// NewAPIUser is a client of the server at base, not signed in.
func NewAPIUser(t testing.TB, base string) *APIUser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &APIUser{T: t, Base: base, Client: &http.Client{Jar: jar}}
}

// Login signs name in at base (with Password).
func Login(t testing.TB, base, name string) *APIUser {
	t.Helper()
	u := NewAPIUser(t, base)
	var me api.Me
	if st := u.Do("POST", "/api/auth/login", api.LoginRequest{Username: name, Password: Password}, &me); st != http.StatusOK {
		t.Fatalf("login %s at %s: status %d", name, base, st)
	}
	u.CSRF, u.ID = me.CSRFToken, me.UserID
	return u
}

// Do sends in as JSON (with the CSRF token once known), decodes a 2xx
// answer into out and returns the status; a failed request ends the test.
func (u *APIUser) Do(method, path string, in, out any) int {
	u.T.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			u.T.Fatalf("%s %s: encode: %v", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u.Base+path, body)
	if err != nil {
		u.T.Fatalf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if u.CSRF != "" {
		req.Header.Set(api.CSRFHeader, u.CSRF)
	}
	res, err := u.Client.Do(req)
	if err != nil {
		u.T.Fatalf("%s %s%s: %v", method, u.Base, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			u.T.Fatalf("%s %s: decode %q: %v", method, path, data, err)
		}
	}
	return res.StatusCode
}
