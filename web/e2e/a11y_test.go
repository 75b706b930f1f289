//go:build !js

package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"boolpool/api"
	"boolpool/internal/judgingtest"
)

// TestAccessibilityEveryPage (issue 17, accessibility gap): on each main
// page every visible text contrasts at least 4.5:1 (3:1 when large) with
// its effective background, every input, select, textarea and button has
// an accessible name, and Tab reaches the page's controls with a visible
// focus ring.
func TestAccessibilityEveryPage(t *testing.T) {
	e := newEnv(t, 2)
	if err := judgingtest.AddRuns(context.Background(), e.st, e.fx); err != nil {
		t.Fatal(err)
	}
	judgeFirstShared(t, e, 3, 0, []api.Attribution{{Atom: 0, Sentences: []int{1}, Satisfied: api.SatisfiedYes}}, nil)

	e.do("login page", chromedp.Navigate(e.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`#login[data-wasm="1"]`)))
	e.checkA11y(t, "login", "i17-a11y-login")
	e.checkKeyboardFocus(t, "login", 4, "#username", "#password", "#login button[type=submit]")

	e.login("annotator1")
	e.do("judge page", chromedp.Navigate(e.url+"/judge/fixture"),
		chromedp.WaitVisible(chromedp.CSS(`#judge[data-wasm="1"][data-state="ready"]`)))
	e.checkA11y(t, "judge", "i17-a11y-judge")
	e.logout()

	e.login("researcher")
	// tabs: 33 stops (30 before the navigation bar gained Feedback,
	// Review and Browse, issue 25).
	for _, pg := range []struct {
		name, path, ready string
		tabs              int
		wanted            []string
	}{
		{"dashboard", "/dashboard/fixture", `#dashboard[data-wasm="1"] #pool-progress`, 33, nil},
		{"adjudicate", "/adjudicate/fixture", `#adjudication[data-wasm="1"] #adjudication-item`, 33, []string{".queue-entry", "#adjudication-note"}},
		{"pools", "/pools/fixture", `#poolbuilder[data-wasm="1"][data-state="ready"] #pool-runs`, 33, []string{`input[data-run="bm25"]`, "#pool-preview"}},
		{"queries", "/queries/fixture", `#queries[data-wasm="1"][data-state="ready"] #query-list`, 33, []string{"#decompose-all", "button.edit"}},
		{"setup", "/setup/fixture", `#setup[data-wasm="1"][data-state="ready"] #import-form`, 33, []string{"#import-files"}},
	} {
		e.do("open "+pg.name, chromedp.Navigate(e.url+pg.path), chromedp.WaitVisible(chromedp.CSS(pg.ready)))
		e.checkA11y(t, pg.name, "i17-a11y-"+pg.name)
		e.checkKeyboardFocus(t, pg.name, pg.tabs, pg.wanted...)
	}
	e.logout()

	e.login("admin")
	e.do("open admin", chromedp.Navigate(e.url+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#admin[data-wasm="1"][data-state="ready"] #exports`)))
	e.checkA11y(t, "admin", "i17-a11y-admin")
	e.checkKeyboardFocus(t, "admin", 60, "#role-annotator1", "#save-admin", "#new-username", "#export-csv")
}
