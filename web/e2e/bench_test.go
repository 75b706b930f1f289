//go:build !js

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"boolpool/internal/judgingtest"
	"boolpool/server/httpapi"
)

// BenchmarkWasmSize reports the size of app.wasm raw, gzip (best) and
// brotli (quality 9), as served.
func BenchmarkWasmSize(b *testing.B) {
	requireBrowser(b)
	raw, err := os.ReadFile(filepath.Join(staticDir, "app.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	gz, err := httpapi.GzipBytes(raw)
	if err != nil {
		b.Fatal(err)
	}
	br, err := httpapi.BrotliBytes(raw)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
	}
	b.ReportMetric(float64(len(raw)), "raw-bytes")
	b.ReportMetric(float64(len(gz)), "gzip-bytes")
	b.ReportMetric(float64(len(br)), "brotli-bytes")
}

// BenchmarkTimeToInteractive measures a cold load of the login page in
// headless Chromium (HTTP cache and service worker bypassed): navigation
// start until the wasm client has mounted (data-wasm="1").
func BenchmarkTimeToInteractive(b *testing.B) {
	e := newEnv(b, 1)
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Minute)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate(e.url+"/login"), chromedp.WaitVisible(chromedp.CSS(`#login[data-wasm="1"]`))); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		n++
		b.StopTimer()
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms-tti")
}

// BenchmarkSubmitToNext measures, in the browser, the time from pressing
// Enter on a filled judgment to the next item being on screen (the judgment
// is queued durably first; sending it is asynchronous). Between submits the
// annotator "reads" for thinkTime, as a person does, so each submit starts
// with the previous one's background work (sending, refilling the queue,
// storage writes) done. Reported: the median and 90th percentile over the
// submits, in ms.
func BenchmarkSubmitToNext(b *testing.B) {
	benchSubmitToNext(b, thinkTime, "ms-submit-next", "ms-submit-next-p90")
}

// BenchmarkSubmitToNextBackToBack is BenchmarkSubmitToNext without the
// reading time: each submit follows the previous one as fast as the
// DevTools protocol sends keys, so it overlaps the previous submit's
// background work (no annotator judges that fast; a stress figure).
func BenchmarkSubmitToNextBackToBack(b *testing.B) {
	benchSubmitToNext(b, 0, "ms-b2b-next", "ms-b2b-next-p90")
}

// thinkTime is the shortest reading time per item the submit benchmark
// assumes (crowd annotators take seconds).
const thinkTime = 500 * time.Millisecond

func benchSubmitToNext(b *testing.B, think time.Duration, unit, unitP90 string) {
	e := newEnv(b, 1)
	if err := judgingtest.AddRelevanceItems(context.Background(), e.st, e.fx, 400); err != nil {
		b.Fatal(err)
	}
	e.startJudging("annotator1")
	var ms []float64
	for b.Loop() {
		if think > 0 {
			b.StopTimer()
			time.Sleep(think)
			b.StartTimer()
		}
		e.key("2")
		e.key("p")
		v := submitToNextMs(e)
		if v < 0 {
			b.Fatalf("iteration %d: next item never shown; page state %s", len(ms), eval[string](e, `JSON.stringify(document.querySelector("#judge").dataset)`))
		}
		ms = append(ms, v)
	}
	b.StopTimer()
	e.waitJS("all saved", `document.querySelector("#sync-status").dataset.state === "saved"`, 60*time.Second)
	reportMedianP90(b, ms, unit, unitP90)
}

// BenchmarkFirstSubmitToNext measures the first submit after a page load
// (issue 25: 228–341 ms before wakeForFrame, later submits 3–15 ms): each
// iteration loads the judging page again, fills the item on screen and
// submits it; the time from Enter to the next item on screen, in the page.
// TestFirstSubmitIsNotSlow checks the order of that submit's work.
func BenchmarkFirstSubmitToNext(b *testing.B) {
	e := newEnv(b, 1)
	if err := judgingtest.AddRelevanceItems(context.Background(), e.st, e.fx, 100); err != nil {
		b.Fatal(err)
	}
	e.startJudging("annotator1")
	var ms []float64
	for b.Loop() {
		b.StopTimer()
		e.do("reload", chromedp.Reload())
		e.judgeReady("judge page again")
		e.key("2")
		e.key("p")
		b.StartTimer()
		v := submitToNextMs(e)
		if v < 0 {
			b.Fatalf("iteration %d: next item never shown", len(ms))
		}
		ms = append(ms, v)
		b.StopTimer()
		e.waitSaved()
		b.StartTimer()
	}
	reportMedianP90(b, ms, "ms-first-submit-next", "ms-first-submit-next-p90")
}

// reportMedianP90 reports the median and 90th percentile of ms.
func reportMedianP90(b *testing.B, ms []float64, unit, unitP90 string) {
	sort.Float64s(ms)
	b.ReportMetric(ms[len(ms)/2], unit)
	b.ReportMetric(ms[len(ms)*9/10], unitP90)
}
