package httpapi_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"boolpool/server/config"
)

// Issue 29 item 5: every answer carries a Content-Security-Policy that
// go-app's page works with (web/e2e checks that no page trips it), and
// the pages it serves have no inline scripts the policy would block.
func TestContentSecurityPolicy(t *testing.T) {
	e := newEnv(t, 2, nil)
	cs := e.enableCrowd(0)
	scriptTag := regexp.MustCompile(`(?i)<script[^>]*>`)
	for _, path := range []string{"/login", "/judge/fixture", cs.EntryPath + "&participant=p1", "/api/me", "/app.js"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		csp := res.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval';", "frame-ancestors 'none'", "object-src 'none'", "form-action 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: Content-Security-Policy %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "'unsafe-eval'") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
			t.Errorf("%s: the policy allows eval or inline scripts: %q", path, csp)
		}
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			for _, tag := range scriptTag.FindAllString(string(body), -1) {
				if !strings.Contains(tag, "src=") {
					t.Errorf("%s: inline script %s would be blocked", path, tag)
				}
			}
		}
	}
}

// Issue 29 item 5: with -allowed-hosts, a request for another Host is
// refused (421) before anything else; the probes answer any Host.
func TestAllowedHosts(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.AllowedHosts = []string{"judge.example.org", "10.0.0.5:8080"} })
	get := func(host, path string) int {
		req, _ := http.NewRequest("GET", e.srv.URL+path, nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		host, path string
		want       int
	}{
		{"judge.example.org", "/login", 200},
		{"Judge.Example.org:443", "/login", 200}, // a host entry: any port
		{"10.0.0.5:8080", "/login", 200},
		{"10.0.0.5:9090", "/login", 421}, // a host:port entry: that port only
		{"evil.example", "/login", 421},
		{"evil.example", "/api/me", 421},
		{strings.TrimPrefix(e.srv.URL, "http://"), "/login", 421},
		{"evil.example", "/healthz", 200},
	} {
		if got := get(tc.host, tc.path); got != tc.want {
			t.Errorf("Host %s %s: %d, want %d", tc.host, tc.path, got, tc.want)
		}
	}
	// Without the option every Host is answered.
	open := newEnv(t, 2, nil)
	req, _ := http.NewRequest("GET", open.srv.URL+"/login", nil)
	req.Host = "anything.example"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("no allow-list, any Host: %d", res.StatusCode)
	}
}
