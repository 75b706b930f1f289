package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/atoms"
	"boolpool/server/auth"
	"boolpool/server/boolexpr"
	"boolpool/server/decompose"
	"boolpool/server/jobs"
	"boolpool/server/store"
)

// Pool builder and query-expression editor (researchers; wire types in
// api/pools.go):
//
//	GET  /api/projects/:project/runs           []api.RunSummary
//	POST /api/projects/:project/pools/preview  api.PoolSpec → api.PoolPreview; nothing is saved
//	POST /api/projects/:project/pools          api.PoolSpec → api.JobView (202): queues a pool job
//	                                           (server/jobs.Pool) that saves the pool, sets the
//	                                           project's raters per item (when given) and publishes
//	                                           it as relevance items; its result is an
//	                                           api.PoolPublished (GET /api/jobs/:id)
//	GET  /api/projects/:project/queries        []api.QueryExpression
//	PUT  /api/queries/:id/expression           api.ExpressionRequest → api.QueryExpression (audited)
//	GET  /api/queries/:id/decompose            api.ExpressionSuggestion (the decomposer's reading)
type poolHandlers struct {
	research researchHandlers // project lookup and membership
	st       *store.Store     // pooling reads runs from the store itself
	jobs     *jobs.Client     // runs the pool jobs of publish (nil: none)
	log      *slog.Logger
}

func (h poolHandlers) runs(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	runs, err := h.st.ListRuns(c.Request().Context(), p.ID)
	if err != nil {
		return err
	}
	out := make([]api.RunSummary, len(runs))
	for i, r := range runs {
		out[i] = api.RunSummary{Name: r.Name, Method: r.Method, Queries: r.Queries, Results: r.Results}
	}
	return c.JSON(http.StatusOK, out)
}

func (h poolHandlers) preview(c echo.Context) error {
	p, req, err := h.request(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIPoolPreview)(jobs.Preview(c.Request().Context(), h.st, p.ID, req, h.log))
}

// request is the project and the pool request of a preview or publish; a
// pool without a name gets one now, so that a publish job's retries
// publish the same pool.
func (h poolHandlers) request(c echo.Context) (store.Project, jobs.PoolRequest, error) {
	p, req, err := projectBody[api.PoolSpec](h.research, c)
	if err != nil {
		return p, jobs.PoolRequest{}, err
	}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" {
		req.Name = defaultPoolName()
	}
	return p, toJobsPoolRequest(req), nil
}

// publish queues a pool job for the spec and answers with the job, which
// the page follows (GET /api/jobs/:id) until the pool is published. The
// spec is checked first (a 400 names the field; a published pool's name is
// a 409); the same spec while its job is queued or running answers that
// job.
func (h poolHandlers) publish(c echo.Context) error {
	p, req, err := h.request(c)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	j, err := h.jobs.Submit(c.Request().Context(), p.ID, api.JobKindPool, raw, ss.User.ID)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, jobView(j, p.Name))
}

// defaultPoolName names a pool the researcher left unnamed.
func defaultPoolName() string { return "pool " + time.Now().UTC().Format("2006-01-02 15:04:05") }

// queryExpression renders a stored query for the editor.
func queryExpression(q store.Query) api.QueryExpression {
	out := api.QueryExpression{ID: q.ID, ExtID: q.ExtID, Text: q.Text, Template: q.Template, Atoms: make([]string, len(q.Atoms))}
	for i, a := range q.Atoms {
		out.Atoms[i] = a.Text
	}
	if len(q.Expression) > 0 && string(q.Expression) != "null" {
		if e, err := boolexpr.ParseJSON(q.Expression, len(q.Atoms)); err == nil {
			out.Expression = e.String()
			out.Tree = q.Expression
		}
	}
	if c, ok := decompose.StoredConfidence(q); ok {
		out.Confidence = &c
	}
	return out
}

func (h poolHandlers) queries(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	qs, err := h.st.ListQueries(c.Request().Context(), p.ID, "")
	if err != nil {
		return err
	}
	out := make([]api.QueryExpression, len(qs))
	for i, q := range qs {
		out[i] = queryExpression(q)
	}
	return c.JSON(http.StatusOK, out)
}

// query loads the :id query if the signed-in user may see its project.
func (h poolHandlers) query(c echo.Context) (store.Query, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return store.Query{}, apperr.Invalidf("id", "not a query id")
	}
	q, err := h.st.QueryByID(c.Request().Context(), id)
	if err != nil {
		return q, err
	}
	return q, h.research.allowed(c, q.ProjectID)
}

func (h poolHandlers) setExpression(c echo.Context) error {
	q, err := h.query(c)
	if err != nil {
		return err
	}
	var req api.ExpressionRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	e, texts, perr := api.ParseExpressionRequest(req)
	if perr != nil {
		return &apperr.Invalid{Field: perr.Field, Reason: perr.Reason}
	}
	ss, _ := auth.CurrentSession(c)
	q, staleFlags, err := atoms.SetExpression(c.Request().Context(), h.st, ss.User.ID, q, atoms.ExpressionEdit{Expr: e, Atoms: texts, Force: req.Force})
	if err != nil {
		return err
	}
	out := queryExpression(q)
	out.StaleFlags = staleFlags
	return c.JSON(http.StatusOK, out)
}

func (h poolHandlers) decompose(c echo.Context) error {
	q, err := h.query(c)
	if err != nil {
		return err
	}
	if reason := decompose.CheckQuery(q.Text); reason != "" {
		return apperr.Invalidf("text", "%s: not decomposed (shorten the query)", reason)
	}
	res := decompose.Decompose(q.Text)
	tree, err := json.Marshal(res.Expression)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, api.ExpressionSuggestion{Template: res.Template, Atoms: res.Atoms, Expression: res.Expression.String(), Tree: tree,
		Confidence: res.Confidence, Source: res.Source})
}
