package judgingtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

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

// ReadSnapshots reads a live dashboard's SSE stream from r until it ends,
// calling fn with each "snapshot" event's data (events of other names and
// data that does not parse are passed over).
func ReadSnapshots(r io.Reader, fn func(api.LiveSnapshot)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "snapshot":
			var snap api.LiveSnapshot
			if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &snap) == nil {
				fn(snap)
			}
		case line == "":
			event = ""
		}
	}
}

// D1Attributions are the atom-0 attributions the research scenarios send
// with the fixture's d1 (the annotator counted from 0): annotator1 marks
// sentence 1 as satisfying the atom, annotator3 marks sentence 0 as not,
// against her own relevant grade, so that d1 goes to the adjudication
// queue. Other documents and annotators send none.
func D1Attributions(doc string, annotator int) []api.Attribution {
	switch {
	case doc == "d1" && annotator == 0:
		return []api.Attribution{{Atom: 0, Sentences: []int{1}, Satisfied: api.SatisfiedYes}}
	case doc == "d1" && annotator == 2:
		return []api.Attribution{{Atom: 0, Sentences: []int{0}, Satisfied: api.SatisfiedNo}}
	}
	return nil
}

// WaitWasmEncoding waits until the server at base answers HEAD
// /web/app.wasm in encoding (it compresses in the background after
// start-up) and returns that encoding's size; the test fails after limit.
func WaitWasmEncoding(t testing.TB, base, encoding string, limit time.Duration) int64 {
	t.Helper()
	tr := &http.Transport{DisableCompression: true}
	deadline := time.Now().Add(limit)
	for {
		req, _ := http.NewRequest(http.MethodHead, base+"/web/app.wasm", nil)
		req.Header.Set("Accept-Encoding", encoding)
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("Content-Encoding") == encoding {
			return res.ContentLength
		}
		if time.Now().After(deadline) {
			t.Fatalf("app.wasm not in %s after %v", encoding, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
