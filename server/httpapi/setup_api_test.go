package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/app"
)

// newSetupEnv is newEnv with a job client of every kind (retrieve: the
// lexical and fusion methods; no encoders) that runs one job at a time, as
// the serve command builds it.
func newSetupEnv(t *testing.T) *env { return newJobsEnv(t, 1, false) }

// newSetupEnvWorkers is newSetupEnv whose job client runs workers jobs at
// once; 0: none (serve --workers 0: jobs only queue).
func newSetupEnvWorkers(t *testing.T, workers int) *env { return newJobsEnv(t, workers, false) }

// upload posts files as multipart/form-data to the project's import route.
func (u *user) upload(project, format string, files map[string]string, order []string, out any) (int, api.Problem) {
	u.e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("format", format)
	for _, name := range order {
		w, _ := mw.CreateFormFile("files", name)
		_, _ = io.WriteString(w, files[name])
	}
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, u.e.srv.URL+"/api/projects/"+project+"/imports", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set(api.CSRFHeader, u.csrf)
	res, err := u.c.Do(req)
	if err != nil {
		u.e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var prob api.Problem
	if res.StatusCode >= 300 {
		_ = json.Unmarshal(data, &prob)
	} else if err := json.Unmarshal(data, out); err != nil {
		u.e.t.Fatalf("decode %s: %v", data, err)
	}
	return res.StatusCode, prob
}

const questQueries = `{"query": "Birds of the Andes but not of Colombia", "docs": ["Andean condor"], "original_query": "<mark>Birds of the Andes</mark> that are not <mark>Birds of Colombia</mark>", "scores": null, "metadata": {"template": "_ that are not _", "domain": "animals"}}
{"query": "1990s crime films", "docs": ["Heat (1995 film)"], "original_query": "<mark>1990s crime films</mark>", "scores": null, "metadata": {"template": "_", "domain": "films"}}
`

const questDocs = `{"title": "Andean condor", "text": "The Andean condor is a large bird of the Andes."}
{"title": "Heat (1995 film)", "text": "Heat is a 1995 American crime film."}
{"title": "Colombian bird", "text": "A bird of Colombia, not of the Andes."}
`

// TestProjectSetupFlow: a researcher creates a project, uploads QUEST
// files, starts a bm25 retrieval job and watches it reach done; the run is
// then stored. Bad input is a 4xx with file:line:field and keeps nothing.
func TestProjectSetupFlow(t *testing.T) {
	e := newSetupEnv(t)
	r := e.login("researcher")

	var pv api.ProjectView
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "birds", Title: "Birds"}, &pv); st != http.StatusCreated || pv.Name != "birds" {
		t.Fatalf("create: %d %+v", st, pv)
	}
	var prob api.Problem
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "birds"}, &prob); st != http.StatusConflict {
		t.Fatalf("duplicate create: %d %+v", st, prob)
	}
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "Bad Name"}, &prob); st != http.StatusBadRequest || prob.Field != "name" {
		t.Fatalf("bad name: %d %+v", st, prob)
	}
	var list []api.ProjectView
	if st := r.do("GET", "/api/projects", nil, &list); st != 200 || !hasProject(list, "birds") {
		t.Fatalf("list: %d %+v", st, list)
	}

	// A bad second line: 400 naming file, line and field; nothing kept.
	bad := strings.SplitN(questQueries, "\n", 2)[0] + "\n" + `{"query": 7, "docs": []}` + "\n"
	st, prob := r.upload("birds", "quest", map[string]string{"queries.jsonl": bad}, []string{"queries.jsonl"}, nil)
	if st != http.StatusBadRequest || !strings.HasPrefix(prob.Field, "queries.jsonl:2") || strings.Contains(prob.Detail, "/tmp") {
		t.Fatalf("bad upload: %d %+v", st, prob)
	}
	if c := projectCounts(t, r, "birds"); c.Queries != 0 {
		t.Fatalf("a failed upload left %d queries", c.Queries)
	}
	if st, prob := r.upload("birds", "nope", map[string]string{"a.txt": "x"}, []string{"a.txt"}, nil); st != http.StatusBadRequest || prob.Field != "format" {
		t.Fatalf("bad format: %d %+v", st, prob)
	}

	var res api.ImportResult
	files := map[string]string{"documents.jsonl": questDocs, "queries.jsonl": questQueries}
	if st, prob := r.upload("birds", "quest", files, []string{"documents.jsonl", "queries.jsonl"}, &res); st != 200 {
		t.Fatalf("upload: %d %+v", st, prob)
	}
	if len(res.Files) != 2 || res.Files[0].File != "documents.jsonl" || res.Files[0].Documents != 3 || res.Files[1].Queries != 2 {
		t.Fatalf("import result %+v", res)
	}

	// Uploads have their own limit, above the JSON body limit (64 KiB here).
	var big strings.Builder
	for i := 0; big.Len() < 200<<10; i++ {
		fmt.Fprintf(&big, `{"title": "Filler %d", "text": "%s"}`+"\n", i, strings.Repeat("filler text ", 20))
	}
	if st, prob := r.upload("birds", "quest", map[string]string{"filler.jsonl": big.String()}, []string{"filler.jsonl"}, &res); st != 200 {
		t.Fatalf("200 KiB upload: %d %+v", st, prob)
	}
	huge := strings.Repeat(big.String(), 6) // > 1 MiB, the upload limit here
	if st, _ := r.upload("birds", "quest", map[string]string{"huge.jsonl": huge}, []string{"huge.jsonl"}, nil); st != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized upload: %d", st)
	}

	// Jobs: bad requests are 400s before anything is stored.
	for _, req := range []api.JobRequest{
		{Kind: "nope"},
		{Kind: api.JobKindRetrieve, Params: json.RawMessage(`{"method": "nope"}`)},
		{Kind: api.JobKindRetrieve, Params: json.RawMessage(`{"method": "bm25", "depht": 3}`)},
		{Kind: api.JobKindEncode, Params: json.RawMessage(`{"encoder": "nope"}`)},
		{Kind: api.JobKindEncode, Params: json.RawMessage(`{"encoder": "lexical", "batch": 99999}`)},
	} {
		if st := r.do("POST", "/api/projects/birds/jobs", req, &prob); st != http.StatusBadRequest {
			t.Errorf("job %s %s: %d %+v", req.Kind, req.Params, st, prob)
		}
	}
	var jobList []api.JobView
	if r.do("GET", "/api/projects/birds/jobs", nil, &jobList); len(jobList) != 0 {
		t.Fatalf("refused jobs were stored: %+v", jobList)
	}

	var j api.JobView
	if st := r.do("POST", "/api/projects/birds/jobs", api.JobRequest{Kind: api.JobKindRetrieve,
		Params: json.RawMessage(`{"method": "bm25", "depth": 10}`)}, &j); st != http.StatusAccepted {
		t.Fatalf("start job: %d", st)
	}
	j = followJob(t, r, j.ID)
	if j.State != api.JobDone || j.Done != 2 || j.Total != 2 || j.Phase != "retrieving" || len(j.Result) == 0 {
		t.Fatalf("job ended %+v", j)
	}
	var runs []api.RunSummary
	if r.do("GET", "/api/projects/birds/runs", nil, &runs); len(runs) != 1 || runs[0].Name != "bm25" || runs[0].Queries != 2 {
		t.Fatalf("runs after the job: %+v", runs)
	}
	if r.do("GET", "/api/projects/birds/jobs", nil, &jobList); len(jobList) != 1 || jobList[0].ID != j.ID {
		t.Fatalf("job list %+v", jobList)
	}
	// A finished job cannot be cancelled.
	if st := r.do("POST", fmt.Sprintf("/api/jobs/%d/cancel", j.ID), nil, &prob); st != http.StatusConflict {
		t.Fatalf("cancel a done job: %d", st)
	}

	// Another researcher who is not a member sees none of it.
	other := createAndLogin(t, e, "researcher2", api.RoleResearcher)
	if st := other.do("GET", fmt.Sprintf("/api/jobs/%d", j.ID), nil, &prob); st != http.StatusForbidden {
		t.Fatalf("non-member reads a job: %d", st)
	}
	if st := other.do("GET", "/api/projects/birds/jobs", nil, &prob); st != http.StatusForbidden {
		t.Fatalf("non-member lists jobs: %d", st)
	}
	if st, _ := other.upload("birds", "quest", files, []string{"queries.jsonl"}, nil); st != http.StatusForbidden {
		t.Fatalf("non-member uploads: %d", st)
	}
}

// TestSetupJobsQueuedWithoutWorker: a server without a worker (serve
// --workers 0) queues jobs for worker processes; the same job started
// twice while queued is one job, and the cancel button ends it.
func TestSetupJobsQueuedWithoutWorker(t *testing.T) {
	e := newSetupEnvWorkers(t, 0)
	r := e.login("researcher")
	var pv api.ProjectView
	if st := r.do("POST", "/api/projects", api.NewProjectRequest{Name: "birds"}, &pv); st != http.StatusCreated {
		t.Fatalf("create: %d", st)
	}
	var opts api.SetupOptions
	// The setup page offers every kind the production server runs.
	want := slices.Sorted(maps.Keys(app.JobKinds(e.st, slog.New(slog.DiscardHandler), app.Options{})))
	if r.do("GET", "/api/setup/options", nil, &opts); !slices.Equal(opts.JobKinds, want) || !slices.Contains(opts.JobKinds, api.JobKindRetrieve) {
		t.Fatalf("job kinds %+v", opts.JobKinds)
	}
	req := api.JobRequest{Kind: api.JobKindRetrieve, Params: json.RawMessage(`{"method": "bm25", "depth": 10}`)}
	var first, again api.JobView
	if st := r.do("POST", "/api/projects/birds/jobs", req, &first); st != http.StatusAccepted || first.State != api.JobQueued {
		t.Fatalf("start job: %d %+v", st, first)
	}
	req.Params = json.RawMessage(`{"depth": 10, "method": "bm25"}`)
	if st := r.do("POST", "/api/projects/birds/jobs", req, &again); st != http.StatusAccepted || again.ID != first.ID {
		t.Fatalf("the same job again: %d %+v, want job %d", st, again, first.ID)
	}
	var cancelled api.JobView
	if st := r.do("POST", fmt.Sprintf("/api/jobs/%d/cancel", first.ID), nil, &cancelled); st != http.StatusOK ||
		cancelled.State != api.JobCancelled || cancelled.FinishedAt == nil {
		t.Fatalf("cancel: %d %+v", st, cancelled)
	}
	var jobList []api.JobView
	if r.do("GET", "/api/projects/birds/jobs", nil, &jobList); len(jobList) != 1 || jobList[0].State != api.JobCancelled {
		t.Fatalf("job list %+v", jobList)
	}
}

func hasProject(ps []api.ProjectView, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

func projectCounts(t *testing.T, u *user, name string) api.ProjectCounts {
	t.Helper()
	var list []api.ProjectView
	u.do("GET", "/api/projects", nil, &list)
	for _, p := range list {
		if p.Name == name {
			return p.Counts
		}
	}
	t.Fatalf("project %s not listed", name)
	return api.ProjectCounts{}
}

// createAndLogin makes an account through the admin API and signs it in.
func createAndLogin(t *testing.T, e *env, name, role string) *user {
	t.Helper()
	a := e.login("admin")
	var uv api.UserView
	if st := a.do("POST", "/api/admin/users", api.NewUserRequest{Username: name, Role: role, Password: judgingtest.Password}, &uv); st != http.StatusCreated {
		t.Fatalf("create %s: %d", name, st)
	}
	return e.login(name)
}

// TestAdminEditsUsers: role, disabled flag and memberships change and are
// audited; the last enabled admin cannot be demoted or disabled.
func TestAdminEditsUsers(t *testing.T) {
	e := newSetupEnv(t)
	a := e.login("admin")
	ann := e.fx.Users["annotator1"]
	annotator := e.login("annotator1")

	role := api.RoleResearcher
	projects := []string{e.fx.Project.Name, e.fx.Other.Name}
	var uv api.UserView
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", ann.ID), api.UserUpdateRequest{Role: &role, Projects: &projects}, &uv); st != 200 {
		t.Fatalf("promote: %d", st)
	}
	if uv.Role != api.RoleResearcher || len(uv.Projects) != 2 {
		t.Fatalf("after promote: %+v", uv)
	}
	// The role applies to the open session at once.
	var me api.Me
	if annotator.do("GET", "/api/me", nil, &me); me.Role != api.RoleResearcher {
		t.Fatalf("session role %q", me.Role)
	}
	var n int
	if err := e.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action = 'user.update' AND entity_id = $1
		AND detail->'role'->>'to' = 'researcher'`, fmt.Sprint(ann.ID)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("audit rows %d, %v", n, err)
	}

	var prob api.Problem
	bad := "boss"
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", ann.ID), api.UserUpdateRequest{Role: &bad}, &prob); st != http.StatusBadRequest || prob.Field != "role" {
		t.Fatalf("bad role: %d %+v", st, prob)
	}
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", ann.ID), api.UserUpdateRequest{}, &prob); st != http.StatusBadRequest {
		t.Fatalf("empty update: %d", st)
	}
	missing := []string{"no-such-project"}
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", ann.ID), api.UserUpdateRequest{Projects: &missing}, &prob); st != http.StatusNotFound {
		t.Fatalf("unknown project: %d", st)
	}

	// Disabling ends the user's sessions.
	yes := true
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", ann.ID), api.UserUpdateRequest{Disabled: &yes}, &uv); st != 200 || !uv.Disabled {
		t.Fatalf("disable: %d %+v", st, uv)
	}
	if st := annotator.do("GET", "/api/me", nil, &me); st != http.StatusUnauthorized {
		t.Fatalf("disabled user's session: %d", st)
	}

	// The only admin cannot demote or disable themselves.
	self := e.fx.Users["admin"].ID
	down := api.RoleAnnotator
	for _, req := range []api.UserUpdateRequest{{Role: &down}, {Disabled: &yes}} {
		if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", self), req, &prob); st != http.StatusConflict || !strings.Contains(prob.Detail, "last enabled admin") {
			t.Fatalf("last admin: %d %+v", st, prob)
		}
	}
	// With a second admin, stepping down is fine.
	adminRole := api.RoleAdmin
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", e.fx.Users["researcher"].ID), api.UserUpdateRequest{Role: &adminRole}, &uv); st != 200 {
		t.Fatalf("second admin: %d", st)
	}
	if st := a.do("PATCH", fmt.Sprintf("/api/admin/users/%d", self), api.UserUpdateRequest{Role: &down}, &uv); st != 200 || uv.Role != api.RoleAnnotator {
		t.Fatalf("step down: %d %+v", st, uv)
	}
}
