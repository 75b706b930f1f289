package httpapi

import (
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/consensus"
	"boolpool/server/store"
)

// Review with feedback and the item browser (issue 25; wire types in
// api/review.go):
//
//	POST /api/judgments/:id/review                 api.ReviewRequest → api.ReviewResult (researcher of the judgment's project)
//	GET  /api/projects/:project/reviews            api.ReviewQueue (researcher): every annotator's counts and, with
//	                                               ?annotator=NAME, their unreviewed judgments (?limit=50&offset=0, limit ≤ 200)
//	GET  /api/projects/:project/feedback           api.Feedback: the reviews of the signed-in user's own judgments
//	                                               (any member; ?limit=50&offset=0)
//	GET  /api/projects/:project/browse/items       api.BrowseItems (researcher): ?text= &query=ID &annotator=NAME
//	                                               &label=0-3 &agreement=agree|disagree|single|adjudicated|unjudged
//	                                               &gold=yes|no &from=YYYY-MM-DD &to=YYYY-MM-DD (inclusive) &kind=
//	                                               &limit=50 (≤ 200) &offset=0
//	GET  /api/projects/:project/browse/queries     api.BrowseQueries (researcher): ?text= &limit &offset
//	GET  /api/items/:id/detail                     api.ItemDetail (researcher of the item's project)
//
// Every request checks the role (the route's middleware) and the project
// (researchHandlers.allowed: a member, or an admin) again.
type reviewHandlers struct {
	research researchHandlers
	st       *store.Store
	cons     *consensus.Service
}

// page reads ?limit and ?offset: limit 1–MaxBrowsePage (default 50),
// offset ≥ 0.
func page(c echo.Context) (limit, offset int, err error) {
	limit, offset = 50, 0
	if s := c.QueryParam("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > api.MaxBrowsePage {
			return 0, 0, apperr.Invalidf("limit", "must be 1 to %d", api.MaxBrowsePage)
		}
	}
	if s := c.QueryParam("offset"); s != "" {
		if offset, err = strconv.Atoi(s); err != nil || offset < 0 {
			return 0, 0, apperr.Invalidf("offset", "must be a whole number ≥ 0")
		}
	}
	return limit, offset, nil
}

// projectPage is the prelude of the paged lists: the :project the user
// may enter, then ?limit and ?offset (page).
func (h reviewHandlers) projectPage(c echo.Context) (p store.Project, limit, offset int, err error) {
	if p, err = h.research.project(c); err != nil {
		return p, 0, 0, err
	}
	limit, offset, err = page(c)
	return p, limit, offset, err
}

// review records a researcher's review of one judgment.
func (h reviewHandlers) review(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return apperr.Invalidf("id", "must be a positive integer")
	}
	ctx := c.Request().Context()
	projectID, _, err := h.st.JudgmentProject(ctx, id)
	if err != nil {
		return err
	}
	if err := h.research.allowed(c, projectID); err != nil {
		return err
	}
	var req api.ReviewRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	return reply(c, toAPIReviewResult)(h.cons.Review(ctx, ss.User.ID, id, toConsensusReviewRequest(req)))
}

// queue lists every annotator's review counts and one annotator's
// unreviewed judgments.
func (h reviewHandlers) queue(c echo.Context) error {
	p, limit, offset, err := h.projectPage(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIReviewQueue)(h.cons.ReviewQueue(c.Request().Context(), p.ID, c.QueryParam("annotator"), limit, offset))
}

// feedback lists the reviews of the signed-in user's own judgments in the
// project: the user comes from the session, never from the request.
func (h reviewHandlers) feedback(c echo.Context) error {
	p, limit, offset, err := h.projectPage(c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	return reply(c, toAPIFeedback)(h.cons.Feedback(c.Request().Context(), ss.User.ID, p.ID, p.Name, limit, offset))
}

// browseFilter reads the item browser's query parameters.
func (h reviewHandlers) browseFilter(c echo.Context) (store.BrowseFilter, error) {
	f := store.BrowseFilter{Label: -1, Kind: c.QueryParam("kind"), Text: c.QueryParam("text"), Agreement: c.QueryParam("agreement")}
	var err error
	if f.Limit, f.Offset, err = page(c); err != nil {
		return f, err
	}
	switch f.Kind {
	case "", api.KindRelevance, api.KindParaphrase, api.KindValidation, api.KindConstraint:
	default:
		return f, apperr.Invalidf("kind", "must be relevance, paraphrase, validation or constraint")
	}
	if len(f.Text) > 500 {
		return f, apperr.Invalidf("text", "longer than 500 bytes")
	}
	switch f.Agreement {
	case "", api.AgreementAgree, api.AgreementDisagree, api.AgreementSingle, api.AgreementAdjudicated, api.AgreementUnjudged:
	default:
		return f, apperr.Invalidf("agreement", "must be agree, disagree, single, adjudicated or unjudged")
	}
	if s := c.QueryParam("query"); s != "" {
		if f.QueryID, err = strconv.ParseInt(s, 10, 64); err != nil || f.QueryID <= 0 {
			return f, apperr.Invalidf("query", "must be a query id")
		}
	}
	if s := c.QueryParam("label"); s != "" {
		if f.Label, err = strconv.Atoi(s); err != nil || f.Label < 0 || f.Label > 3 {
			return f, apperr.Invalidf("label", "must be 0, 1, 2 or 3")
		}
	}
	switch strings.ToLower(c.QueryParam("gold")) {
	case "":
	case "yes", "true", "1":
		t := true
		f.Gold = &t
	case "no", "false", "0":
		no := false
		f.Gold = &no
	default:
		return f, apperr.Invalidf("gold", "must be yes or no")
	}
	for _, d := range []struct {
		name string
		dst  **time.Time
		add  int
	}{{"from", &f.From, 0}, {"to", &f.To, 1}} {
		s := c.QueryParam(d.name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return f, apperr.Invalidf(d.name, "must be a date YYYY-MM-DD")
		}
		t = t.AddDate(0, 0, d.add) // to is inclusive: before the next day
		*d.dst = &t
	}
	return f, nil
}

// browseItems lists one page of the project's items that pass the filter.
func (h reviewHandlers) browseItems(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	f, err := h.browseFilter(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIBrowseItems)(h.cons.BrowseItems(c.Request().Context(), p.ID, f, c.QueryParam("annotator")))
}

// browseQueries lists one page of the project's queries matching ?text.
func (h reviewHandlers) browseQueries(c echo.Context) error {
	p, limit, offset, err := h.projectPage(c)
	if err != nil {
		return err
	}
	text := c.QueryParam("text")
	if len(text) > 500 {
		return apperr.Invalidf("text", "longer than 500 bytes")
	}
	return reply(c, toAPIBrowseQueries)(h.cons.BrowseQueries(c.Request().Context(), p.ID, text, limit, offset))
}

// detail opens any item of a project the researcher may enter.
func (h reviewHandlers) detail(c echo.Context) error {
	id, err := h.research.item(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIItemDetail)(h.cons.Detail(c.Request().Context(), id))
}
