package httpapi

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
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
	p, err := h.research.project(c)
	if err != nil {
		return p, jobs.PoolRequest{}, err
	}
	var req api.PoolSpec
	if err := bindJSON(c, &req); err != nil {
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
	for i, t := range texts {
		if !atomInQuery(q, t) {
			return apperr.Invalidf(fmt.Sprintf("atoms[%d]", i), "%q is not a phrase of the query (%q): a constraint must occur in the query text or reuse at least half of its words",
				apperr.Clip(t, 80), apperr.Clip(q.Text, 200))
		}
	}
	template, _ := boolexpr.TemplateOf(e)
	atoms := make([]store.Atom, len(texts))
	for i, t := range texts {
		atoms[i] = atomSpan(q, t)
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return err
	}
	up := store.ExpressionUpdate{QueryID: q.ID, Template: template, Atoms: atoms, Expression: raw}
	attributed := -1 // not counted yet
	countAttributed := func() (int, error) {
		if attributed < 0 {
			n, err := h.st.AttributedJudgments(c.Request().Context(), q.ID)
			if err != nil {
				return 0, err
			}
			attributed = n
		}
		return attributed, nil
	}
	staleFlags := 0
	if old := queryExpression(q).Expression; old != "" && old != e.String() {
		if staleFlags, err = countAttributed(); err != nil {
			return err
		}
	}
	if renumbers(q.Atoms, texts) {
		n, err := countAttributed()
		if err != nil {
			return err
		}
		if n > 0 && !req.Force {
			return apperr.Refusedf(apperr.ErrConflict, "atoms",
				"%s has %d judgments whose constraint labels are numbered by its atoms (%s); these atoms would renumber them. "+
					"Keep the existing atoms in their places and add new ones at the end, or save with force to renumber "+
					"(recorded in the audit log; the judgments keep their numbers)", q.ExtID, n, atomList(q.Atoms))
		}
		if n > 0 {
			up.Renumbered = renumbering(q.Atoms, texts, n)
		}
	}
	ss, _ := auth.CurrentSession(c)
	if err := h.st.SetQueryExpression(c.Request().Context(), ss.User.ID, up); err != nil {
		return err
	}
	q, err = h.st.QueryByID(c.Request().Context(), q.ID)
	if err != nil {
		return err
	}
	out := queryExpression(q)
	out.StaleFlags = staleFlags
	return c.JSON(http.StatusOK, out)
}

// renumbers reports whether the new atom texts move or drop an existing
// atom: judgments' attributions refer to atoms by index, so an index must
// keep its text (new atoms may only be added at the end).
func renumbers(old []store.Atom, texts []string) bool {
	for i, a := range old {
		if i >= len(texts) || !strings.EqualFold(strings.TrimSpace(a.Text), texts[i]) {
			return true
		}
	}
	return false
}

// renumbering maps each old atom index to its new one (-1: dropped).
func renumbering(old []store.Atom, texts []string, judgments int) *store.Renumbering {
	r := &store.Renumbering{Judgments: judgments}
	for _, a := range old {
		r.OldAtoms = append(r.OldAtoms, a.Text)
		to := -1
		for j, t := range texts {
			if strings.EqualFold(strings.TrimSpace(a.Text), t) {
				to = j
				break
			}
		}
		r.NewIndex = append(r.NewIndex, to)
	}
	return r
}

// atomList names a query's atoms as the editor does: A = "…", B = "…".
func atomList(atoms []store.Atom) string {
	parts := make([]string, len(atoms))
	for i, a := range atoms {
		parts[i] = fmt.Sprintf("%s = %q", boolexpr.AtomName(i), apperr.Clip(a.Text, 60))
	}
	return strings.Join(parts, ", ")
}

// atomInQuery reports whether an atom's text is a phrase of the query: it
// occurs in the query text or its marked original (ignoring case), or at
// least half of its words are words of the query (the decomposer shares a
// head noun between conjuncts and writes demonyms: "Serbian horror films"
// for "Horror films from Serbia").
func atomInQuery(q store.Query, text string) bool {
	lt := strings.ToLower(text)
	_, original, _ := boolexpr.ParseMarked(q.OriginalQuery)
	hay := strings.ToLower(q.Text + "\n" + original)
	if strings.Contains(hay, lt) {
		return true
	}
	known := map[string]bool{}
	for _, w := range queryWords(hay) {
		known[w] = true
	}
	words := queryWords(lt)
	hit := 0
	for _, w := range words {
		if known[w] {
			hit++
		}
	}
	return len(words) > 0 && 2*hit >= len(words)
}

// queryWords splits lower-cased text into words (letters and digits).
func queryWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// atomSpan keeps the span of an unchanged atom, else locates the text in
// the query (case-insensitively); an atom not in the text gets an empty
// span at 0.
func atomSpan(q store.Query, text string) store.Atom {
	for _, a := range q.Atoms {
		if a.Text == text {
			return a
		}
	}
	lt, lq := strings.ToLower(text), strings.ToLower(q.Text)
	if i := strings.Index(lq, lt); i >= 0 && len(lq) == len(q.Text) && len(lt) == len(text) {
		return store.Atom{Text: text, Start: i, End: i + len(text)}
	}
	return store.Atom{Text: text}
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
