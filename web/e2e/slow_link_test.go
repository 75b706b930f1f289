//go:build !js

package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"boolpool/internal/judgingtest"
)

// fast3G is Chrome's "Fast 3G" as the issue measured it: about 1.6 Mbit/s
// down, 750 kbit/s up, 150 ms round trip.
var fast3G = network.Conditions{Latency: 150, DownloadThroughput: 1.6e6 / 8, UploadThroughput: 750e3 / 8}

// TestSlowLinkFirstAndReturningVisit opens the judging page of a signed-in
// annotator on an emulated "Fast 3G" link twice in one browser profile.
// First visit: the server-rendered loading screen shows the project's
// instructions long before the app runs. Returning visit: app.wasm comes
// from the service worker's cache or the HTTP cache, the server sends no
// wasm byte, and the first item appears. Both times to the first item are
// logged (run with -v).
func TestSlowLinkFirstAndReturningVisit(t *testing.T) {
	e := newEnv(t, 1)
	gzipSize := judgingtest.WaitWasmEncoding(t, e.url, "gzip", 2*time.Minute)
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Minute)
	defer cancel()

	// Sign in without loading the app: a login call from a page that is
	// not the app's.
	e.do("plain page", chromedp.Navigate(e.url+"/healthz"))
	if st := eval[int](e, `fetch("/api/auth/login", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({username: "annotator1", password: "`+judgingtest.Password+`"})}).then(r => r.status)`); st != 200 {
		t.Fatalf("login: %d", st)
	}

	// The wasm responses the page receives (not the service worker's own).
	var mu sync.Mutex
	var wasmResponses []*network.Response
	if err := chromedp.Listen(ctx, func(ev any) {
		if r, ok := ev.(*network.EventResponseReceived); ok && strings.Contains(r.Response.URL, "/web/app") && strings.HasSuffix(r.Response.URL, ".wasm") {
			mu.Lock()
			wasmResponses = append(wasmResponses, r.Response)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{&fast3G}}); err != nil {
		t.Fatal(err)
	}

	const firstItem = `(document.querySelector('#judge[data-wasm="1"][data-state="ready"]') || {dataset: {}}).dataset.item`
	// First visit.
	before, beforeRequests := e.wasmBytes.Load(), e.wasmRequests.Load()
	start := time.Now()
	e.do("first visit", chromedp.Navigate(e.url+"/judge/fixture"))
	e.waitJS("instructions while loading", `document.querySelector("#app-wasm-loader #loading-instructions")`, 30*time.Second)
	instructionsAfter := time.Since(start)
	loaderText := eval[string](e, `document.querySelector("#loading-instructions").innerText`)
	if !strings.Contains(loaderText, "Instructions") || len(loaderText) < 80 {
		t.Errorf("loading screen instructions: %q", loaderText)
	}
	if eval[bool](e, `!!document.querySelector('#judge[data-wasm="1"]')`) {
		t.Error("the app ran before the instructions were seen: nothing to measure")
	}
	e.shot("slow-link-loading-instructions")
	e.waitJS("first item (first visit)", firstItem, 3*time.Minute)
	firstVisit := time.Since(start)
	firstBytes := e.wasmBytes.Load() - before
	firstRequests := e.wasmRequests.Load() - beforeRequests
	if firstBytes == 0 {
		t.Error("the first visit fetched no wasm from the server")
	}
	// The service worker has installed and holds the hashed wasm.
	var hashed string
	for deadline := time.Now().Add(2 * time.Minute); hashed == ""; time.Sleep(200 * time.Millisecond) {
		hashed = eval[string](e, `caches.keys().then((ks) => Promise.all(ks.map((k) => caches.open(k).then((c) => c.keys()))))
			.then((all) => all.flat().map((r) => r.url).find((u) => /\/web\/app\.[0-9a-f]+\.wasm$/.test(u)) || "")`)
		if time.Now().After(deadline) {
			t.Fatal("the service worker never cached the hashed wasm")
		}
	}

	// Returning visit.
	e.do("leave", chromedp.Navigate("about:blank"))
	mu.Lock()
	firstEncoding := "?"
	if len(wasmResponses) > 0 {
		firstEncoding = fmt.Sprint(wasmResponses[0].Headers["Content-Encoding"])
	}
	wasmResponses = nil
	mu.Unlock()
	before = e.wasmBytes.Load()
	start = time.Now()
	e.do("returning visit", chromedp.Navigate(e.url+"/judge/fixture"))
	e.waitJS("first item (returning visit)", firstItem, 2*time.Minute)
	returning := time.Since(start)
	if n := e.wasmBytes.Load() - before; n != 0 {
		t.Errorf("the returning visit fetched %d wasm bytes from the server", n)
	}
	mu.Lock()
	returned := wasmResponses
	wasmResponses = nil
	mu.Unlock()
	if len(returned) == 0 {
		t.Fatal("the returning visit loaded no wasm")
	}
	for _, r := range returned {
		if r.URL != hashed {
			t.Errorf("wasm loaded from %s, want the hashed %s", r.URL, hashed)
		}
		if !r.FromDiskCache && !(r.FromServiceWorker && r.ServiceWorkerResponseSource == network.ServiceWorkerResponseSourceCacheStorage) {
			t.Errorf("wasm of the returning visit: service worker %v (%s), disk cache %v: from the network", r.FromServiceWorker, r.ServiceWorkerResponseSource, r.FromDiskCache)
		}
	}

	// Without the service worker (a browser that has none, or cleared it):
	// the immutable HTTP cache answers without asking the server.
	if _, err := chromedp.Call(ctx, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		t.Fatal(err)
	}
	e.do("leave again", chromedp.Navigate("about:blank"))
	requests := e.wasmRequests.Load()
	start = time.Now()
	e.do("visit without the service worker", chromedp.Navigate(e.url+"/judge/fixture"))
	e.waitJS("first item (HTTP cache only)", firstItem, 2*time.Minute)
	httpCache := time.Since(start)
	if n := e.wasmRequests.Load() - requests; n != 0 {
		t.Errorf("without the service worker the wasm was requested %d times: not cached as immutable", n)
	}
	t.Logf("Fast 3G (%.1f Mbit/s down, %v ms RTT): first visit: instructions after %v, first item after %v (%d wasm bytes sent in %d requests, Content-Encoding %s; gzip is %d bytes); "+
		"returning visit: first item after %v (wasm from service worker %v / %s, disk cache %v); "+
		"returning without the service worker: first item after %v",
		fast3G.DownloadThroughput*8/1e6, fast3G.Latency, instructionsAfter.Round(time.Millisecond), firstVisit.Round(time.Millisecond), firstBytes, firstRequests, firstEncoding, gzipSize,
		returning.Round(time.Millisecond), returned[0].FromServiceWorker, returned[0].ServiceWorkerResponseSource, returned[0].FromDiskCache,
		httpCache.Round(time.Millisecond))
}
