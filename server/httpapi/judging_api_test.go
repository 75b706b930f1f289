package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/app"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

type env struct {
	t   *testing.T
	st  *store.Store
	fx  *judgingtest.Fixture
	srv *httptest.Server
	app *app.App
}

func newEnv(t *testing.T, raters int, mutate func(*config.Config)) *env {
	t.Helper()
	st := storetest.New(t)
	fx := judgingtest.New(t, st, raters)
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 64 << 10, LoginPerMinute: 100, StaticDir: t.TempDir()}
	if mutate != nil {
		mutate(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	a := newApp(t, cfg, st, log, 0)
	srv := httptest.NewServer(httpapi.New(cfg, a.Services, log).Handler())
	t.Cleanup(srv.Close)
	return &env{t: t, st: st, fx: fx, srv: srv, app: a}
}

// user is one signed-in browser.
type user struct {
	e    *env
	c    *http.Client
	csrf string
	id   int64 // the signed-in user's id (0 when anonymous)
}

func (e *env) anon() *user {
	jar, _ := cookiejar.New(nil)
	return &user{e: e, c: &http.Client{Jar: jar}}
}

func (e *env) login(name string) *user {
	e.t.Helper()
	u := e.anon()
	var me api.Me
	if st := u.do("POST", "/api/auth/login", api.LoginRequest{Username: name, Password: judgingtest.Password}, &me); st != 200 {
		e.t.Fatalf("login %s: status %d", name, st)
	}
	u.csrf, u.id = me.CSRFToken, me.UserID
	return u
}

// do sends a JSON request (with the CSRF header when known) and decodes
// the answer into out; it returns the status.
func (u *user) do(method, path string, in, out any) int {
	u.e.t.Helper()
	var body io.Reader
	if raw, ok := in.(string); ok {
		body = strings.NewReader(raw)
	} else if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, u.e.srv.URL+path, body)
	req.Header.Set("Content-Type", "application/json")
	if u.csrf != "" {
		req.Header.Set(api.CSRFHeader, u.csrf)
	}
	res, err := u.c.Do(req)
	if err != nil {
		u.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil && res.StatusCode < 300 {
			u.e.t.Fatalf("%s %s: decode %q: %v", method, path, data, err)
		}
	}
	return res.StatusCode
}

func (u *user) queue(kind string, n int) api.Queue {
	u.e.t.Helper()
	var q api.Queue
	if st := u.do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: kind, N: n}, &q); st != 200 {
		u.e.t.Fatalf("queue: status %d", st)
	}
	return q
}

// eachRelevanceTask asks for relevance tasks five at a time until the
// queue is empty, handing each to judge (which must judge it, or the
// queue never empties).
func (u *user) eachRelevanceTask(judge func(api.Task)) {
	u.e.t.Helper()
	for {
		q := u.queue(api.KindRelevance, 5)
		if len(q.Tasks) == 0 {
			return
		}
		for _, task := range q.Tasks {
			judge(task)
		}
	}
}

func rel(n int) *int { return &n }

func uuid(n int) string {
	return "00000000-0000-4000-8000-" + strings.Repeat("0", 12-len(itoa(n))) + itoa(n)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestAuth(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.LoginPerMinute = 5 })
	anon := e.anon()
	if st := anon.do("GET", "/api/me", nil, nil); st != 401 {
		t.Errorf("me without session: %d, want 401", st)
	}
	var p api.Problem
	if st := anon.do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1", Password: "wrong password"}, &p); st != 401 {
		t.Errorf("wrong password: %d, want 401", st)
	}
	if st := anon.do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1"}, &p); st != 400 || p.Field != "password" {
		t.Errorf("missing password: %d %+v, want 400 on password", st, p)
	}
	u := e.login("annotator1")
	var me api.Me
	if st := u.do("GET", "/api/me", nil, &me); st != 200 || me.Role != api.RoleAnnotator || len(me.Projects) != 1 {
		t.Fatalf("me: %d %+v", st, me)
	}
	// The cookie is HttpOnly and SameSite=Lax.
	res, _ := http.Post(e.srv.URL+"/api/auth/login", "application/json", strings.NewReader(`{"username":"admin","password":"`+judgingtest.Password+`"}`))
	ck := res.Header.Get("Set-Cookie")
	res.Body.Close()
	if !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Lax") {
		t.Errorf("cookie %q lacks HttpOnly or SameSite=Lax", ck)
	}
	// CSRF: a state-changing request without the header is refused.
	noCSRF := *u
	noCSRF.csrf = ""
	if st := noCSRF.do("POST", "/api/projects/fixture/queue", api.QueueRequest{}, nil); st != 403 {
		t.Errorf("queue without CSRF header: %d, want 403", st)
	}
	noCSRF.csrf = "forged"
	if st := noCSRF.do("POST", "/api/projects/fixture/queue", api.QueueRequest{}, nil); st != 403 {
		t.Errorf("queue with a wrong CSRF token: %d, want 403", st)
	}
	// Cross-site requests are refused even with a valid token.
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/projects/fixture/queue", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set(api.CSRFHeader, u.csrf)
	if res, err := u.c.Do(req); err != nil || res.StatusCode != 403 {
		t.Errorf("cross-origin POST: %v %v, want 403", res.StatusCode, err)
	}
	// Logout ends the session.
	if st := u.do("POST", "/api/auth/logout", nil, nil); st != 204 {
		t.Errorf("logout: %d", st)
	}
	if st := u.do("GET", "/api/me", nil, nil); st != 401 {
		t.Errorf("me after logout: %d, want 401", st)
	}
	// Expired sessions are refused.
	v := e.login("annotator2")
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE sessions SET expires_at = now() - interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	if st := v.do("GET", "/api/me", nil, nil); st != 401 {
		t.Errorf("me with expired session: %d, want 401", st)
	}
	// Rate limit: 5 per minute per address, some already used above.
	got429 := false
	for i := 0; i < 6; i++ {
		if st := anon.do("POST", "/api/auth/login", api.LoginRequest{Username: "x", Password: "y"}, nil); st == 429 {
			got429 = true
		}
	}
	if !got429 {
		t.Error("login rate limit never answered 429")
	}
}

func TestRoles(t *testing.T) {
	e := newEnv(t, 2, nil)
	tests := []struct {
		user, method, path string
		want               int
	}{
		{"annotator1", "GET", "/api/projects/fixture/stats", 403},
		{"annotator1", "GET", "/api/admin/users", 403},
		{"annotator1", "POST", "/api/admin/users", 403},
		{"researcher", "GET", "/api/projects/fixture/stats", 200},
		{"researcher", "GET", "/api/admin/users", 403},
		{"admin", "GET", "/api/projects/fixture/stats", 200},
		{"admin", "GET", "/api/admin/users", 200},
		{"outsider", "POST", "/api/projects/fixture/queue", 403},
		{"outsider", "GET", "/api/projects/fixture/instructions", 403},
		{"annotator1", "GET", "/api/projects/nope/instructions", 404},
		{"annotator1", "GET", "/api/nothing-here", 404},
	}
	for _, tc := range tests {
		u := e.login(tc.user)
		var body any
		if tc.method == "POST" {
			body = map[string]any{}
		}
		if st := u.do(tc.method, tc.path, body, nil); st != tc.want {
			t.Errorf("%s %s %s: %d, want %d", tc.user, tc.method, tc.path, st, tc.want)
		}
	}
	admin := e.login("admin")
	var created api.UserView
	if st := admin.do("POST", "/api/admin/users", api.NewUserRequest{Username: "newbie", Role: "annotator", Password: "long enough", Project: "fixture"}, &created); st != 201 {
		t.Fatalf("create user: %d", st)
	}
	var p api.Problem
	if st := admin.do("POST", "/api/admin/users", api.NewUserRequest{Username: "x", Role: "boss", Password: "long enough"}, &p); st != 400 || p.Field != "role" {
		t.Errorf("bad role: %d %+v", st, p)
	}
	if st := admin.do("POST", "/api/admin/users", api.NewUserRequest{Username: "newbie", Role: "annotator", Password: "long enough"}, nil); st != 409 {
		t.Errorf("duplicate user: %d, want 409", st)
	}
	nb := e.anon()
	if st := nb.do("POST", "/api/auth/login", api.LoginRequest{Username: "newbie", Password: "long enough"}, nil); st != 200 {
		t.Errorf("new account cannot sign in: %d", st)
	}
}

func TestAssignmentAndJudging(t *testing.T) {
	e := newEnv(t, 2, nil)
	a1, a2, a3 := e.login("annotator1"), e.login("annotator2"), e.login("annotator3")

	q1 := a1.queue("relevance", 5)
	if len(q1.Tasks) != 5 || q1.Progress.Leased != 5 {
		t.Fatalf("annotator1 leased %d tasks, progress %+v", len(q1.Tasks), q1.Progress)
	}
	first := q1.Tasks[0]
	if first.Document == nil || len(first.Document.Sentences) != 3 || len(first.Query.Atoms) != 2 || !first.Query.Atoms[1].Negated {
		t.Fatalf("task view: %+v", first)
	}
	// Asking again returns the same live leases, not new items.
	if again := a1.queue("relevance", 2); again.Tasks[0].ItemID != first.ItemID {
		t.Errorf("re-queue returned item %d, want the live lease %d", again.Tasks[0].ItemID, first.ItemID)
	}
	// Another annotator cannot open or judge it.
	if st := a2.do("GET", "/api/items/"+itoa(int(first.ItemID)), nil, nil); st != 403 {
		t.Errorf("annotator2 opening annotator1's item: %d, want 403", st)
	}
	req := api.JudgmentRequest{ClientID: uuid(1), AuthorID: a1.id, ItemID: first.ItemID, Kind: "relevance", Relevance: rel(3), Evidence: "complete",
		Attributions: []api.Attribution{{Atom: 0, Sentences: []int{1, 1}, Satisfied: "yes"}, {Atom: 1, Sentences: []int{2}, Satisfied: "yes"}}}
	their := req
	their.AuthorID = a2.id
	if st := a2.do("POST", "/api/judgments", their, nil); st != 403 {
		t.Errorf("annotator2 judging annotator1's item: %d, want 403", st)
	}
	// Judging is idempotent on client_id.
	var r1, r2 api.JudgmentResponse
	if st := a1.do("POST", "/api/judgments", req, &r1); st != 201 || r1.Duplicate {
		t.Fatalf("submit: %d %+v", st, r1)
	}
	if st := a1.do("POST", "/api/judgments", req, &r2); st != 200 || !r2.Duplicate || r2.ID != r1.ID {
		t.Fatalf("retry: %d %+v, want the stored %d", st, r2, r1.ID)
	}
	if n, _ := e.st.CountJudgmentsByClient(context.Background(), uuid(1)); n != 1 {
		t.Errorf("client id stored %d times, want 1", n)
	}
	// A AND NOT B with B labelled as holding, graded relevant: contradiction.
	if !r1.Contradiction {
		t.Error("contradiction not flagged")
	}
	js, _ := e.st.JudgmentsByItem(context.Background(), first.ItemID)
	var attrs []api.Attribution
	_ = json.Unmarshal(js[0].Attributions, &attrs)
	if len(attrs) != 2 || len(attrs[0].Sentences) != 1 || attrs[0].Counter || !attrs[1].Counter {
		t.Errorf("stored attributions %+v: want deduplicated sentences, counter-evidence on the negated atom", attrs)
	}
	// A correction supersedes instead of overwriting.
	fix := req
	fix.ClientID = uuid(2)
	fix.Attributions = []api.Attribution{req.Attributions[0], {Atom: 1, Sentences: []int{2}, Satisfied: "no"}}
	var r3 api.JudgmentResponse
	if st := a1.do("POST", "/api/judgments", fix, &r3); st != 201 || r3.Supersedes == nil || *r3.Supersedes != r1.ID || r3.Contradiction {
		t.Errorf("correction: %d %+v, want supersedes %d and no contradiction", st, r3, r1.ID)
	}
	// A judged item never comes back to the same rater.
	for _, tk := range a1.queue("relevance", 5).Tasks {
		if tk.ItemID == first.ItemID {
			t.Error("judged item leased again to the same rater")
		}
	}
	// r = 2: annotator2 takes the rest; annotator3 finds only what is below r.
	q2 := a2.queue("relevance", 5)
	q3 := a3.queue("relevance", 5)
	count := map[int64]int{}
	for _, q := range []api.Queue{a1.queue("relevance", 5), q2, q3} {
		for _, tk := range q.Tasks {
			count[tk.ItemID]++
		}
	}
	count[first.ItemID]++ // judged by annotator1
	for id, n := range count {
		if n > 2 {
			t.Errorf("item %d has %d raters, r = 2", id, n)
		}
	}
	if len(q3.Tasks) != 1 {
		t.Errorf("annotator3 got %d tasks, want the 1 slot left (6 items x 2 raters - 6 - 5)", len(q3.Tasks))
	}
	// Expired leases return to the pool.
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE assignments SET lease_expires_at = now() - interval '1 second'
		WHERE user_id = $1 AND status = 'leased'`, e.fx.Users["annotator2"].ID); err != nil {
		t.Fatal(err)
	}
	if q := a3.queue("relevance", 5); len(q.Tasks) != 5 {
		t.Errorf("after annotator2's leases expired annotator3 has %d tasks, want 5", len(q.Tasks))
	}
	// A late judgment on an expired lease is still accepted (never lose work).
	late := api.JudgmentRequest{ClientID: uuid(3), AuthorID: a2.id, ItemID: q2.Tasks[0].ItemID, Kind: "relevance", Relevance: rel(0), Evidence: "none"}
	if st := a2.do("POST", "/api/judgments", late, nil); st != 201 {
		t.Errorf("late judgment: %d, want 201", st)
	}
}

func TestJudgmentValidation(t *testing.T) {
	e := newEnv(t, 2, nil)
	a1 := e.login("annotator1")
	item := a1.queue("relevance", 1).Tasks[0].ItemID
	good := func() api.JudgmentRequest {
		return api.JudgmentRequest{ClientID: uuid(9), AuthorID: a1.id, ItemID: item, Kind: "relevance", Relevance: rel(2), Evidence: "partial"}
	}
	tests := []struct {
		name  string
		body  any
		field string
	}{
		{"bad uuid", func() api.JudgmentRequest { r := good(); r.ClientID = "abc"; return r }(), "client_id"},
		{"no author", func() api.JudgmentRequest { r := good(); r.AuthorID = 0; return r }(), "author_id"},
		{"no item", func() api.JudgmentRequest { r := good(); r.ItemID = 0; return r }(), "item_id"},
		{"kind", func() api.JudgmentRequest { r := good(); r.Kind = "paraphrase"; return r }(), "kind"},
		{"relevance missing", func() api.JudgmentRequest { r := good(); r.Relevance = nil; return r }(), "relevance"},
		{"relevance range", func() api.JudgmentRequest { r := good(); r.Relevance = rel(4); return r }(), "relevance"},
		{"evidence", func() api.JudgmentRequest { r := good(); r.Evidence = "lots"; return r }(), "evidence"},
		{"atom range", func() api.JudgmentRequest {
			r := good()
			r.Attributions = []api.Attribution{{Atom: 5}}
			return r
		}(), "attributions[0].atom"},
		{"sentence range", func() api.JudgmentRequest {
			r := good()
			r.Attributions = []api.Attribution{{Atom: 0, Sentences: []int{99}}}
			return r
		}(), "attributions[0].sentences"},
		{"satisfied", func() api.JudgmentRequest {
			r := good()
			r.Attributions = []api.Attribution{{Atom: 0, Satisfied: "maybe"}}
			return r
		}(), "attributions[0].satisfied"},
		{"negative time", func() api.JudgmentRequest { r := good(); r.TimeSpentMs = -1; return r }(), "time_spent_ms"},
		{"unknown field", `{"client_id":"` + uuid(9) + `","bogus":1}`, "bogus"},
		{"wrong type", `{"item_id":"seven"}`, "item_id"},
		{"malformed", `{"item_id":`, "body"},
		{"empty", ``, "body"},
	}
	for _, tc := range tests {
		var p api.Problem
		if st := a1.do("POST", "/api/judgments", tc.body, &p); st != 400 || p.Field != tc.field {
			t.Errorf("%s: %d %+v, want 400 naming %q", tc.name, st, p, tc.field)
		}
	}
	// Oversized bodies are refused before decoding.
	big := `{"comment":"` + strings.Repeat("x", 70<<10) + `"}`
	if st := a1.do("POST", "/api/judgments", big, nil); st != 413 {
		t.Errorf("oversized body: %d, want 413", st)
	}
	var q api.Queue
	if st := a1.do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: "nonsense"}, &q); st != 400 {
		t.Errorf("bad kind: %d", st)
	}
}

func TestParaphraseAndValidation(t *testing.T) {
	e := newEnv(t, 2, nil)
	a1 := e.login("annotator1")
	pq := a1.queue("paraphrase", 1)
	if len(pq.Tasks) != 1 || pq.Tasks[0].Kind != "paraphrase" {
		t.Fatalf("paraphrase queue: %+v", pq)
	}
	var p api.Problem
	empty := api.JudgmentRequest{ClientID: uuid(20), AuthorID: a1.id, ItemID: pq.Tasks[0].ItemID, Kind: "paraphrase", Paraphrase: &api.ParaphraseAnswer{}}
	if st := a1.do("POST", "/api/judgments", empty, &p); st != 400 || p.Field != "paraphrase.text" {
		t.Errorf("empty paraphrase: %d %+v", st, p)
	}
	ok := empty
	ok.Paraphrase = &api.ParaphraseAnswer{Text: "Which birds live in the Venezuelan Andes but not in Colombia?"}
	if st := a1.do("POST", "/api/judgments", ok, nil); st != 201 {
		t.Fatalf("paraphrase: %d", st)
	}
	// The author never validates their own paraphrase.
	if q := a1.queue("validation", 5); len(q.Tasks) != 0 {
		t.Errorf("author got %d validation tasks of their own paraphrase", len(q.Tasks))
	}
	votes := []api.ValidationAnswer{
		{Fluent: "yes", Meaning: "same", Naturalness: "yes"},
		{Fluent: "yes", Meaning: "different", Naturalness: "maybe"},
		{Fluent: "no", Meaning: "same", Naturalness: "maybe"},
	}
	var itemID int64
	for i, name := range []string{"annotator2", "annotator3", "annotator4"} {
		u := e.login(name)
		q := u.queue("validation", 1)
		if len(q.Tasks) != 1 || !strings.Contains(q.Tasks[0].Paraphrase, "Venezuelan Andes") {
			t.Fatalf("%s validation queue: %+v", name, q)
		}
		itemID = q.Tasks[0].ItemID
		v := votes[i]
		if st := u.do("POST", "/api/judgments", api.JudgmentRequest{ClientID: uuid(30 + i), AuthorID: u.id, ItemID: itemID, Kind: "validation", Validation: &v}, nil); st != 201 {
			t.Fatalf("validation by %s: %d", name, st)
		}
		if i < 2 {
			if _, err := e.st.ValidationVerdictFor(context.Background(), itemID); err == nil {
				t.Errorf("verdict exists after %d validations", i+1)
			}
		}
	}
	v, err := e.st.ValidationVerdictFor(context.Background(), itemID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Fluent != "yes" || v.Meaning != "same" || v.Naturalness != "maybe" || v.Votes != 3 || !v.Accepted {
		t.Errorf("verdict %+v, want yes/same/maybe accepted", v)
	}
	// Three validations fill the item: a fourth rater gets none.
	if q := e.login("admin").queue("validation", 5); len(q.Tasks) != 0 {
		t.Errorf("a fourth validator got %d tasks", len(q.Tasks))
	}
}

func TestWasmServing(t *testing.T) {
	dir := t.TempDir()
	wasm := bytes.Repeat([]byte("\x00asm boolpool "), 4096)
	if err := os.WriteFile(filepath.Join(dir, "app.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "boolpool.css"), []byte("body{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 2, func(c *config.Config) { c.StaticDir = dir })
	tests := []struct {
		accept, wantEnc string
	}{
		{"gzip, deflate, br", "br"},
		{"gzip", "gzip"},
		{"br;q=0, gzip", "gzip"},
		{"", ""},
	}
	tr := &http.Transport{DisableCompression: true}
	var etag string
	// Compression runs in the background after start-up; wait for brotli.
	judgingtest.WaitWasmEncoding(t, e.srv.URL, "br", 10*time.Second)
	for _, tc := range tests {
		req, _ := http.NewRequest("GET", e.srv.URL+"/web/app.wasm", nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		res, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		h := res.Header
		if res.StatusCode != 200 || h.Get("Content-Type") != "application/wasm" || h.Get("Content-Encoding") != tc.wantEnc ||
			h.Get("Vary") != "Accept-Encoding" || h.Get("Cache-Control") != "no-cache" || h.Get("ETag") == "" {
			t.Errorf("Accept-Encoding %q: %d %v", tc.accept, res.StatusCode, h)
		}
		if tc.wantEnc == "" && !bytes.Equal(body, wasm) {
			t.Error("identity body differs")
		}
		if tc.wantEnc != "" && len(body) >= len(wasm) {
			t.Errorf("%s body not compressed: %d bytes", tc.wantEnc, len(body))
		}
		etag = h.Get("ETag")
	}
	req, _ := http.NewRequest("GET", e.srv.URL+"/web/app.wasm", nil)
	req.Header.Set("If-None-Match", etag)
	res, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 304 {
		t.Errorf("revalidation: %d, want 304", res.StatusCode)
	}
	res, err = http.Get(e.srv.URL + "/web/boolpool.css")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") {
		t.Errorf("css: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Pages are prerendered by go-app.
	res, err = http.Get(e.srv.URL + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("X-Frame-Options") != "DENY" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("security headers missing: %v", res.Header)
	}
	if res.StatusCode != 200 || !bytes.Contains(page, []byte(`id="login-form"`)) {
		t.Errorf("login page: %d, prerendered form missing", res.StatusCode)
	}
}

// Issue 25: an annotator in two projects gets both from GET
// /api/me/projects with their progress; nobody sees others' projects.
func TestMyProjects(t *testing.T) {
	e := newEnv(t, 1, nil)
	if _, err := judgingtest.AddOtherProjectItems(context.Background(), e.st, e.fx, "annotator1", 2); err != nil {
		t.Fatal(err)
	}
	if st := e.anon().do("GET", "/api/me/projects", nil, nil); st != 401 {
		t.Errorf("anonymous GET /api/me/projects: %d, want 401", st)
	}
	u := e.login("annotator1")
	u.queue(api.KindRelevance, 1)
	get := func(u *user) map[string]map[string]api.Progress {
		t.Helper()
		var out api.MyProjects
		if st := u.do("GET", "/api/me/projects", nil, &out); st != 200 {
			t.Fatalf("GET /api/me/projects: %d", st)
		}
		m := map[string]map[string]api.Progress{}
		for _, p := range out.Projects {
			m[p.Name] = map[string]api.Progress{}
			for _, k := range p.Kinds {
				m[p.Name][k.Kind] = k.Progress
			}
		}
		return m
	}
	got := get(u)
	if len(got) != 2 || got["fixture"] == nil || got["fixture-other"] == nil {
		t.Fatalf("annotator1's projects: %v, want fixture and fixture-other", got)
	}
	if p := got["fixture"][api.KindRelevance]; p.Total() != 6 || p.Leased != 1 || p.Done != 0 {
		t.Errorf("fixture relevance: %+v, want 1 leased of 6", p)
	}
	if _, ok := got["fixture"][api.KindParaphrase]; !ok {
		t.Errorf("fixture's paraphrase items are not listed: %v", got["fixture"])
	}
	if p := got["fixture-other"][api.KindRelevance]; p.Total() != 2 || p.Done != 0 || len(got["fixture-other"]) != 1 {
		t.Errorf("fixture-other: %v, want relevance only, 0 of 2", got["fixture-other"])
	}
	// Judging in the other project counts there.
	var q api.Queue
	if st := u.do("POST", "/api/projects/fixture-other/queue", api.QueueRequest{Kind: api.KindRelevance, N: 1}, &q); st != 200 || len(q.Tasks) != 1 {
		t.Fatalf("queue in fixture-other: %d %+v", st, q)
	}
	req := api.JudgmentRequest{ClientID: uuid(1), AuthorID: u.id, ItemID: q.Tasks[0].ItemID, Kind: api.KindRelevance, Relevance: rel(2), Evidence: api.EvidencePartial}
	if st := u.do("POST", "/api/judgments", req, nil); st != 200 && st != 201 {
		t.Fatalf("judge in fixture-other: %d", st)
	}
	if p := get(u)["fixture-other"][api.KindRelevance]; p.Done != 1 || p.Total() != 2 {
		t.Errorf("fixture-other after one judgment: %+v, want 1 done of 2", p)
	}
	// The outsider sees their own project only.
	if got := get(e.login("outsider")); len(got) != 1 || got["fixture-other"] == nil {
		t.Errorf("the outsider's projects: %v, want fixture-other only", got)
	}
}
