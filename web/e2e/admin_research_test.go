//go:build !js

package e2e

import (
	"archive/zip"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/internal/judgingtest"
)

// TestAdminDownloadsAFile (issue 17, defect 1 and the BEIR gap): a plain
// click on an admin "Download …" button saves the file (the go-app router
// does not take the link), and the BEIR export arrives as one zip with
// corpus, queries and qrels.
func TestAdminDownloadsAFile(t *testing.T) {
	e := newEnv(t, 1)
	dir := e.allowDownloads()
	e.login("admin")
	e.do("open admin", chromedp.Navigate(e.url+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#admin[data-wasm="1"][data-state="ready"] #exports`)))
	eval[bool](e, `(document.querySelector("#exports").scrollIntoView(), true)`)
	e.shot("i17-d1-admin-exports")

	e.do("click Download CSV", chromedp.Click(chromedp.CSS(`#export-csv`)))
	p := e.waitDownload(dir, ".csv", 20*time.Second)
	if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), "relevance") {
		t.Errorf("downloaded CSV %s: %.200q %v", p, b, err)
	}
	if path := eval[string](e, `location.pathname`); path != "/admin" {
		t.Errorf("after the download the page is %s, want /admin", path)
	}
	if eval[bool](e, `!document.querySelector('#admin[data-wasm="1"] #exports')`) {
		t.Error("the admin page is gone after the download")
	}

	e.do("click Download BEIR", chromedp.Click(chromedp.CSS(`#export-beir`)))
	z := e.waitDownload(dir, ".zip", 20*time.Second)
	r, err := zip.OpenReader(z)
	if err != nil {
		t.Fatalf("BEIR zip: %v", err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "fixture-beir/corpus.jsonl fixture-beir/queries.jsonl fixture-beir/qrels/test.tsv" {
		t.Errorf("BEIR zip holds %s", got)
	}
	e.shot("i17-d1-downloaded")
}

// TestPoolBuilderPreviewAfterNoRun (issue 17, defect 2): Preview with no
// run ticked says so, and a preview after ticking runs then appears (the
// page did not freeze).
func TestPoolBuilderPreviewAfterNoRun(t *testing.T) {
	e := newEnv(t, 1)
	if err := judgingtest.AddRuns(context.Background(), e.st, e.fx); err != nil {
		t.Fatal(err)
	}
	e.login("researcher")
	e.do("open pool builder", chromedp.Navigate(e.url+"/pools/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#poolbuilder[data-wasm="1"][data-state="ready"] #pool-runs`)))
	e.do("preview with no run", chromedp.Click(chromedp.CSS(`#pool-preview`)))
	e.waitJS("no-run message", `(document.querySelector("#pool-message") || {}).textContent === "Choose at least one run."`, 10*time.Second)
	e.shot("i17-d2-no-run")
	for try := 1; try <= 3; try++ {
		e.do("tick a run", chromedp.Click(chromedp.CSS(`input[data-run="bm25"]`)))
		e.do("preview", chromedp.Click(chromedp.CSS(`#pool-preview`)))
		e.waitJS("composition", `document.querySelector('#poolbuilder[data-previewed="true"] #pool-composition tr[data-run="bm25"]')`, 10*time.Second)
		e.do("untick the run", chromedp.Click(chromedp.CSS(`input[data-run="bm25"]`)))
		e.do("preview with no run again", chromedp.Click(chromedp.CSS(`#pool-preview`)))
		e.waitJS("no-run message again", `(document.querySelector("#pool-message") || {}).textContent === "Choose at least one run." && !document.querySelector("#pool-composition")`, 10*time.Second)
	}
	e.do("tick runs", chromedp.Click(chromedp.CSS(`input[data-run="bm25"]`)), chromedp.Click(chromedp.CSS(`input[data-run="dense"]`)))
	e.do("preview", chromedp.Click(chromedp.CSS(`#pool-preview`)))
	e.waitJS("composition", `document.querySelector('#poolbuilder[data-previewed="true"] #pool-composition tr[data-run="dense"]')`, 10*time.Second)
	eval[bool](e, `(document.querySelector("#pool-preview-result").scrollIntoView(), true)`)
	e.shot("i17-d2-preview-after")
}

// TestAdminNoticesAndRoles (issue 17, defect 5): the refusal to demote the
// last admin is shown next to the row in plain words and the dropdown goes
// back to the stored role; an annotator visiting /admin is told the page is
// for admins and offered no forms.
func TestAdminNoticesAndRoles(t *testing.T) {
	e := newEnv(t, 1)
	e.login("admin")
	e.do("open admin", chromedp.Navigate(e.url+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#admin[data-wasm="1"][data-state="ready"] tr[data-user="admin"]`)))
	// Scroll so the form is in view and the top of the page is not.
	eval[bool](e, `(document.querySelector("#new-user").scrollIntoView(), true)`)
	e.choose("#role-admin", api.RoleAnnotator)
	e.do("save admin", chromedp.Click(chromedp.CSS(`#save-admin`)))
	e.waitJS("refusal", `(document.querySelector('#admin-message') || {}).textContent?.includes("last enabled admin")`, 20*time.Second)
	msg := eval[string](e, `document.querySelector("#admin-message").textContent`)
	for _, internal := range []string{"store:", "conflict", "update user"} {
		if strings.Contains(msg, internal) {
			t.Errorf("message %q shows internal text %q", msg, internal)
		}
	}
	if !eval[bool](e, `(() => { const r = document.querySelector("#admin-message").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`) {
		t.Error("the refusal is not on screen")
	}
	e.waitJS("role reverts", `document.querySelector("#role-admin").value === "admin"`, 10*time.Second)
	e.shot("i17-d5-refused")

	// Creating an existing account: the notice is next to the form.
	e.setInput("#new-username", "annotator1")
	e.setInput("#new-password", "long enough password")
	e.do("create duplicate", chromedp.Click(chromedp.CSS(`#new-user button[type=submit]`)))
	e.waitJS("create refusal", `(document.querySelector('#new-user-message') || {}).textContent?.startsWith("Could not create")`, 20*time.Second)
	if !eval[bool](e, `(() => { const r = document.querySelector("#new-user-message").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`) {
		t.Error("the create refusal is not on screen")
	}
	e.shot("i17-d5-create-refused")

	e.logout()
	e.login("annotator1")
	e.do("open admin as annotator", chromedp.Navigate(e.url+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#admin[data-wasm="1"][data-state="error"]`)))
	if txt := eval[string](e, `document.querySelector("#admin main").textContent`); !strings.Contains(txt, "for admins only") {
		t.Errorf("annotator sees %q", txt)
	}
	if n := eval[int](e, `document.querySelectorAll("#admin main form, #admin main input, #admin main select, #exports").length`); n != 0 {
		t.Errorf("annotator is offered %d forms/controls", n)
	}
	e.shot("i17-d5-annotator")
}

// TestNewProjectIsYours (issue 17, defect 6): right after creating a project
// its setup page shows it as the researcher's own, without a reload.
func TestNewProjectIsYours(t *testing.T) {
	e := newEnv(t, 1)
	e.login("researcher")
	e.do("open setup", chromedp.Navigate(e.url+"/setup"),
		chromedp.WaitVisible(chromedp.CSS(`#setup[data-wasm="1"][data-state="ready"] #new-project`)))
	e.setInput("#project-name", "fresh")
	e.do("create project", chromedp.Click(chromedp.CSS(`#project-create`)))
	e.waitJS("project page", `document.querySelector('#setup[data-project="fresh"][data-state="ready"] #import-form')`, 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	if txt := eval[string](e, `document.querySelector("#setup main").textContent`); strings.Contains(txt, "not one of yours") {
		t.Errorf("new project page says %q", "This project is not one of yours")
	}
	e.waitJS("counts", `document.querySelector('#setup-counts[data-documents="0"]')`, 10*time.Second)
	e.shot("i17-d6-new-project")
}

// TestSetupJobsListSaysWhatIsCut (issue 17, pagination gap): the setup
// page's job list says when it lists only the 50 most recent jobs and
// shows them all on request.
func TestSetupJobsListSaysWhatIsCut(t *testing.T) {
	e := newEnv(t, 1)
	if _, err := e.st.Pool().Exec(context.Background(), `INSERT INTO jobs (project_id, kind, params, state, phase, done, total)
		SELECT $1, 'retrieve', '{"method": "bm25"}', 'done', 'retrieving', 2, 2 FROM generate_series(1, 55)`, e.fx.Project.ID); err != nil {
		t.Fatal(err)
	}
	e.login("researcher")
	e.do("open setup", chromedp.Navigate(e.url+"/setup/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#setup[data-wasm="1"][data-state="ready"] #job-list`)))
	if got := eval[string](e, `(document.querySelector("#jobs-count") || {}).textContent || ""`); !strings.HasPrefix(got, "The 50 most recent jobs are listed") {
		t.Errorf("jobs count = %q", got)
	}
	if n := eval[int](e, `document.querySelectorAll("#job-list tbody tr").length`); n != 50 {
		t.Errorf("%d jobs listed, want 50", n)
	}
	eval[bool](e, `(document.querySelector("#jobs").scrollIntoView(), true)`)
	e.shot("i17-gap-jobs-cut")
	e.do("show all jobs", chromedp.Click(chromedp.CSS(`#jobs-all`)))
	e.waitJS("all jobs", `(document.querySelector("#jobs-count") || {}).textContent === "All 55 jobs." && document.querySelectorAll("#job-list tbody tr").length === 55`, 10*time.Second)
}
