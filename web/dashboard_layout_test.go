package web

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"boolpool/api"
)

// TestDashboardAgreementBeforeDerivedTable: the derived-qrels table (one
// row per query, 238 in the demo) is collapsed and comes after the
// agreement, so it no longer pushes the agreement 10,000 px down.
func TestDashboardAgreementBeforeDerivedTable(t *testing.T) {
	p := NewDashboardPage()
	p.project = "demo"
	p.apply(api.LiveSnapshot{Version: 1, Consensus: api.ConsensusSummary{Items: 6}})
	html := app.HTMLString(p)
	agreement := strings.Index(html, `id="agreement"`)
	derived := strings.Index(html, `id="derived"`)
	if agreement < 0 || derived < 0 {
		t.Fatalf("agreement at %d, derived at %d in %s", agreement, derived, html)
	}
	if derived < agreement {
		t.Errorf("the derived-qrels panel (at %d) comes before the agreement (at %d)", derived, agreement)
	}

	d := NewDerivedPanel().Project("demo")
	d.data = api.DerivedQrels{Queries: make([]api.DerivedQuery, 238)}
	html = app.HTMLString(d)
	details := strings.Index(html, `<details`) // attribute order varies
	table := strings.Index(html, `id="derived-table"`)
	end := strings.Index(html, `</details>`)
	if details < 0 || !(details < table && table < end) {
		t.Fatalf("the derived table is not inside a <details>: %s", html[:min(len(html), 2000)])
	}
	tag := html[details : strings.Index(html[details:], ">")+details]
	if !strings.Contains(tag, `id="derived-queries"`) || strings.Contains(tag, "open") {
		t.Errorf("the derived table's <details> is not the closed #derived-queries: %s", tag)
	}
	if !strings.Contains(html, "Per-query derived labels (238 queries)") {
		t.Errorf("the summary does not count the queries")
	}
}
