// Package web is boolpool's go-app v10 user interface: the login page, the
// keyboard-first judging views (relevance with attribution, stage-1
// paraphrase, stage-2 validation), and the researcher and admin pages. It
// compiles both to wasm (the browser) and for the server (prerendering), so
// it must never import pgx, Echo, onnxruntime or cgo; wire types come from
// api.
package web

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Routes registers the app's pages with go-app. Both the wasm main and the
// server call it.
func Routes() {
	app.Route("/", func() app.Composer { return NewHomePage() })
	app.Route("/login", func() app.Composer { return NewLoginPage() })
	app.RouteWithRegexp(`^/judge/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewJudgePage() })
	app.RouteWithRegexp(`^/item/[0-9]+$`, func() app.Composer { return NewJudgePage() })
	app.RouteWithRegexp(`^/paraphrase/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewParaphrasePage() })
	app.RouteWithRegexp(`^/validate/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewValidationPage() })
	app.RouteWithRegexp(`^/constraint/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewConstraintPage() })
	app.Route("/researcher", func() app.Composer { return NewResearcherPage() })
	app.Route("/admin", func() app.Composer { return NewAdminPage() })
	app.Route("/setup", func() app.Composer { return NewSetupPage() })
	app.RouteWithRegexp(`^/setup/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewSetupPage() })
	app.RouteWithRegexp(`^/dashboard/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewDashboardPage() })
	app.RouteWithRegexp(`^/adjudicate/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewAdjudicationPage() })
	app.RouteWithRegexp(`^/pools/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewPoolBuilderPage() })
	app.RouteWithRegexp(`^/queries/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewQueriesPage() })
	app.RouteWithRegexp(`^/review/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewReviewPage() })
	app.RouteWithRegexp(`^/browse/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewBrowsePage() })
	app.RouteWithRegexp(`^/feedback/[a-z0-9][a-z0-9_-]*$`, func() app.Composer { return NewFeedbackPage() })
}

// Handler returns the go-app handler serving the pages, app.js, the service
// worker and the manifest. Static files (CSS, icons, app.wasm) are served by
// the HTTP server from /web/. version names the build of the server and the
// wasm together: browsers keep their cached app until it changes ("" lets
// go-app pick a new one at every start). wasmURL, called once when the
// handler first serves, names the content-hashed URL of app.wasm
// (/web/app.<hash>.wasm, cached for a year); nil or "" keeps /web/app.wasm.
func Handler(version string, wasmURL func() string) *app.Handler {
	return &app.Handler{
		Version:                 version,
		Name:                    "boolpool",
		ShortName:               "boolpool",
		Title:                   "boolpool",
		Description:             "Judging Boolean retrieval benchmarks",
		Icon:                    app.Icon{Default: "/web/icon.png", SVG: "/web/icon.svg"},
		Styles:                  []string{"/web/boolpool.css", "/web/research.css"},
		BackgroundColor:         "#f7f7f4",
		ThemeColor:              "#26415e",
		LoadingLabel:            "Loading boolpool… {progress}%",
		Resources:               webPaths{wasmURL: wasmURL},
		WasmContentLengthHeader: "X-Wasm-Content-Length",
		ServiceWorkerTemplate:   serviceWorker,
	}
}

// serviceWorker caches the app shell so the app starts offline, and never
// touches /api/: judgments are queued by the page itself (see Outbox), and a
// worker answering API calls would hide the network state from it.
const serviceWorker = `// boolpool service worker {{.Version}}
const cacheName = "boolpool-{{.Version}}";
const shell = {{.ResourcesToCache}};

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(cacheName).then((c) => c.addAll(shell)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== cacheName).map((k) => caches.delete(k))))
      .then(() => self.clients.claim())
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) {
    return;
  }
  event.respondWith(caches.match(event.request).then((hit) => hit || fetch(event.request)));
});
`

// webPaths keeps /web/… URLs as they are (the HTTP server, not go-app,
// serves them, app.wasm precompressed), except /web/app.wasm, which becomes
// its content-hashed URL: app.js loads it from there and the service worker
// caches it under that name.
type webPaths struct {
	wasmURL func() string
}

func (p webPaths) Resolve(location string) string {
	if location == "/web/app.wasm" && p.wasmURL != nil {
		if u := p.wasmURL(); u != "" {
			return u
		}
	}
	return location
}
