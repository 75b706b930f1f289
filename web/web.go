// Package web is boolpool's go-app v10 user interface: the login page, the
// keyboard-first judging views (relevance with attribution, stage-1
// paraphrase, stage-2 validation), and the researcher and admin pages. It
// compiles both to wasm (the browser) and for the server (prerendering), so
// it must never import pgx, Echo, onnxruntime or cgo; wire types come from
// web/api.
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
	app.Route("/researcher", func() app.Composer { return NewResearcherPage() })
	app.Route("/admin", func() app.Composer { return NewAdminPage() })
}

// Handler returns the go-app handler serving the pages, app.js, the service
// worker and the manifest. Static files (CSS, icons, app.wasm) are served by
// the HTTP server from /web/.
func Handler() *app.Handler {
	return &app.Handler{
		Name:                    "boolpool",
		ShortName:               "boolpool",
		Title:                   "boolpool",
		Description:             "Judging Boolean retrieval benchmarks",
		Icon:                    app.Icon{Default: "/web/icon.png", SVG: "/web/icon.svg"},
		Styles:                  []string{"/web/boolpool.css"},
		BackgroundColor:         "#f7f7f4",
		ThemeColor:              "#26415e",
		LoadingLabel:            "Loading boolpool… {progress}%",
		Resources:               webPaths{},
		WasmContentLengthHeader: "X-Wasm-Content-Length",
	}
}

// webPaths keeps /web/… URLs as they are: the HTTP server, not go-app,
// serves them (app.wasm precompressed).
type webPaths struct{}

func (webPaths) Resolve(location string) string { return location }
