package e2e

import (
	"testing"
	"time"
)

// Issue 25: the first submit after a page load took ~280 ms to "saved",
// later ones ~40 ms. Measured in the page: Enter → next item on screen,
// Enter → the sync badge back to saved, and the POST /api/judgments round
// trip (resource timing) of each submit. Before wakeForFrame the first
// Enter → next item took 228–241 ms in about half the runs (saved
// 279–341 ms), the later ones 3–15 ms, with no long task in the page and
// the server's POST at 10–40 ms throughout: the update waited for its
// frame until another browser event woke the Go runtime. The bound leaves
// room for a loaded machine.
func TestFirstSubmitIsNotSlow(t *testing.T) {
	e := newEnv(t, 1)
	e.login("annotator1")
	e.judgeReady("judge page")
	e.closeFirstVisitInstructions()
	const arm = `window.__bpNext = new Promise((resolve) => {
		const item = document.querySelector("#judge").dataset.item;
		let t0 = 0;
		addEventListener("keydown", (e) => { if (e.key === "Enter") t0 = performance.now(); }, {capture: true, once: true});
		const mo = new MutationObserver(() => {
			const root = document.querySelector("#judge");
			if (t0 && root && root.dataset.item !== item && root.dataset.state === "ready") { mo.disconnect(); resolve(performance.now() - t0); }
		});
		mo.observe(document.body, {attributes: true, childList: true, subtree: true});
	}); true`
	// Enter → the sync badge back to "saved" (the judgment sent and
	// acknowledged).
	const armSaved = `window.__bpSaved = new Promise((resolve) => {
		let t0 = 0, left = false;
		addEventListener("keydown", (e) => { if (e.key === "Enter") t0 = performance.now(); }, {capture: true, once: true});
		const mo = new MutationObserver(() => {
			const s = document.querySelector("#sync-status");
			if (!t0 || !s) return;
			if (s.dataset.state !== "saved") left = true;
			else if (left) { mo.disconnect(); resolve(performance.now() - t0); }
		});
		mo.observe(document.body, {attributes: true, childList: true, subtree: true});
	}); true`
	eval[bool](e, `window.__bpLong = []; new PerformanceObserver((l) => { for (const x of l.getEntries()) window.__bpLong.push([Math.round(x.startTime), Math.round(x.duration)]); }).observe({type: "longtask"}); addEventListener("keydown", (e) => { if (e.key === "Enter") window.__bpLong.push(["enter", Math.round(performance.now())]); }, {capture: true}); true`)
	var next, saved []float64
	for i := 0; i < 3; i++ {
		e.key("2")
		e.key("p")
		eval[bool](e, arm)
		eval[bool](e, armSaved)
		e.key("\r")
		next = append(next, eval[float64](e, `Promise.race([window.__bpNext, new Promise((r) => setTimeout(() => r(-1), 5000))])`))
		saved = append(saved, eval[float64](e, `Promise.race([window.__bpSaved, new Promise((r) => setTimeout(() => r(-1), 5000))])`))
		e.waitSaved()
		time.Sleep(300 * time.Millisecond)
	}
	posts := eval[[]float64](e, `performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/judgments")).map((r) => r.duration)`)
	all := eval[string](e, `JSON.stringify(performance.getEntriesByType("resource").filter((r) => r.name.includes("/api/")).map((r) => [r.name.replace(location.origin, ""), Math.round(r.startTime), Math.round(r.duration)]))`)
	t.Logf("Enter → next item, ms: %v", next)
	t.Logf("Enter → saved, ms: %v", saved)
	t.Logf("long tasks [start, ms] and Enter keydowns: %s", eval[string](e, `JSON.stringify(window.__bpLong)`))
	t.Logf("POST /api/judgments durations, ms: %v", posts)
	t.Logf("api resources [path, start, duration]: %s", all)
	// The stall this guards against was 228–341 ms (go-app's frame waiting
	// for the next timer); a fixed page shows the next item in 5–50 ms.
	// The bound leaves room for a loaded machine.
	if next[0] < 0 || next[0] > 200 {
		t.Errorf("first submit: Enter → next item %.0f ms, want at most 200 ms (later submits: %.0f, %.0f ms)", next[0], next[1], next[2])
	}
}
