package httpapi_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// enableCrowd turns crowd entry on for the fixture project (as its
// researcher) and returns the entry path with its key.
func (e *env) enableCrowd(max int) api.CrowdSettings {
	e.t.Helper()
	r := e.login("researcher")
	on := true
	var cs api.CrowdSettings
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{Enabled: &on, MaxParticipants: &max}, &cs); st != 200 || cs.EntryPath == "" {
		e.t.Fatalf("enable crowd: %d %+v", st, cs)
	}
	return cs
}

var formField = regexp.MustCompile(`name="form" value="([^"]+)"`)

// get fetches a page without following redirects; it returns the status
// and body.
func (u *user) page(path string) (int, string) {
	u.e.t.Helper()
	u.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := u.c.Get(u.e.srv.URL + path)
	if err != nil {
		u.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// postForm posts an entry form; it returns the status and Location.
func (u *user) postForm(path string, form url.Values) (int, string, string) {
	u.e.t.Helper()
	u.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := u.c.PostForm(u.e.srv.URL+path, form)
	if err != nil {
		u.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

// enter runs the start page and its form for participant; extra form
// fields (e.g. replace) are added. It returns the POST's status and body.
func (u *user) enter(entryPath, participant string, extra url.Values) (int, string) {
	u.e.t.Helper()
	st, page := u.page(entryPath + "&participant=" + url.QueryEscape(participant))
	if st != 200 {
		return st, page
	}
	m := formField.FindStringSubmatch(page)
	if m == nil {
		u.e.t.Fatalf("start page has no form token: %s", page)
	}
	key := mustQuery(u.e.t, entryPath).Get("key")
	form := url.Values{"key": {key}, "participant": {participant}, "form": {m[1]}}
	for k, v := range extra {
		form[k] = v
	}
	st, loc, body := u.postForm(strings.SplitN(entryPath, "?", 2)[0], form)
	if st == 303 && loc != "/judge/fixture" {
		u.e.t.Fatalf("entry redirects to %q", loc)
	}
	if st == 303 {
		var me api.Me
		if s := u.do("GET", "/api/me", nil, &me); s != 200 {
			u.e.t.Fatalf("me after entry: %d", s)
		}
		u.csrf, u.id = me.CSRFToken, me.UserID
	}
	return st, body
}

func mustQuery(t *testing.T, path string) url.Values {
	t.Helper()
	u, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func (u *user) me() api.Me {
	u.e.t.Helper()
	var me api.Me
	if st := u.do("GET", "/api/me", nil, &me); st != 200 {
		u.e.t.Fatalf("me: %d", st)
	}
	return me
}

func crowdUsers(t *testing.T, e *env) int {
	t.Helper()
	var n int
	if err := e.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM users WHERE external_id IS NOT NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Defect 1: entry is off by default, needs the project's key, and unknown
// projects, projects with entry off and wrong keys answer alike.
func TestCrowdEntryNeedsEnabledProjectAndKey(t *testing.T) {
	e := newEnv(t, 2, nil)
	a := e.anon()
	stOff, bodyOff := a.page("/enter/fixture?participant=p1")
	stUnknown, bodyUnknown := a.page("/enter/no-such-project?participant=p1")
	if stOff != 404 || stUnknown != 404 || bodyOff != bodyUnknown {
		t.Errorf("entry off %d vs unknown project %d: must be the same 404 page\n%s\n%s", stOff, stUnknown, bodyOff, bodyUnknown)
	}
	// A POST without the key makes nothing either.
	if st, _, _ := a.postForm("/enter/fixture", url.Values{"participant": {"p1"}}); st < 400 || st >= 500 {
		t.Errorf("POST entry while off: %d", st)
	}
	cs := e.enableCrowd(0)
	if st, _ := a.page("/enter/fixture?key=wrong&participant=p1"); st != 404 {
		t.Errorf("wrong key: %d, want 404", st)
	}
	if st, body := a.page(cs.EntryPath + "&participant=p1"); st != 200 || !strings.Contains(body, `id="enter-form"`) {
		t.Fatalf("start page: %d %s", st, body)
	}
	if n := crowdUsers(t, e); n != 0 {
		t.Errorf("the start page (a GET) created %d accounts", n)
	}
	if st, _ := a.enter(cs.EntryPath, "p1", nil); st != 303 {
		t.Fatalf("entry: %d", st)
	}
	if me := a.me(); me.Role != api.RoleAnnotator || len(me.Projects) != 1 || me.Projects[0] != "fixture" {
		t.Errorf("crowd me: %+v", me)
	}
	// Rotation: the old link stops working at once.
	r := e.login("researcher")
	var rotated api.CrowdSettings
	if st := r.do("POST", "/api/projects/fixture/crowd/rotate", nil, &rotated); st != 200 || rotated.EntryPath == cs.EntryPath {
		t.Fatalf("rotate: %d %+v", st, rotated)
	}
	if st, _ := e.anon().page(cs.EntryPath + "&participant=p2"); st != 404 {
		t.Errorf("old link after rotation: %d, want 404", st)
	}
	// Turning entry off closes the link; annotators cannot change it.
	off := false
	if st := e.login("annotator1").do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{Enabled: &off}, nil); st != 403 {
		t.Errorf("annotator changes crowd settings: %d, want 403", st)
	}
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{Enabled: &off}, nil); st != 200 {
		t.Fatalf("disable: %d", st)
	}
	if st, _ := e.anon().page(rotated.EntryPath + "&participant=p2"); st != 404 {
		t.Errorf("link after disabling: %d, want 404", st)
	}
	// A password login of a crowd account never works.
	if st := e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: store.CrowdUsername(e.fx.Project.ID, "p1"), Password: "anything at all"}, nil); st != 401 {
		t.Errorf("password login of a crowd account: %d, want 401", st)
	}
}

// Defect 2: a participant id is bound to the browser that first used it.
func TestCrowdParticipantIDIsNotALogin(t *testing.T) {
	e := newEnv(t, 2, nil)
	cs := e.enableCrowd(0)
	owner := e.anon()
	if st, _ := owner.enter(cs.EntryPath, "alice", nil); st != 303 {
		t.Fatalf("first entry: %d", st)
	}
	id := owner.me().UserID
	// The same browser comes back: same account.
	if st, _ := owner.enter(cs.EntryPath, "alice", nil); st != 303 || owner.me().UserID != id {
		t.Errorf("re-entry from the same browser: %d", st)
	}
	// Someone else types alice's id.
	thief := e.anon()
	st, body := thief.enter(cs.EntryPath, "alice", nil)
	if st != 403 || !strings.Contains(body, "another browser") {
		t.Errorf("entry with another's participant id: %d %s", st, body)
	}
	if got := thief.do("GET", "/api/me", nil, nil); got != 401 {
		t.Errorf("the thief has a session: /api/me %d", got)
	}
}

// Defect 3: entry is a POST from a start page, and a signed-in staff
// session is only replaced after an explicit confirmation.
func TestCrowdEntryNeverReplacesStaffSessionSilently(t *testing.T) {
	e := newEnv(t, 2, nil)
	cs := e.enableCrowd(0)
	r := e.login("researcher")
	// Following the link (GET) changes nothing.
	if st, body := r.page(cs.EntryPath + "&participant=p9"); st != 200 || !strings.Contains(body, "signed in as <strong>researcher</strong>") {
		t.Fatalf("start page for a signed-in researcher: %d %s", st, body)
	}
	if me := r.me(); me.Username != "researcher" {
		t.Fatalf("GET of the link changed the session to %q", me.Username)
	}
	// Submitting without the confirmation changes nothing either.
	if st, _ := r.enter(cs.EntryPath, "p9", nil); st != 409 {
		t.Errorf("entry without confirming: %d, want 409", st)
	}
	if me := r.me(); me.Username != "researcher" {
		t.Fatalf("unconfirmed entry replaced the session with %q", me.Username)
	}
	// A form without its token (another site's form) is refused.
	key := mustQuery(t, cs.EntryPath).Get("key")
	if st, _, _ := r.postForm("/enter/fixture", url.Values{"key": {key}, "participant": {"p9"}, "replace": {"yes"}}); st != 403 {
		t.Errorf("entry form without its token: %d, want 403", st)
	}
	if me := r.me(); me.Username != "researcher" {
		t.Fatalf("tokenless form replaced the session with %q", me.Username)
	}
	// Confirmed: the researcher's session ends, the participant's starts.
	if st, _ := r.enter(cs.EntryPath, "p9", url.Values{"replace": {"yes"}}); st != 303 {
		t.Fatalf("confirmed entry: %d", st)
	}
	if me := r.me(); me.Username != store.CrowdUsername(e.fx.Project.ID, "p9") {
		t.Errorf("after confirmed entry: %q", me.Username)
	}
}

// Defect 1 (starvation): a participant cap, and crowd identities hold a
// bounded number of leases.
func TestCrowdCapAndLeaseBound(t *testing.T) {
	e := newEnv(t, 1, nil)
	if err := judgingtest.AddRelevanceItems(context.Background(), e.st, e.fx, 10); err != nil {
		t.Fatal(err)
	}
	cs := e.enableCrowd(2)
	var crowd []*user
	for _, p := range []string{"c1", "c2"} {
		u := e.anon()
		if st, _ := u.enter(cs.EntryPath, p, nil); st != 303 {
			t.Fatalf("entry %s: %d", p, st)
		}
		crowd = append(crowd, u)
	}
	if st, body := e.anon().enter(cs.EntryPath, "c3", nil); st != 403 || !strings.Contains(body, "all the participants") {
		t.Errorf("entry past the cap: %d %s", st, body)
	}
	for _, u := range crowd {
		if q := u.queue("relevance", 10); len(q.Tasks) > api.CrowdLeaseCap {
			t.Errorf("a crowd identity leased %d items, cap %d", len(q.Tasks), api.CrowdLeaseCap)
		}
		// Asking again does not add leases beyond the cap.
		if q := u.queue("relevance", 10); len(q.Tasks) > api.CrowdLeaseCap {
			t.Errorf("second request: %d leased", len(q.Tasks))
		}
	}
	if q := e.login("annotator1").queue("relevance", 10); len(q.Tasks) == 0 {
		t.Error("members are starved by crowd identities")
	}
}

// Issue 29 item 4: the lease cap of a crowd participant counts every kind
// together (it was applied per kind: 3 relevance items and then the
// paraphrase items on top); asking for another kind gives back the items
// held of the others.
func TestCrowdLeaseCapAcrossKinds(t *testing.T) {
	e := newEnv(t, 1, nil)
	if err := judgingtest.AddRelevanceItems(context.Background(), e.st, e.fx, 10); err != nil {
		t.Fatal(err)
	}
	cs := e.enableCrowd(0)
	u := e.anon()
	if st, _ := u.enter(cs.EntryPath, "kinds", nil); st != 303 {
		t.Fatalf("entry: %d", st)
	}
	rq := u.queue(api.KindRelevance, 10)
	if len(rq.Tasks) != api.CrowdLeaseCap {
		t.Fatalf("relevance: %d leased, want the cap %d", len(rq.Tasks), api.CrowdLeaseCap)
	}
	held := func(kind string) int {
		var n int
		if err := e.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE a.user_id = $1 AND a.status = 'leased' AND a.lease_expires_at > now() AND ($2 = '' OR i.kind = $2)`, u.id, kind).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Asking for another kind: the relevance items are given back, so the
	// participant never holds more than the cap in all.
	pq := u.queue(api.KindParaphrase, 10)
	if len(pq.Tasks) != 2 {
		t.Errorf("paraphrase: %d leased, want the fixture's 2", len(pq.Tasks))
	}
	if n, r := held(""), held(api.KindRelevance); n > api.CrowdLeaseCap || r != 0 {
		t.Errorf("participant holds %d leases (%d relevance) after asking for paraphrases, want at most %d and no relevance", n, r, api.CrowdLeaseCap)
	}
	// A judgment of a relevance item given back is still accepted.
	tk := rq.Tasks[0]
	req := api.JudgmentRequest{ClientID: uuid(1), AuthorID: u.id, ItemID: tk.ItemID, Kind: api.KindRelevance, Relevance: rel(2), Evidence: "partial"}
	if st := u.do("POST", "/api/judgments", req, nil); st != 201 {
		t.Fatalf("judgment of a given-back lease: %d", st)
	}
	// Back on the relevance page: the cap again, the paraphrases given back.
	if q := u.queue(api.KindRelevance, 10); len(q.Tasks) != api.CrowdLeaseCap {
		t.Errorf("relevance again: %d leased, want %d", len(q.Tasks), api.CrowdLeaseCap)
	}
	if n := held(""); n != api.CrowdLeaseCap {
		t.Errorf("participant holds %d leases, want %d", n, api.CrowdLeaseCap)
	}
	// Members are not capped.
	a := e.login("annotator1")
	if q := a.queue(api.KindRelevance, 10); len(q.Tasks) <= api.CrowdLeaseCap {
		t.Errorf("a member leased %d relevance items, more than the crowd cap expected", len(q.Tasks))
	}
	if q := a.queue(api.KindParaphrase, 10); len(q.Tasks) == 0 {
		t.Error("a member holding relevance items got no paraphrase item")
	}
}

// Issue 29 item 4: crowd account names cannot collide across projects
// (fixture/other-y and fixture-other/y were both crowd-fixture-other-y,
// and the second entry failed with "link not valid").
func TestCrowdUsernamesDoNotCollideAcrossProjects(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	cs := e.enableCrowd(0)
	on := true
	if err := e.st.UpdateCrowdSettings(ctx, store.CrowdUpdate{ProjectID: e.fx.Other.ID, Enabled: &on, NewKey: "other-project-key"}); err != nil {
		t.Fatal(err)
	}
	a := e.anon()
	if st, body := a.enter(cs.EntryPath, "other-y", nil); st != 303 {
		t.Fatalf("fixture/other-y: %d %s", st, body)
	}
	b := e.anon()
	b.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	otherPath := "/enter/" + e.fx.Other.Name + "?key=other-project-key"
	st, page := b.page(otherPath + "&participant=y")
	if st != 200 {
		t.Fatalf("start page of %s: %d", e.fx.Other.Name, st)
	}
	form := formField.FindStringSubmatch(page)
	st, loc, body := b.postForm("/enter/"+e.fx.Other.Name, url.Values{"key": {"other-project-key"}, "participant": {"y"}, "form": {form[1]}})
	if st != 303 || loc != "/judge/"+e.fx.Other.Name {
		t.Fatalf("%s/y after fixture/other-y: %d %q %s", e.fx.Other.Name, st, loc, body)
	}
	names := storetest.Column[string](t, e.st, `SELECT username FROM users WHERE external_id IS NOT NULL ORDER BY id`)
	if len(names) != 2 || names[0] == names[1] {
		t.Errorf("crowd accounts %v, want two distinct", names)
	}
}

// Issue 29 item 4: an account an admin made with a participant's name
// gets a message saying so (it was "link not valid"), and admins cannot
// make such names any more; an old-style name no longer blocks anyone.
func TestCrowdEntryBlockedByExistingAccount(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	cs := e.enableCrowd(0)
	// An account from before the reserved prefix, with the very name.
	if _, err := e.st.CreateUser(ctx, store.NewUser{Username: store.CrowdUsername(e.fx.Project.ID, "p5"), Role: api.RoleAnnotator, PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	st, body := e.anon().enter(cs.EntryPath, "p5", nil)
	if st != 409 || !strings.Contains(body, "Another account on this server already has the name") || strings.Contains(body, "not valid") {
		t.Errorf("entry blocked by an admin-made account: %d %s", st, body)
	}
	// The old name pattern does not block a participant.
	if _, err := e.st.CreateUser(ctx, store.NewUser{Username: "crowd-fixture-p6", Role: api.RoleAnnotator, PasswordHash: "x"}); err != nil {
		t.Fatal(err)
	}
	if st, body := e.anon().enter(cs.EntryPath, "p6", nil); st != 303 {
		t.Errorf("entry of p6 next to an account crowd-fixture-p6: %d %s", st, body)
	}
	// Admins cannot create names with the crowd prefix.
	var p api.Problem
	if st := e.login("admin").do("POST", "/api/admin/users", api.NewUserRequest{Username: "Crowd-9-x", Role: api.RoleAnnotator, Password: "a long enough password"}, &p); st != 400 || p.Field != "username" {
		t.Errorf("admin creates a crowd- name: %d %+v", st, p)
	}
}

// Issue 29 item 4: a participant account without a bound browser (made
// before binding) is bound only after an admin releases it, not by
// whichever browser enters first.
func TestCrowdLegacyAccountBoundOnlyByAdmin(t *testing.T) {
	e := newEnv(t, 2, nil)
	ctx := context.Background()
	cs := e.enableCrowd(0)
	if st, _ := e.anon().enter(cs.EntryPath, "p7", nil); st != 303 {
		t.Fatalf("entry: %d", st)
	}
	var id int64
	// As accounts made before migration 0060: no bound token.
	if err := e.st.Pool().QueryRow(ctx, `UPDATE users SET crowd_token_hash = NULL WHERE external_id = 'fixture/p7' RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	first := e.anon()
	if st, body := first.enter(cs.EntryPath, "p7", nil); st != 403 || !strings.Contains(body, "organisers release it") {
		t.Errorf("first browser on an unbound legacy account: %d %s", st, body)
	}
	if st := first.do("GET", "/api/me", nil, nil); st != 401 {
		t.Errorf("the first browser got a session: %d", st)
	}
	// Only admins release; then the next entry binds its browser.
	yes := true
	path := "/api/admin/users/" + itoa(int(id))
	if st := e.login("researcher").do("PATCH", path, api.UserUpdateRequest{CrowdRebind: &yes}, nil); st != 403 {
		t.Errorf("researcher releases a participant: %d, want 403", st)
	}
	var p api.Problem
	if st := e.login("admin").do("PATCH", "/api/admin/users/"+itoa(int(e.fx.Users["annotator1"].ID)), api.UserUpdateRequest{CrowdRebind: &yes}, &p); st != 400 || p.Field != "crowd_rebind" {
		t.Errorf("release of a password account: %d %+v", st, p)
	}
	if st := e.login("admin").do("PATCH", path, api.UserUpdateRequest{CrowdRebind: &yes}, nil); st != 200 {
		t.Fatalf("admin releases p7: %d", st)
	}
	owner := e.anon()
	if st, body := owner.enter(cs.EntryPath, "p7", nil); st != 303 || owner.me().UserID != id {
		t.Fatalf("entry after release: %d %s", st, body)
	}
	if st, body := e.anon().enter(cs.EntryPath, "p7", nil); st != 403 || !strings.Contains(body, "another browser") {
		t.Errorf("another browser after the owner bound p7: %d %s", st, body)
	}
	if st, _ := owner.enter(cs.EntryPath, "p7", nil); st != 303 {
		t.Errorf("the owner's browser again: %d", st)
	}
}

// Issue 29 item 5: the start page's form token is one-time.
func TestCrowdEntryFormIsOneTime(t *testing.T) {
	e := newEnv(t, 2, nil)
	cs := e.enableCrowd(0)
	u := e.anon()
	st, page := u.page(cs.EntryPath + "&participant=p8")
	if st != 200 {
		t.Fatalf("start page: %d", st)
	}
	form := url.Values{"key": {mustQuery(t, cs.EntryPath).Get("key")}, "participant": {"p8"}, "form": {formField.FindStringSubmatch(page)[1]}}
	if st, _, body := u.postForm("/enter/fixture", form); st != 303 {
		t.Fatalf("first POST: %d %s", st, body)
	}
	st, _, body := u.postForm("/enter/fixture", form)
	if st != 409 || !strings.Contains(body, "already sent once") {
		t.Errorf("second POST of the same form: %d %s", st, body)
	}
	// Another browser replaying the form with its cookie gets no session.
	thief := e.anon()
	thief.c.Jar.SetCookies(mustURL(t, e.srv.URL+"/enter/"), []*http.Cookie{{Name: "boolpool_entry_form", Value: form.Get("form"), Path: "/enter/"}})
	if st, _, _ := thief.postForm("/enter/fixture", form); st != 409 {
		t.Errorf("replayed form: %d, want 409", st)
	}
	if st := thief.do("GET", "/api/me", nil, nil); st != 401 {
		t.Errorf("replayed form signed in: /api/me %d", st)
	}
}

// Issue 29 item 5: turning entry off and on makes a new link; the old one
// stays closed. Enabling while on keeps the link.
func TestCrowdOffOnRotatesKey(t *testing.T) {
	e := newEnv(t, 2, nil)
	first := e.enableCrowd(0)
	if again := e.enableCrowd(0); again.EntryPath != first.EntryPath {
		t.Errorf("enabling an enabled project changed the link")
	}
	r := e.login("researcher")
	off := false
	if st := r.do("PUT", "/api/projects/fixture/crowd", api.CrowdUpdateRequest{Enabled: &off}, nil); st != 200 {
		t.Fatalf("off: %d", st)
	}
	second := e.enableCrowd(0)
	if second.EntryPath == first.EntryPath {
		t.Fatalf("off→on kept the link %s", first.EntryPath)
	}
	if st, _ := e.anon().page(first.EntryPath + "&participant=p1"); st != 404 {
		t.Errorf("old link after off→on: %d, want 404", st)
	}
	if st, _ := e.anon().page(second.EntryPath + "&participant=p1"); st != 200 {
		t.Errorf("new link: %d", st)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
