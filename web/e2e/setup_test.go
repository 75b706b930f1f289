//go:build !js

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/api"
)

// choose sets a select's value and fires the change event the page
// listens to.
func (e *env) choose(sel, value string) {
	e.t.Helper()
	e.setValue(sel, value, "change")
}

const setupDocs = `{"title": "Andean condor", "text": "The Andean condor is a large bird of the Andes."}
{"title": "Heat (1995 film)", "text": "Heat is a 1995 American crime film."}
{"title": "Colombian bird", "text": "A bird of Colombia, not of the Andes."}
`

const setupQueries = `{"query": "Birds of the Andes but not of Colombia", "docs": ["Andean condor"], "original_query": "<mark>Birds of the Andes</mark> that are not <mark>Birds of Colombia</mark>", "scores": null, "metadata": {"template": "_ that are not _", "domain": "animals"}}
{"query": "1990s crime films", "docs": ["Heat (1995 film)"], "original_query": "<mark>1990s crime films</mark>", "scores": null, "metadata": {"template": "_", "domain": "films"}}
`

// TestProjectSetupAndRoleEditing: a researcher creates a project, sees a
// bad QUEST file rejected with its line and field, imports a small QUEST
// set, starts a bm25 retrieval job and watches its progress reach done; an
// admin then makes an annotator a researcher, and is refused demoting the
// last admin.
func TestProjectSetupAndRoleEditing(t *testing.T) {
	e := newEnv(t, 1)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	docs := write("documents.jsonl", setupDocs)
	queries := write("queries.jsonl", setupQueries)
	bad := write("broken.jsonl", strings.SplitN(setupQueries, "\n", 2)[0]+"\n"+`{"query": "no marks", "docs": "not a list"}`+"\n")

	// The researcher page links the setup page; create a project there.
	e.login("researcher")
	e.do("open setup", chromedp.WaitVisible(chromedp.CSS(`#researcher[data-wasm="1"] #setup-link`)),
		chromedp.Click(chromedp.CSS(`#setup-link`)),
		chromedp.WaitVisible(chromedp.CSS(`#setup[data-wasm="1"][data-state="ready"] #new-project`)))
	e.setInput("#project-name", "birds")
	e.setInput("#project-title", "Andean birds")
	e.do("create project", chromedp.Click(chromedp.CSS(`#project-create`)))
	e.waitJS("project page", `document.querySelector('#setup[data-project="birds"][data-state="ready"] #import-form')`, 20*time.Second)

	// A bad file: the page names file, line and field; nothing is kept.
	e.do("choose a bad file", chromedp.SetUploadFiles(chromedp.CSS(`#import-files`), []string{bad}))
	e.do("import it", chromedp.Click(chromedp.CSS(`#import-submit`)))
	e.waitJS("import error", `document.querySelector("#import-error")`, 20*time.Second)
	if msg := eval[string](e, `document.querySelector("#import-error").textContent`); !strings.Contains(msg, "broken.jsonl:2") {
		t.Errorf("import error = %q, want it to name broken.jsonl:2", msg)
	}
	e.shot("setup-01-import-error")

	e.do("choose QUEST files", chromedp.SetUploadFiles(chromedp.CSS(`#import-files`), []string{docs, queries}))
	e.do("import them", chromedp.Click(chromedp.CSS(`#import-submit`)))
	e.waitJS("import result", `document.querySelector('#import-result tr[data-file="queries.jsonl"]')`, 20*time.Second)
	e.waitJS("counts", `document.querySelector('#setup-counts[data-documents="3"][data-queries="2"]')`, 10*time.Second)
	e.shot("setup-02-imported")

	// A bm25 run as a background job, watched until done.
	e.choose("#retrieve-method", "bm25")
	e.setInput("#retrieve-depth", "10")
	e.do("start retrieval", chromedp.Click(chromedp.CSS(`#retrieve-start`)))
	e.waitJS("job done", `document.querySelector('#job-list tr[data-state="done"]')`, 30*time.Second)
	row := eval[map[string]string](e, `({...document.querySelector('#job-list tr[data-state="done"]').dataset})`)
	if row["done"] != "2" || row["total"] != "2" {
		t.Errorf("finished job row %v, want 2 of 2 queries", row)
	}
	if txt := eval[string](e, `document.querySelector('#job-list tr[data-state="done"]').textContent`); !strings.Contains(txt, "retrieve bm25") || !strings.Contains(txt, "retrieving: 2 / 2") {
		t.Errorf("job row text %q", txt)
	}
	eval[bool](e, `(document.querySelector("#jobs").scrollIntoView(), true)`)
	e.shot("setup-03-job-done")
	ctx := context.Background()
	p, err := e.st.ProjectByName(ctx, "birds")
	if err != nil {
		t.Fatal(err)
	}
	if runs, err := e.st.ListRuns(ctx, p.ID); err != nil || len(runs) != 1 || runs[0].Name != "bm25" {
		t.Fatalf("stored runs %+v %v", runs, err)
	}

	// An admin makes annotator1 a researcher.
	e.logout()
	e.login("admin")
	e.do("open admin", chromedp.Navigate(e.url+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#admin[data-wasm="1"][data-state="ready"] tr[data-user="annotator1"]`)))
	e.choose("#role-annotator1", api.RoleResearcher)
	e.do("save", chromedp.Click(chromedp.CSS(`#save-annotator1`)))
	e.waitJS("role changed", `document.querySelector('tr[data-user="annotator1"][data-role="researcher"]')`, 20*time.Second)
	if u, err := e.st.UserByUsername(ctx, "annotator1"); err != nil || u.Role != api.RoleResearcher {
		t.Fatalf("annotator1 after the change: %+v %v", u, err)
	}
	e.shot("setup-04-role-changed")

	// The only admin cannot demote themselves.
	e.choose("#role-admin", api.RoleAnnotator)
	e.do("save admin", chromedp.Click(chromedp.CSS(`#save-admin`)))
	e.waitJS("refusal", `(document.querySelector('#admin main .notice') || {}).textContent?.includes("last enabled admin")`, 20*time.Second)
	if u, err := e.st.UserByUsername(ctx, "admin"); err != nil || u.Role != api.RoleAdmin {
		t.Fatalf("admin after the refused change: %+v %v", u, err)
	}
}
