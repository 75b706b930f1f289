package httpapi_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store/storetest"
)

// newLimitsEnv is an env served by the net/http server Run would serve
// (its timeouts included), with a 1 MiB upload limit, an upload directory
// of the test's own and cfg changed by mutate.
func newLimitsEnv(t *testing.T, mutate func(*config.Config)) (*env, config.Config) {
	t.Helper()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, 2)
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 64 << 10, MaxUploadBytes: 1 << 20, LoginPerMinute: 100,
		StaticDir: t.TempDir(), UploadDir: t.TempDir()}
	if mutate != nil {
		mutate(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := httpapi.New(cfg, newServices(t, cfg, st, log, 0), log)
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = h.HTTPServerForTest()
	srv.Start()
	t.Cleanup(srv.Close)
	return &env{t: t, st: st, fx: fx, srv: srv}, cfg
}

// rawRequest writes head (request line and headers, without the blank
// line) and body to a new connection and returns the status of the
// answer, or 0 when the server closed the connection without one, within
// wait.
func rawRequest(t *testing.T, e *env, head string, body func(net.Conn), wait time.Duration) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, strings.ReplaceAll(head, "\n", "\r\n")+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if body != nil {
		go body(conn)
	}
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("no answer within %s", wait)
		}
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

// cookieHeader is u's cookies for the test server, as a Cookie header.
func (u *user) cookieHeader() string {
	base, _ := url.Parse(u.e.srv.URL)
	var parts []string
	for _, c := range u.c.Jar.Cookies(base) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

// TestUploadOverLimitRefusedAtOnce: an upload whose Content-Length is
// over the limit is a 413 before its body is sent (the old server read
// and wrote the body to disk up to the limit first; here the body never
// comes, so it would not answer at all).
func TestUploadOverLimitRefusedAtOnce(t *testing.T) {
	e, cfg := newLimitsEnv(t, nil)
	r := e.login("researcher")
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "big"}, nil); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	head := fmt.Sprintf("POST /api/projects/big/imports HTTP/1.1\nHost: %s\nContent-Type: multipart/form-data; boundary=x\nContent-Length: %d\nCookie: %s\n%s: %s",
		e.srv.Listener.Addr(), 2<<20, r.cookieHeader(), api.CSRFHeader, r.csrf)
	start := time.Now()
	st, body := rawRequest(t, e, head, nil, 5*time.Second)
	if st != http.StatusRequestEntityTooLarge || !strings.Contains(body, "larger than 1048576 bytes") {
		t.Fatalf("status %d %s, want 413", st, body)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("413 after %s", d)
	}
	if ents, _ := os.ReadDir(cfg.UploadDir); len(ents) != 0 {
		t.Fatalf("upload dir holds %d entries", len(ents))
	}
}

// TestChunkedUploadOverLimitLeavesNothing: without a Content-Length the
// upload streams to disk until the limit, then is a 413 and what was
// written is gone.
func TestChunkedUploadOverLimitLeavesNothing(t *testing.T) {
	e, cfg := newLimitsEnv(t, nil)
	r := e.login("researcher")
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "big"}, nil); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		_ = mw.WriteField("format", "quest")
		w, _ := mw.CreateFormFile("files", "q.jsonl")
		line := []byte(strings.Repeat("x", 1023) + "\n")
		for i := 0; i < 3<<10; i++ { // 3 MiB
			if _, err := w.Write(line); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/api/projects/big/imports", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set(api.CSRFHeader, r.csrf)
	res, err := r.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	pr.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", res.StatusCode)
	}
	if ents, _ := os.ReadDir(cfg.UploadDir); len(ents) != 0 {
		t.Fatalf("upload dir holds %d entries after the 413", len(ents))
	}
}

// TestSlowBodyIsCut: a body trickled at one byte per 300 ms, with a
// 500 ms allowance and a minimum of 10 bytes/s after it, is cut with a
// 408 within about a second (it used to stay open as long as the client
// kept trickling).
func TestSlowBodyIsCut(t *testing.T) {
	e, _ := newLimitsEnv(t, func(c *config.Config) { c.BodyTimeout = 500 * time.Millisecond; c.BodyMinRate = 10 })
	head := fmt.Sprintf("POST /api/auth/login HTTP/1.1\nHost: %s\nContent-Type: application/json\nContent-Length: 100", e.srv.Listener.Addr())
	stop := make(chan struct{})
	defer close(stop)
	trickle := func(c net.Conn) {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
		}
	}
	start := time.Now()
	st, body := rawRequest(t, e, head, trickle, 10*time.Second)
	d := time.Since(start)
	if st != http.StatusRequestTimeout && st != 0 {
		t.Fatalf("status %d %s, want 408 or a closed connection", st, body)
	}
	if d > 3*time.Second {
		t.Fatalf("cut after %s", d)
	}
	// A body at a normal pace is unaffected.
	u := e.anon()
	var prob api.Problem
	if st := u.do("POST", "/api/auth/login", api.LoginRequest{Username: "nobody", Password: "wrong"}, &prob); st == http.StatusRequestTimeout {
		t.Fatalf("normal login: 408")
	}
}

// TestUploadBadLineAnswerIsBounded: a bad 64 KiB line is answered with a
// 400 of a few hundred bytes (the whole line used to be quoted back), and
// a line over the line limit with a 400 naming file and line.
func TestUploadBadLineAnswerIsBounded(t *testing.T) {
	e, cfg := newLimitsEnv(t, func(c *config.Config) { c.MaxLineBytes = 32 << 10 })
	r := e.login("researcher")
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "p"}, nil); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	long := strings.Repeat("<é>", 6<<10) // 30 KiB, under the line limit
	cases := map[string]string{
		"bad token":  `{"query": ` + long + "}\n",
		"long key":   `{"` + long + `": 1, "docs": []}` + "\n",
		"bad colon":  `{"` + long + `" 1}` + "\n",
		"long field": `{"query": "q", "docs": [], "metadata": {"template": {"` + long + `": 1}}}` + "\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			st, prob := r.upload("p", "quest", map[string]string{"q.jsonl": content}, []string{"q.jsonl"}, nil)
			if st != http.StatusBadRequest || !strings.HasPrefix(prob.Field, "q.jsonl:1") {
				t.Fatalf("status %d %+v", st, prob)
			}
			if n := len(prob.Detail) + len(prob.Field); n > 1500 {
				t.Fatalf("answer of %d bytes: %.300s…", n, prob.Detail)
			}
		})
	}
	over := `{"query": "` + strings.Repeat("x", 40<<10) + `", "docs": []}` + "\n"
	st, prob := r.upload("p", "quest", map[string]string{"q.jsonl": over}, []string{"q.jsonl"}, nil)
	if st != http.StatusBadRequest || prob.Field != "q.jsonl:1" || !strings.Contains(prob.Detail, "line 1 longer than 32768 bytes") {
		t.Fatalf("over-long line: status %d %+v", st, prob)
	}
	// The detail names the uploaded file, not its temporary path.
	if strings.Contains(prob.Detail, cfg.UploadDir) || strings.Count(prob.Detail, "q.jsonl") > 1 {
		t.Fatalf("over-long line: detail %q", prob.Detail)
	}
}

// TestLiveStreamOutlivesWriteTimeout: the server's write timeout (1 s
// here) does not end the dashboard's event stream: a snapshot sent well
// after it still arrives. The timeout also bounds the test's own queue and
// judgment requests, so it is not shorter: at 300 ms a task fetch on a CI
// box at load average 21 was cut (EOF).
func TestLiveStreamOutlivesWriteTimeout(t *testing.T) {
	const writeTimeout = time.Second
	e, _ := newLimitsEnv(t, func(c *config.Config) { c.WriteTimeout = writeTimeout })
	researcher := e.login("researcher")
	live := researcher.subscribe("/api/projects/fixture/live")
	first := live.until(t, "the first snapshot", func(api.LiveSnapshot) bool { return true })
	time.Sleep(writeTimeout + writeTimeout/2)
	u := e.login("annotator1")
	q := u.queue(api.KindRelevance, 1)
	if len(q.Tasks) == 0 {
		t.Fatal("no task")
	}
	req := api.JudgmentRequest{ClientID: uuid(1), ItemID: q.Tasks[0].ItemID, Kind: api.KindRelevance,
		Relevance: rel(2), Evidence: api.EvidenceComplete, TimeSpentMs: 1000, AuthorID: u.id}
	if st := u.do("POST", "/api/judgments", req, nil); st != http.StatusCreated {
		t.Fatalf("judge: %d", st)
	}
	live.until(t, "a snapshot after the judgment", func(s api.LiveSnapshot) bool { return s.Version > first.Version })

	// Other answers do have the write timeout.
	if d := e.srv.Config.WriteTimeout; d != writeTimeout {
		t.Fatalf("server write timeout %s", d)
	}
}
