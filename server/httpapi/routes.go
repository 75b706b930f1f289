package httpapi

import (
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"boolpool/api"
	"boolpool/server/auth"
	"boolpool/web"
)

// routes is the one route table, grouped by middleware and role.
func (s *Server) routes() {
	e := s.echo
	e.Use(middleware.Recover())
	// Bodies must keep arriving (before BodyLimit: this wraps the raw body).
	e.Use(bodyDeadline(s.cfg.HTTPTimeouts(), s.log))
	// Uploads have their own, larger limit (setupHandlers.receive).
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
		Limit:   bodyLimit(s.cfg.MaxBodyBytes),
		Skipper: func(c echo.Context) bool { return c.Path() == uploadPath },
	}))
	e.Use(securityHeaders)
	e.Use(allowedHosts(s.cfg.AllowedHosts))

	// Probes: no auth, no session.
	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)

	svc, st := s.svc, s.svc.Store
	rh := researchHandlers{st: st, exportSt: st, live: svc.Live, cons: svc.Consensus, heartbeat: 15 * time.Second,
		sessions: svc.Auth, recheck: time.Second, streams: s.streams, log: s.log}
	ah := authHandlers{svc: svc.Auth, users: st}
	ch := crowdHandlers{svc: svc.Auth, st: st, research: rh}
	th := taskHandlers{svc: svc.Judging}
	kh := constraintHandlers{research: rh, st: st}
	eh := estimateHandlers{research: rh, st: st}
	rr := reuseHandlers{research: rh, st: st}
	jh := judgeHandlers{svc: svc.Judging}
	rv := reviewHandlers{research: rh, st: st, cons: svc.Consensus}
	ph := poolHandlers{research: rh, st: st, jobs: svc.Jobs, log: s.log}
	calh := calHandlers{research: rh, st: st, control: svc.CAL}
	sh := setupHandlers{research: rh, st: st, importSt: st, jobs: svc.Jobs, encoders: svc.Encoders,
		maxUpload: s.cfg.UploadLimit(), uploadRoot: s.cfg.UploadRoot(), maxLine: s.cfg.LineLimit(),
		maxImport: s.cfg.ImportBytesLimit(), imports: newImportGate(s.cfg.ImportsPerUser()), log: s.log}

	signedIn := []echo.MiddlewareFunc{noStore, auth.SameOrigin, svc.Auth.RequireSession}
	researcher := append(signedIn[:len(signedIn):len(signedIn)], auth.RequireRole(api.RoleResearcher))
	admin := append(signedIn[:len(signedIn):len(signedIn)], auth.RequireRole(api.RoleAdmin))
	// Answers long by nature run without the write timeout.
	researcherLong := append(researcher[:len(researcher):len(researcher)], noWriteDeadline)
	adminLong := append(admin[:len(admin):len(admin)], noWriteDeadline)
	// Every researcher and admin route under /api/projects/:project enters
	// the project through one check (a member, or an admin), before the
	// handler: researchHandlers.projectAccess.
	inProject := func(chain []echo.MiddlewareFunc) []echo.MiddlewareFunc {
		return append(chain[:len(chain):len(chain)], rh.projectAccess)
	}
	researcherP, researcherLongP := inProject(researcher), inProject(researcherLong)
	adminP, adminLongP := inProject(admin), inProject(adminLong)

	// Anonymous: sign-in (rate limited inside the auth service).
	e.POST("/api/auth/login", ah.login, noStore, auth.SameOrigin)
	// Crowd entry: a start page, then a same-origin POST (never a GET that
	// changes state); invalid links all look the same.
	e.GET("/enter/:project", ch.start, noStore)
	e.POST("/enter/:project", ch.enter, noStore, auth.SameOrigin)

	// Any signed-in user (annotators and up); unsafe methods need the CSRF header.
	e.GET("/api/me", ah.me, signedIn...)
	e.GET("/api/me/projects", th.projects, signedIn...)
	e.POST("/api/auth/logout", ah.logout, signedIn...)
	e.POST("/api/projects/:project/queue", th.queue, signedIn...)
	e.GET("/api/projects/:project/instructions", th.instructions, signedIn...)
	e.GET("/api/items/:id", th.item, signedIn...)
	e.POST("/api/judgments", jh.submit, signedIn...)
	// The reviews of the signed-in user's own judgments (a member of the project).
	e.GET("/api/projects/:project/feedback", rv.feedback, signedIn...)

	// Researchers and admins.
	e.GET("/api/projects/:project/stats", th.stats, researcherP...)
	e.GET("/api/projects/:project/dashboard", rh.dashboard, researcherP...)
	e.GET("/api/projects/:project/live", rh.liveEvents, researcherLongP...)
	e.GET("/api/projects/:project/composition", rh.composition, researcherP...)
	e.GET("/api/projects/:project/adjudication", rh.queue, researcherP...)
	e.GET("/api/projects/:project/progress/queries", rh.incompleteQueries, researcherP...)
	e.GET("/api/projects/:project/quality", rh.quality, researcherP...)
	e.POST("/api/projects/:project/constraints", kh.pool, researcherP...)
	e.GET("/api/projects/:project/derived", kh.derived, researcherP...)
	e.GET("/api/projects/:project/leaderboard", kh.leaderboard, researcherP...)
	e.GET("/api/projects/:project/estimates", eh.estimates, researcherP...)
	e.GET("/api/projects/:project/reusability", rr.reusability, researcherP...)
	e.GET("/api/projects/:project/stability", rr.stability, researcherP...)
	e.PUT("/api/projects/:project/quality", rh.setQuality, researcherP...)
	e.GET("/api/items/:id/adjudication", rh.adjudicationItem, researcher...)
	e.POST("/api/items/:id/adjudication", rh.adjudicate, researcher...)
	e.GET("/api/projects/:project/reviews", rv.queue, researcherP...)
	e.POST("/api/judgments/:id/review", rv.review, researcher...)
	e.GET("/api/projects/:project/browse/items", rv.browseItems, researcherP...)
	e.GET("/api/projects/:project/browse/queries", rv.browseQueries, researcherP...)
	e.GET("/api/items/:id/detail", rv.detail, researcher...)
	e.GET("/api/projects/:project/runs", ph.runs, researcherP...)
	e.POST("/api/projects/:project/pools/preview", ph.preview, researcherP...)
	e.POST("/api/projects/:project/pools", ph.publish, researcherP...)
	e.GET("/api/projects/:project/queries", ph.queries, researcherP...)
	e.GET("/api/projects/:project/cal", calh.list, researcherP...)
	e.POST("/api/projects/:project/pools/:pool/cal/:query/stop", calh.stop, researcherP...)
	e.POST("/api/projects/:project/pools/:pool/cal/:query/extend", calh.extend, researcherP...)
	e.PUT("/api/queries/:id/expression", ph.setExpression, researcher...)
	e.GET("/api/queries/:id/decompose", ph.decompose, researcher...)
	e.POST("/api/projects/:project/decompose", ph.decomposeAll, researcherP...)
	e.GET("/api/projects/:project/crowd", ch.settings, researcherP...)
	e.PUT("/api/projects/:project/crowd", ch.update, researcherP...)
	e.POST("/api/projects/:project/crowd/rotate", ch.rotate, researcherP...)
	e.GET("/api/projects/:project/crowd/participants", ch.participants, researcherP...)
	e.GET("/api/projects/:project/crowd/participants.csv", ch.participants, researcherP...)
	e.GET("/api/projects", sh.listProjects, researcher...)
	e.POST("/api/projects", sh.createProject, researcher...)
	e.GET("/api/setup/options", sh.options, researcher...)
	e.POST(uploadPath, sh.importFiles, researcherLongP...)
	e.GET("/api/projects/:project/jobs", sh.listJobs, researcherP...)
	e.POST("/api/projects/:project/jobs", sh.startJob, researcherP...)
	e.GET("/api/jobs/:id", sh.getJob, researcher...)
	e.POST("/api/jobs/:id/cancel", sh.cancelJob, researcher...)

	// Admins.
	e.GET("/api/admin/users", ah.listUsers, admin...)
	e.POST("/api/admin/users", ah.createUser, admin...)
	e.PATCH("/api/admin/users/:id", ah.updateUser, admin...)
	e.GET("/api/projects/:project/exports", rh.exports, adminP...)
	e.GET("/api/projects/:project/exports/:format", rh.download, adminLongP...)

	// Unknown API paths are JSON 404s, not app pages.
	e.Any("/api/*", func(c echo.Context) error { return echo.NewHTTPError(http.StatusNotFound, "no such API route") })

	// The web app: static files (app.wasm precompressed) and go-app pages.
	web.Routes()
	wasm := loadWasm(s.cfg.StaticDir, s.log)
	static := newStaticFiles(s.cfg.StaticDir, wasm)
	e.GET("/web/*", static.serve)
	e.HEAD("/web/*", static.serve)
	goApp := web.Handler(appVersion(s.cfg.StaticDir), wasm.hashedURL)
	// The task pages show the project's instructions while app.wasm loads.
	lp := loadingPages{app: goApp, sessions: svc.Auth, tasks: svc.Judging, log: s.log}
	pageMethods := []string{http.MethodGet, http.MethodHead}
	e.Match(pageMethods, "/judge/:project", lp.serve(api.KindRelevance))
	e.Match(pageMethods, "/paraphrase/:project", lp.serve(api.KindParaphrase))
	e.Match(pageMethods, "/validate/:project", lp.serve(api.KindValidation))
	e.Match(pageMethods, "/constraint/:project", lp.serve(api.KindConstraint))
	e.Any("/*", echo.WrapHandler(goApp))
}

// uploadPath is the one route whose body may exceed MaxBodyBytes.
const uploadPath = "/api/projects/:project/imports"

// noStore keeps API answers (sessions, tasks) out of shared caches.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-store")
		return next(c)
	}
}

// contentSecurityPolicy is what go-app's page needs and no more: its
// scripts (/wasm_exec.js, /app.js, the service worker) come from the
// server itself, none inline; compiling app.wasm needs 'wasm-unsafe-eval'
// (not 'unsafe-eval'); go-app sets an element's Style(…) as its style
// attribute, so inline style attributes are allowed (style-src-attr) but
// not style elements; the charts are inline SVG; downloads are data: and
// blob: URLs. No plugins, no framing, no <base>, forms post to the server.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data: blob:; " +
	"connect-src 'self'; font-src 'self'; worker-src 'self'; manifest-src 'self'; " +
	"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// allowedHosts answers 421 to a request whose Host is not one of hosts
// (when there are any): a host entry matches that host on any port, a
// host:port entry only that port. The probes (/healthz, /readyz) answer
// whatever the Host, for load balancers that ask by address.
func allowedHosts(hosts []string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if len(hosts) == 0 {
			return next
		}
		return func(c echo.Context) error {
			if p := c.Request().URL.Path; p == "/healthz" || p == "/readyz" || hostAllowed(hosts, c.Request().Host) {
				return next(c)
			}
			return echo.NewHTTPError(http.StatusMisdirectedRequest, "this server does not answer for this host name")
		}
	}
}

// hostAllowed reports whether a request's Host matches an entry of hosts.
func hostAllowed(hosts []string, host string) bool {
	host = strings.ToLower(host)
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	for _, a := range hosts {
		if a == host || strings.Trim(a, "[]") == name {
			return true
		}
	}
	return false
}

// securityHeaders: no MIME sniffing, no framing (a framed judging page
// could be fed keystrokes), no referrer leaving the site, and the content
// security policy.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}
