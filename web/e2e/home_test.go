//go:build !js

package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"boolpool/internal/judgingtest"
)

// Issue 25, Major 4: an annotator in two projects lands on a home page
// listing both with their progress, reaches the second from it and from
// the navigation, and sees their progress there grow.
func TestAnnotatorHomeListsProjects(t *testing.T) {
	e := newEnv(t, 1)
	if _, err := judgingtest.AddOtherProjectItems(context.Background(), e.st, e.fx, "annotator1", 2); err != nil {
		t.Fatal(err)
	}
	e.login("annotator1")
	e.waitJS("the home page's project list", `location.pathname === "/" && document.querySelectorAll('#home[data-loaded="true"] #home-projects li.home-project').length === 2`, 15*time.Second)
	e.shot("home-projects")
	row := func(project, kind string) [2]string {
		v := eval[[]string](e, `(() => { const r = document.querySelector('li.home-project[data-project="`+project+`"] li.home-kind[data-kind="`+kind+`"]');
			return r ? [r.dataset.done, r.dataset.total] : ["", ""]; })()`)
		return [2]string{v[0], v[1]}
	}
	if got := row("fixture", "relevance"); got != [2]string{"0", "6"} {
		t.Errorf("fixture's relevance row: done %s of %s, want 0 of 6", got[0], got[1])
	}
	if got := row("fixture-other", "relevance"); got != [2]string{"0", "2"} {
		t.Errorf("fixture-other's relevance row: done %s of %s, want 0 of 2", got[0], got[1])
	}
	// The second project's judging page, from its row.
	e.do("open the second project", chromedp.Click(chromedp.CSS(`li.home-project[data-project="fixture-other"] li.home-kind[data-kind="relevance"] a`)))
	e.judgeReady("the second project's judging page")
	if p := eval[string](e, `location.pathname`); p != "/judge/fixture-other" {
		t.Fatalf("the row's link opened %s, want /judge/fixture-other", p)
	}
	e.closeFirstVisitInstructions()
	e.judgeByKeys("2", "p")
	e.waitSaved()
	// Back home by the navigation's "My projects": one judged there.
	e.do("My projects", chromedp.Click(chromedp.CSS(`nav.navbar ul a[href="/"]`)))
	e.waitJS("one judged in the second project", `(document.querySelector('#home[data-loaded="true"] li.home-project[data-project="fixture-other"] li.home-kind[data-kind="relevance"]') || {dataset: {}}).dataset.done === "1"`, 15*time.Second)
	if got := row("fixture", "relevance"); got[0] != "0" {
		t.Errorf("fixture's relevance row after judging in the other project: done %s, want 0", got[0])
	}
	if txt := eval[string](e, `document.querySelector('li.home-project[data-project="fixture-other"] .home-count').textContent`); txt != "1 of 2 judged · 1 left" {
		t.Errorf("fixture-other's count reads %q", txt)
	}
	e.shot("home-projects-after")
}
