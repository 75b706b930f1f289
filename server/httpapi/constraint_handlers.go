package httpapi

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/atompool"
	"boolpool/server/live"
	"boolpool/server/store"
)

// constraintHandlers serve constraint judging for researchers (issue 13):
// creating constraint items and the derived qrels they feed.
type constraintHandlers struct {
	research researchHandlers
	st       *store.Store
}

// pool creates constraint items (POST /api/projects/:project/constraints).
func (h constraintHandlers) pool(c echo.Context) error {
	p, req, err := projectBody[api.ConstraintPoolRequest](h.research, c)
	if err != nil {
		return err
	}
	return reply(c, toAPIConstraintPoolResult)(atompool.Pool(c.Request().Context(), h.st, p.ID, toAtompoolConstraintPoolRequest(req)))
}

// derived returns every query's derived qrels counts and the consistency
// flags (GET /api/projects/:project/derived).
func (h constraintHandlers) derived(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	return reply(c, toAPIDerivedQrels)(atompool.Summary(c.Request().Context(), h.st, p.ID, false))
}

// leaderboard returns the runs' measures over a qrels mode (GET
// /api/projects/:project/leaderboard?qrels=direct|derived|both): direct
// is the live snapshot's own; derived and both are scored over the labels
// atompool.QrelsLabels gives, as the constraint judgments stand now.
func (h constraintHandlers) leaderboard(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	mode := c.QueryParam("qrels")
	switch mode {
	case "":
		mode = api.QrelsDirect
	case api.QrelsDirect, api.QrelsDerived, api.QrelsBoth:
	default:
		return apperr.Invalidf("qrels", "must be direct, derived or both")
	}
	ctx := c.Request().Context()
	var snap live.Snapshot
	if mode == api.QrelsDirect {
		snap, err = h.research.live.Snapshot(ctx, p.ID, p.Name)
	} else {
		var labels map[string]map[string]int
		if labels, err = atompool.QrelsLabels(ctx, h.st, p.ID, mode); err != nil {
			return err
		}
		snap, err = h.research.live.SnapshotOver(ctx, p.ID, p.Name, labels)
	}
	if err != nil {
		return err
	}
	w := toAPILiveSnapshot(snap)
	return c.JSON(http.StatusOK, api.QrelsLeaderboard{Qrels: mode, Labels: w.Consensus.Items, Relevant: w.Consensus.Relevant,
		Leaderboard: w.Leaderboard, Templates: w.Templates, Operators: w.Operators, Bootstrap: w.Bootstrap})
}
