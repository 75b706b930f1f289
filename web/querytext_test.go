package web

import (
	"os"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// TestNegatedAtomOneCue: "… but not birds of Colombia" showed "not [NOT]
// birds of Colombia" struck through; the badge now appears only where the
// text does not say "not" already.
func TestNegatedAtomOneCue(t *testing.T) {
	render := func(text, atom string) string {
		start := strings.Index(text, atom)
		q := api.QueryView{Text: text, Atoms: []api.AtomView{{Index: 0, Start: start, End: start + len(atom), Negated: true}}}
		return app.HTMLString(app.P().Body(queryText(q)...))
	}
	if html := render("Birds of the Venezuelan Andes but not birds of Colombia", "birds of Colombia"); strings.Contains(html, "not-badge") {
		t.Errorf("a badge after the text's own 'not': %s", html)
	}
	if html := render("Birds of the Venezuelan Andes, Colombian birds excluded", "Colombian birds"); !strings.Contains(html, "not-badge") {
		t.Errorf("no badge where the text puts the negation after the atom: %s", html)
	}
	for before, want := range map[string]bool{"but not ": true, "without ": true, "(not ": true, "Nothing ": false, "knot ": false, "": false} {
		if got := negationWritten(before); got != want {
			t.Errorf("negationWritten(%q) = %v, want %v", before, got, want)
		}
	}
}

// TestPagerLabelsNameTheItems: the adjudication pager's "Next 5" said
// neither which items nor of how many.
func TestPagerLabelsNameTheItems(t *testing.T) {
	if got := nextPageLabel(50, 50, 55); got != "Items 51–55 of 55 →" {
		t.Errorf("next = %q", got)
	}
	if got := nextPageLabel(50, 50, 170); got != "Items 51–100 of 170 →" {
		t.Errorf("next = %q", got)
	}
	if got := prevPageLabel(50, 50); got != "← Items 1–50" {
		t.Errorf("previous = %q", got)
	}
}

// TestForbiddenPageShowsNoHeader: an annotator opening a researcher page
// saw its title and links ("Projects", "Set up a project…") above "Your
// role cannot open this page".
func TestForbiddenPageShowsNoHeader(t *testing.T) {
	page := func(id, role, state string) string {
		return app.HTMLString(NewPage(id).State(state).Nav(api.Me{Role: role}, id, "demo").
			Title("Dashboard · demo", app.A().Href("/setup").Text("Set up a project")).
			Content(app.P().Text("Your role cannot open this page.")))
	}
	if html := page("dashboard", api.RoleAnnotator, stateError); strings.Contains(html, "Dashboard · demo") || strings.Contains(html, "Set up a project") || !strings.Contains(html, "Not available") {
		t.Errorf("annotator on the dashboard sees the page's header")
	}
	if html := page("dashboard", api.RoleResearcher, stateError); !strings.Contains(html, "Dashboard · demo") {
		t.Errorf("a researcher's failed dashboard lost its title")
	}
	if html := page("admin", api.RoleResearcher, stateError); strings.Contains(html, "Dashboard · demo") {
		t.Errorf("a researcher on the admin page sees its header")
	}
	if html := page("feedback", api.RoleAnnotator, stateError); !strings.Contains(html, "Dashboard · demo") {
		t.Errorf("the annotator's own feedback page lost its title")
	}
}

// TestCheckboxLabelsBesideTheirBox: labels are blocks, so a checkbox's
// label sat on its own line; the stylesheet puts it beside the box.
func TestCheckboxLabelsBesideTheirBox(t *testing.T) {
	css, err := os.ReadFile("../static/boolpool.css")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(css), "\n") {
		if strings.HasPrefix(line, `input[type="checkbox"] + label`) && strings.Contains(line, "display: inline") {
			return
		}
	}
	t.Error(`no "input[type=checkbox] + label { display: inline }" rule in static/boolpool.css`)
}

// TestPausedPageHistoryIsACard: on a paused (or finished) judging page the
// recent items sat unstyled below the page's main area; they are now a
// card of their own inside it.
func TestPausedPageHistoryIsACard(t *testing.T) {
	p := NewJudgePage()
	p.state, p.paused = stateEmpty, "Paused: your gold accuracy is below the project's minimum."
	rel := 2
	p.history = []HistoryEntry{{Req: api.JudgmentRequest{ItemID: 7, Kind: api.KindRelevance, Relevance: &rel}, Item: "q1 · d1"}}
	html := app.HTMLString(p)
	mainAt, history, mainEnd := strings.Index(html, "<main"), strings.Index(html, `id="history"`), strings.Index(html, "</main>")
	if mainAt < 0 || !(mainAt < history && history < mainEnd) {
		t.Fatalf("the recent items are not inside <main> (main %d, history %d, /main %d)", mainAt, history, mainEnd)
	}
	tagStart := strings.LastIndex(html[:history], "<section")
	if tag := html[tagStart : history+strings.Index(html[history:], ">")]; !strings.Contains(tag, "standalone") {
		t.Errorf("the recent items are not a standalone card: %s", tag)
	}
}

// TestFailedExportListedWithReason: failed exports were neither recorded
// nor shown; the admin's list shows them with their reason.
func TestFailedExportListedWithReason(t *testing.T) {
	ok := api.ExportSnapshot{ID: "a", Format: "csv", Counts: map[string]any{"lines": 3.0}}
	bad := api.ExportSnapshot{ID: "b", Format: "trec-run", Failed: true, Error: `export: no run named "x"`, Counts: map[string]any{}}
	if got := snapshotResult(ok); got != "lines 3" {
		t.Errorf("ok export: %q", got)
	}
	if got := snapshotResult(bad); got != `Failed: export: no run named "x"` {
		t.Errorf("failed export: %q", got)
	}
	x := &ExportPanel{Iprojects: []string{"demo"}, snapshots: []api.ExportSnapshot{bad, ok}}
	html := app.HTMLString(x)
	if !strings.Contains(html, `class="failed"`) || !strings.Contains(html, "Failed: export: no run named") {
		t.Errorf("the failed export is not in the table: %s", html)
	}
}
