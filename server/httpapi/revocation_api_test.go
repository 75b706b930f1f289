package httpapi_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/config"
	"boolpool/server/store"
)

// Defect 5: a member removed from a project can no longer read or judge
// the items already assigned to them.
func TestRemovedMemberCannotReadOrJudgeAssignedItems(t *testing.T) {
	e := newEnv(t, 2, nil)
	a := e.login("annotator1")
	q := a.queue("relevance", 2)
	if len(q.Tasks) == 0 {
		t.Fatal("no tasks")
	}
	item := q.Tasks[0].ItemID
	if st := a.do("GET", fmt.Sprintf("/api/items/%d", item), nil, nil); st != 200 {
		t.Fatalf("read while a member: %d", st)
	}
	admin := e.login("admin")
	none := []string{}
	if st := admin.do("PATCH", fmt.Sprintf("/api/admin/users/%d", e.fx.Users["annotator1"].ID), api.UserUpdateRequest{Projects: &none}, nil); st != 200 {
		t.Fatalf("remove membership: %d", st)
	}
	if st := a.do("GET", fmt.Sprintf("/api/items/%d", item), nil, nil); st != 403 {
		t.Errorf("read after removal: %d, want 403", st)
	}
	req := api.JudgmentRequest{ClientID: uuid(901), ItemID: item, Kind: "relevance", Relevance: rel(3), Evidence: "complete", AuthorID: a.id}
	var p api.Problem
	if st := a.do("POST", "/api/judgments", req, &p); st != 403 || !strings.Contains(p.Detail, "no longer a member") {
		t.Errorf("judge after removal: %d %+v, want 403", st, p)
	}
	if st := a.do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: "relevance", N: 2}, nil); st != 403 {
		t.Errorf("queue after removal: %d, want 403", st)
	}
}

// Defect 5: a researcher's live stream ends within about a second of the
// account being disabled.
func TestLiveStreamEndsWhenAccountDisabled(t *testing.T) {
	e := newEnv(t, 2, nil)
	r := e.login("researcher")
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/projects/fixture/live", nil)
	res, err := r.c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	events := make(chan string, 64)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- ev
			}
		}
	}()
	if ev := <-events; ev != "snapshot" {
		t.Fatalf("first event %q", ev)
	}
	admin := e.login("admin")
	yes := true
	if st := admin.do("PATCH", fmt.Sprintf("/api/admin/users/%d", e.fx.Users["researcher"].ID), api.UserUpdateRequest{Disabled: &yes}, nil); st != 200 {
		t.Fatalf("disable: %d", st)
	}
	disabled := time.Now()
	deadline := time.After(3 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				if d := time.Since(disabled); d > 2*time.Second {
					t.Errorf("stream closed %v after disabling, want within ~1 s", d)
				}
				return
			}
			if ev == "revoked" {
				continue
			}
		case <-deadline:
			t.Fatal("the stream still runs 3 s after the account was disabled")
		}
	}
}

// Defect 10: sign-in attempts are limited per account, whatever the
// address they come from.
func TestLoginThrottledPerAccount(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.LoginPerMinute = 100; c.AccountLoginPerMinute = 10 })
	limited := 0
	for i := 0; i < 60; i++ {
		// httptest gives every client the same address, so the per-address
		// limit (100) never fires here: only the per-account one can.
		st := e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1", Password: fmt.Sprintf("guess %d", i)}, nil)
		if st == 429 {
			limited++
		} else if st != 401 {
			t.Fatalf("guess %d: %d", i, st)
		}
	}
	if limited < 45 {
		t.Errorf("%d of 60 guesses at one account were refused with 429, want ≥ 45 (10 per minute)", limited)
	}
	// Another account is not affected.
	e.login("annotator2")
}

// Defect 10: a crowd account (no password) and an unknown name take a
// password hash like any other account, so timing does not tell them apart.
func TestLoginTimingSameForCrowdAndUnknown(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.LoginPerMinute = 1000; c.AccountLoginPerMinute = 1000 })
	cs := e.enableCrowd(0)
	if st, _ := e.anon().enter(cs.EntryPath, "timing", nil); st != 303 {
		t.Fatalf("entry: %d", st)
	}
	median := func(name string) time.Duration {
		var ds []time.Duration
		for i := 0; i < 7; i++ {
			start := time.Now()
			if st := e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: name, Password: "some password"}, nil); st != 401 {
				t.Fatalf("login %s: %d", name, st)
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	unknown := median("nobody-at-all")
	crowd := median(store.CrowdUsername(e.fx.Project.ID, "timing"))
	if crowd*2 < unknown {
		t.Errorf("crowd account answers in %v, unknown name in %v: the account kind shows in the timing", crowd, unknown)
	}
}

// Defect 10: parallel sign-ins queue for a bounded number of hashing
// slots instead of each hashing at once; all still get their answer.
func TestParallelLoginsAnswered(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) {
		c.LoginPerMinute = 1000
		c.AccountLoginPerMinute = 1000
		c.MaxConcurrentHashes = 1
	})
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: "nobody", Password: "x y z w v"}, nil)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 401 {
			t.Errorf("login %d: %d, want 401", i, c)
		}
	}
}

// Issue 29 item 4: guesses at an account lock out the guessing address,
// not the owner: after 12 wrong passwords for annotator1 from 127.0.0.1
// (429 past the limit), the right password from 127.0.0.2 signs in.
func TestLoginGuessesDoNotLockOutOwner(t *testing.T) {
	e := newEnv(t, 2, func(c *config.Config) { c.LoginPerMinute = 100; c.AccountLoginPerMinute = 5 })
	limited := 0
	for i := 0; i < 12; i++ {
		st := e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1", Password: fmt.Sprintf("guess %d", i)}, nil)
		switch st {
		case 429:
			limited++
		case 401:
		default:
			t.Fatalf("guess %d: %d", i, st)
		}
	}
	if limited != 7 {
		t.Errorf("%d of 12 guesses from one address refused, want 7 (5 per minute)", limited)
	}
	owner := e.anon()
	owner.c.Transport = &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}
	var me api.Me
	if st := owner.do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1", Password: judgingtest.Password}, &me); st != 200 || me.Username != "annotator1" {
		t.Fatalf("the right password from another address after 12 guesses: %d", st)
	}
	// The guessing address stays refused, even with the right password.
	if st := e.anon().do("POST", "/api/auth/login", api.LoginRequest{Username: "annotator1", Password: judgingtest.Password}, nil); st != 429 {
		t.Errorf("the guessing address with the right password: %d, want 429", st)
	}
}
