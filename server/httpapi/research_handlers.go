package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/consensus"
	"boolpool/server/export"
	"boolpool/server/live"
	"boolpool/server/store"
)

// Researcher and admin endpoints (wire types in api/research.go):
//
//	GET  /api/projects/:project/dashboard      api.LiveSnapshot (researcher)
//	GET  /api/projects/:project/live           text/event-stream of "snapshot" events carrying
//	                                           api.LiveSnapshot, at once and after each change
//	                                           (at most one per 250 ms); ": ping" comments every
//	                                           15 s; "dropped" when the client fell behind
//	GET  /api/projects/:project/composition    []api.RelevantFound: which run found which relevant document
//	GET  /api/projects/:project/progress/queries  []api.QueryProgress: every incomplete query, with its text
//	GET  /api/projects/:project/adjudication   api.AdjudicationQueue (?limit=50&offset=0, limit ≤ 200)
//	GET  /api/items/:id/adjudication           api.AdjudicationItem (any judged item)
//	POST /api/items/:id/adjudication           api.AdjudicationRequest → api.AdjudicationResult
//	GET  /api/projects/:project/exports        []api.ExportSnapshot (admin)
//	GET  /api/projects/:project/exports/:format  streamed download (admin): quest, quest-documents,
//	                                           quest-judged, trec-topics, trec-qrels, qrels-consensus,
//	                                           trec-run (?run=NAME), csv, idmap (the ids the TREC files
//	                                           write as other tokens, .tsv); the recorded snapshot's id is
//	                                           in X-Export-Id and the file name; ?consensus=majority|dawid-skene
//	                                           picks the consensus of qrels-consensus and quest-judged
//
// Researchers see the projects they are members of; admins see all.

// researchStore is what the research handlers read directly.
type researchStore interface {
	ProjectByName(ctx context.Context, name string) (store.Project, error)
	ProjectByID(ctx context.Context, id int64) (store.Project, error)
	IsProjectMember(ctx context.Context, projectID, userID int64) (bool, error)
	ItemByID(ctx context.Context, id int64) (store.Item, error)
	ListQueries(ctx context.Context, projectID int64, split string) ([]store.Query, error)
}

type researchHandlers struct {
	st        researchStore
	exportSt  *store.Store       // the exporters stream from the store itself
	live      *live.Service      // dashboards
	cons      *consensus.Service // adjudication
	heartbeat time.Duration
	// sessions re-resolves a stream's session every recheck, so a
	// disabled, demoted or removed researcher's stream ends within it.
	sessions sessionResolver
	recheck  time.Duration
	// streams bounds the live streams each account holds open here.
	streams *streamSlots
	log     *slog.Logger
}

// streamSlots counts the live event streams each account holds open on
// this server and refuses more than max (429): one researcher's 1,500
// open streams meant ≈ 3,000 database transactions a second.
type streamSlots struct {
	max int
	mu  sync.Mutex
	n   map[int64]int
}

func newStreamSlots(max int) *streamSlots { return &streamSlots{max: max, n: map[int64]int{}} }

// acquire takes a slot of user; false when they hold max already.
func (s *streamSlots) acquire(user int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[user] >= s.max {
		return false
	}
	s.n[user]++
	return true
}

// release gives back a slot acquire took.
func (s *streamSlots) release(user int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[user]--; s.n[user] <= 0 {
		delete(s.n, user)
	}
}

// sessionResolver resolves a session token to its live session.
type sessionResolver interface {
	Session(ctx context.Context, token string) (store.Session, error)
}

// projectKey holds, in the request context, the project projectAccess let
// the request into.
const projectKey = "boolpool.project"

// projectAccess is the middleware of every researcher and admin route
// under /api/projects/:project (routes.go): it loads the project of the
// path and lets the request in only if the signed-in user may see it (a
// member, or an admin), on every request.
func (h researchHandlers) projectAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := h.loadProject(c)
		if err != nil {
			return err
		}
		c.Set(projectKey, p)
		return next(c)
	}
}

// project is the :project of the path that projectAccess let this request
// into; a handler on a route without the middleware checks it here the
// same way.
func (h researchHandlers) project(c echo.Context) (store.Project, error) {
	if p, ok := c.Get(projectKey).(store.Project); ok {
		return p, nil
	}
	return h.loadProject(c)
}

// loadProject loads the :project of the path if the signed-in user may
// see it: a member, or an admin.
func (h researchHandlers) loadProject(c echo.Context) (store.Project, error) {
	p, err := h.st.ProjectByName(c.Request().Context(), c.Param("project"))
	if err != nil {
		return p, err
	}
	return p, h.allowed(c, p.ID)
}

func (h researchHandlers) allowed(c echo.Context, projectID int64) error {
	ss, _ := auth.CurrentSession(c)
	ok, err := h.mayEnter(c.Request().Context(), ss.User, projectID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("research: not a member of project %d: %w", projectID, apperr.ErrForbidden)
	}
	return nil
}

// mayEnter applies the one rule of project access (store.MayEnterProject)
// to u.
func (h researchHandlers) mayEnter(ctx context.Context, u store.User, projectID int64) (bool, error) {
	member, err := h.st.IsProjectMember(ctx, projectID, u.ID)
	if err != nil {
		return false, err
	}
	return store.MayEnterProject(u.Role, member), nil
}

// stillAllowed re-checks, for a long-lived stream, that its session is
// live (not signed out, account not disabled), still of a researcher and
// still allowed into the project.
func (h researchHandlers) stillAllowed(ctx context.Context, token string, projectID int64) error {
	ss, err := h.sessions.Session(ctx, token)
	if err != nil {
		return err
	}
	if !api.RoleAtLeast(ss.User.Role, api.RoleResearcher) {
		return fmt.Errorf("research: %s is no longer a researcher: %w", ss.User.Username, apperr.ErrForbidden)
	}
	ok, err := h.mayEnter(ctx, ss.User, projectID)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("research: %s is no longer a member of project %d: %w", ss.User.Username, projectID, apperr.ErrForbidden)
	}
	return nil
}

func (h researchHandlers) dashboard(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	return reply(c, toAPILiveSnapshot)(h.live.Snapshot(c.Request().Context(), p.ID, p.Name))
}

func (h researchHandlers) composition(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	return reply(c, sliceOf(toAPIRelevantFound))(h.live.RelevantFound(c.Request().Context(), p.ID, p.Name))
}

// incompleteQueries lists every query with unjudged items (the dashboard's
// snapshot carries the first 200), with the query texts.
func (h researchHandlers) incompleteQueries(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	return reply(c, sliceOf(toAPIQueryProgress))(h.live.IncompleteQueries(c.Request().Context(), p.ID, p.Name))
}

// liveEvents streams the project's dashboard as server-sent events: a
// "snapshot" event at once and after every change (throttled), comments
// as heartbeats, and a "dropped" event when the client fell too far
// behind (EventSource then reconnects and starts afresh).
func (h researchHandlers) liveEvents(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	if !h.streams.acquire(ss.User.ID) {
		return fmt.Errorf("live: this account already has %d live streams open on this server (close a dashboard tab): %w", h.streams.max, apperr.ErrRateLimited)
	}
	defer h.streams.release(ss.User.ID)
	ctx := c.Request().Context()
	sub, snap, err := h.live.Subscribe(ctx, p.ID, p.Name)
	if err != nil {
		return err
	}
	defer h.live.Hub().Unsubscribe(sub)
	first, err := snapshotEvent(snap)
	if err != nil {
		return err
	}
	w := c.Response()
	w.Header().Set(echo.HeaderContentType, "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte("retry: 2000\n\n")); err != nil {
		return nil
	}
	if _, err := w.Write(first); err != nil {
		return nil
	}
	w.Flush()
	beat := time.NewTicker(h.heartbeat)
	defer beat.Stop()
	recheck := time.NewTicker(h.recheck)
	defer recheck.Stop()
	token := auth.SessionToken(c)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-recheck.C:
			if err := h.stillAllowed(ctx, token, p.ID); err != nil {
				h.log.Info("live stream ended: access revoked", "project", p.Name, "err", err)
				_, _ = w.Write([]byte("event: revoked\ndata: {}\n\n"))
				w.Flush()
				return nil
			}
		case <-beat.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return nil
			}
			w.Flush()
		case msg, ok := <-sub.C:
			if !ok {
				_, _ = w.Write([]byte("event: dropped\ndata: {}\n\n"))
				w.Flush()
				return nil
			}
			ev, err := snapshotEvent(msg)
			if err != nil {
				h.log.Error("live snapshot", "project", p.Name, "err", err)
				return nil
			}
			if _, err := w.Write(ev); err != nil {
				return nil
			}
			w.Flush()
		}
	}
}

func (h researchHandlers) queue(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	limit, _ := strconv.Atoi(c.QueryParam("limit"))
	offset, _ := strconv.Atoi(c.QueryParam("offset"))
	return reply(c, toAPIAdjudicationQueue)(h.cons.Queue(c.Request().Context(), p.ID, limit, offset))
}

// item checks the :id item's project and returns its id.
func (h researchHandlers) item(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Invalidf("id", "must be a positive integer")
	}
	it, err := h.st.ItemByID(c.Request().Context(), id)
	if err != nil {
		return 0, err
	}
	return id, h.allowed(c, it.ProjectID)
}

func (h researchHandlers) adjudicationItem(c echo.Context) error {
	id, err := h.item(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIAdjudicationItem)(h.cons.Item(c.Request().Context(), id))
}

func (h researchHandlers) adjudicate(c echo.Context) error {
	id, err := h.item(c)
	if err != nil {
		return err
	}
	var req api.AdjudicationRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	res, _, err := h.cons.Adjudicate(c.Request().Context(), ss.User.ID, id, toConsensusAdjudicationRequest(req))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toAPIAdjudicationResult(res))
}

func (h researchHandlers) exports(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	return reply(c, sliceOf(toAPIExportSnapshot))(export.History(c.Request().Context(), h.exportSt, p.ID))
}

// download streams an export and records it as a snapshot; the export id
// is in the X-Export-Id header and the file name.
func (h researchHandlers) download(c echo.Context) error {
	p, err := h.project(c)
	if err != nil {
		return err
	}
	format := c.Param("format")
	opt := export.Options{Run: c.QueryParam("run"), Consensus: c.QueryParam("consensus"), Qrels: c.QueryParam("qrels"),
		ZipRoot: p.Name + "-" + format}
	ext, err := export.CheckDownload(format, opt)
	if err != nil {
		return err
	}
	if opt.Consensus == "" { // the project's method (quality settings)
		opt.Consensus = p.ConsensusMethod
	}
	ss, _ := auth.CurrentSession(c)
	id := api.NewUUID()
	w := c.Response()
	contentType := "application/octet-stream"
	if ext == "zip" {
		contentType = "application/zip"
	}
	w.Header().Set(echo.HeaderContentType, contentType)
	w.Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-%s-%s.%s"`, p.Name, format, id[:8], ext))
	w.Header().Set("X-Export-Id", id)
	snap, err := export.WriteSnapshot(c.Request().Context(), h.exportSt, p.ID, format, w, opt, id, ss.User.ID)
	if err != nil {
		if !w.Committed {
			w.Header().Del(echo.HeaderContentDisposition)
			w.Header().Del("X-Export-Id")
			w.Header().Del(echo.HeaderContentType)
		} else {
			// Too late for an error status: the client sees a cut-off body
			// and no recorded snapshot.
			h.log.Error("export failed mid-stream", "project", p.Name, "format", format, "err", err)
			return nil
		}
		return err
	}
	h.log.Info("exported", "project", p.Name, "format", format, "id", snap.ID, "bytes", snap.Bytes)
	return nil
}

// projectBody is the prelude of a project's POST and PUT handlers: the
// :project the signed-in user may enter (researchHandlers.project), then
// the request body (bindJSON).
func projectBody[T any](h researchHandlers, c echo.Context) (store.Project, T, error) {
	var req T
	p, err := h.project(c)
	if err != nil {
		return p, req, err
	}
	return p, req, bindJSON(c, &req)
}
