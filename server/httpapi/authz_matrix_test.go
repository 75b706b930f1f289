package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"boolpool/server/config"
	"boolpool/server/httpapi"
)

// access is the least privilege a route needs.
type access int

const (
	public     access = iota // anyone, signed in or not
	signedIn                 // any account; project routes also need membership
	researcher               // researcher or admin
	admin                    // admin only
	assignee                 // only the rater who holds the item's lease
)

// routeAccess is the authorisation policy, written down once. Every route
// the server registers must appear here: a new route without a decision
// fails TestAuthorizationMatrix.
var routeAccess = map[string]access{
	"GET /healthz":                                              public,
	"GET /readyz":                                               public,
	"POST /api/auth/login":                                      public,
	"GET /api/me":                                               signedIn,
	"GET /api/me/projects":                                      signedIn,
	"POST /api/auth/logout":                                     signedIn,
	"POST /api/projects/:project/queue":                         signedIn,
	"GET /api/projects/:project/instructions":                   signedIn,
	"GET /api/items/:id":                                        assignee,
	"GET /enter/:project":                                       public,
	"POST /enter/:project":                                      public,
	"GET /api/projects/:project/crowd":                          researcher,
	"PUT /api/projects/:project/crowd":                          researcher,
	"POST /api/projects/:project/crowd/rotate":                  researcher,
	"GET /api/projects/:project/crowd/participants":             researcher,
	"GET /api/projects/:project/crowd/participants.csv":         researcher,
	"POST /api/judgments":                                       signedIn,
	"GET /api/projects/:project/stats":                          researcher,
	"GET /api/projects/:project/dashboard":                      researcher,
	"GET /api/projects/:project/live":                           researcher,
	"GET /api/projects/:project/composition":                    researcher,
	"GET /api/projects/:project/adjudication":                   researcher,
	"GET /api/projects/:project/progress/queries":               researcher,
	"GET /api/items/:id/adjudication":                           researcher,
	"POST /api/items/:id/adjudication":                          researcher,
	"GET /api/projects/:project/quality":                        researcher,
	"PUT /api/projects/:project/quality":                        researcher,
	"GET /api/projects/:project/runs":                           researcher,
	"POST /api/projects/:project/pools/preview":                 researcher,
	"POST /api/projects/:project/pools":                         researcher,
	"GET /api/projects/:project/cal":                            researcher,
	"POST /api/projects/:project/pools/:pool/cal/:query/stop":   researcher,
	"POST /api/projects/:project/pools/:pool/cal/:query/extend": researcher,
	"GET /api/projects/:project/queries":                        researcher,
	"PUT /api/queries/:id/expression":                           researcher,
	"GET /api/queries/:id/decompose":                            researcher,
	"POST /api/projects/:project/decompose":                     researcher,
	"GET /api/projects":                                         researcher,
	"POST /api/projects":                                        researcher,
	"GET /api/setup/options":                                    researcher,
	"POST /api/projects/:project/imports":                       researcher,
	"GET /api/projects/:project/jobs":                           researcher,
	"POST /api/projects/:project/jobs":                          researcher,
	"GET /api/jobs/:id":                                         researcher,
	"POST /api/jobs/:id/cancel":                                 researcher,
	"GET /api/admin/users":                                      admin,
	"POST /api/admin/users":                                     admin,
	"PATCH /api/admin/users/:id":                                admin,
	"GET /api/projects/:project/exports":                        admin,
	"GET /api/projects/:project/exports/:format":                admin,
	"GET /web/*":  public,
	"HEAD /web/*": public,

	// Task pages (go-app's, with the instructions for members).
	"GET /judge/:project":       public,
	"HEAD /judge/:project":      public,
	"GET /paraphrase/:project":  public,
	"HEAD /paraphrase/:project": public,
	"GET /validate/:project":    public,
	"HEAD /validate/:project":   public,
	"GET /constraint/:project":  public,
	"HEAD /constraint/:project": public,

	"POST /api/projects/:project/constraints": researcher,
	"GET /api/projects/:project/derived":      researcher,
	"GET /api/projects/:project/leaderboard":  researcher,
	"GET /api/projects/:project/estimates":    researcher,
	"GET /api/projects/:project/reusability":  researcher,
	"GET /api/projects/:project/stability":    researcher,
	// Review with feedback and the item browser (issue 25).
	"GET /api/projects/:project/feedback":       signedIn,
	"GET /api/projects/:project/reviews":        researcher,
	"POST /api/judgments/:id/review":            researcher,
	"GET /api/projects/:project/browse/items":   researcher,
	"GET /api/projects/:project/browse/queries": researcher,
	"GET /api/items/:id/detail":                 researcher,
}

// catch-all routes (unknown API paths, app pages) are public by design.
func isCatchAll(r httpapi.Route) bool {
	return r.Path == "/api/*" || r.Path == "/*"
}

type role struct {
	name     string
	user     string // "" = anonymous
	level    access
	outsider bool // annotator of another project only
}

var roles = []role{
	{"anonymous", "", public, false},
	{"annotator", "annotator1", signedIn, false},
	{"outsider", "outsider", signedIn, true},
	{"researcher", "researcher", researcher, false},
	{"admin", "admin", admin, false},
}

// TestAuthorizationMatrix sends every route a request as every role and
// checks the status against the policy above: below the route's level an
// anonymous caller gets 401 and a signed-in one 403; at or above it the
// answer is neither. An annotator of another project is refused on this
// project's routes.
func TestAuthorizationMatrix(t *testing.T) {
	e := newEnv(t, 3, func(c *config.Config) { c.LoginPerMinute = 100000 })
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 1 << 16, LoginPerMinute: 1}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httpapi.New(cfg, newServices(t, cfg, e.st, log, 0), log)
	var routes []httpapi.Route
	for _, r := range srv.Routes() {
		if r.Method == "echo_route_not_found" || isCatchAll(r) {
			continue
		}
		routes = append(routes, r)
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].Path+routes[i].Method < routes[j].Path+routes[j].Method })
	for _, r := range routes {
		if _, ok := routeAccess[r.Method+" "+r.Path]; !ok {
			t.Errorf("route %s %s has no entry in routeAccess: decide who may call it", r.Method, r.Path)
		}
	}
	itemID := e.fx.Relevance[0]
	for _, r := range routes {
		need, ok := routeAccess[r.Method+" "+r.Path]
		if !ok {
			continue
		}
		basePath := strings.NewReplacer(":project", "fixture", ":id", fmt.Sprint(itemID), ":format", "trec-qrels", "*", "app.wasm").Replace(r.Path)
		for _, ro := range roles {
			t.Run(fmt.Sprintf("%s %s as %s", r.Method, r.Path, ro.name), func(t *testing.T) {
				path := basePath
				u := e.anon()
				if ro.user != "" {
					u = e.login(ro.user)
				}
				if need == assignee && ro.name == "annotator" {
					// Take a lease: the item the queue hands out is this rater's.
					q := u.queue("relevance", 1)
					if len(q.Tasks) == 0 {
						t.Fatal("annotator got no task to hold")
					}
					path = strings.Replace(r.Path, ":id", fmt.Sprint(q.Tasks[0].ItemID), 1)
				}
				status := u.status(r.Method, path)
				projectRoute := strings.Contains(r.Path, ":project") || strings.Contains(r.Path, ":id")
				switch {
				case need == assignee:
					want := http.StatusForbidden
					if ro.user == "" {
						want = http.StatusUnauthorized
					} else if ro.name == "annotator" {
						want = http.StatusOK
					}
					if status != want {
						t.Fatalf("%s: got %d, want %d", ro.name, status, want)
					}
				case need == public:
					if status == http.StatusUnauthorized || status == http.StatusForbidden {
						t.Fatalf("public route answered %d", status)
					}
				case ro.user == "":
					if status != http.StatusUnauthorized {
						t.Fatalf("anonymous: got %d, want 401", status)
					}
				case ro.level < need:
					if status != http.StatusForbidden {
						t.Fatalf("%s: got %d, want 403", ro.name, status)
					}
				case ro.outsider && projectRoute:
					if status != http.StatusForbidden && status != http.StatusNotFound {
						t.Fatalf("annotator of another project: got %d, want 403 or 404", status)
					}
				default:
					if status == http.StatusUnauthorized || status == http.StatusForbidden {
						t.Fatalf("%s may call this route but got %d", ro.name, status)
					}
				}
			})
		}
	}
}

// status sends an empty JSON object (bodies are irrelevant to access
// decisions) and returns the status; streaming answers are cut after the
// headers.
func (u *user) status(method, path string) int {
	u.e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var body *strings.Reader
	if method == http.MethodGet || method == http.MethodHead {
		body = strings.NewReader("")
	} else {
		body = strings.NewReader("{}")
	}
	req, _ := http.NewRequestWithContext(ctx, method, u.e.srv.URL+path, body)
	req.Header.Set("Content-Type", "application/json")
	if u.csrf != "" {
		req.Header.Set("X-CSRF-Token", u.csrf)
	}
	res, err := u.c.Do(req)
	if err != nil {
		u.e.t.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close()
	return res.StatusCode
}
