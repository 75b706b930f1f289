package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"boolpool/api"
	"boolpool/server/apperr"
	"boolpool/server/auth"
	"boolpool/server/pooling"
	"boolpool/server/store"
)

// Live continuous active learning (researchers; wire types in api/cal.go):
//
//	GET  /api/projects/:project/cal                            []api.CALPool
//	POST /api/projects/:project/pools/:pool/cal/:query/stop    api.CALQueryStatus
//	POST /api/projects/:project/pools/:pool/cal/:query/extend  api.CALExtendRequest → api.CALQueryStatus
type calHandlers struct {
	research researchHandlers
	st       *store.Store
	control  *pooling.CALControl
}

func (h calHandlers) list(c echo.Context) error {
	p, err := h.research.project(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	pools, err := h.st.ListPools(ctx, p.ID)
	if err != nil {
		return err
	}
	out := []api.CALPool{}
	for _, pl := range pools {
		if pl.Strategy != pooling.CAL {
			continue
		}
		cp, err := h.pool(ctx, p.ID, pl)
		if err != nil {
			return err
		}
		out = append(out, cp)
	}
	return c.JSON(http.StatusOK, out)
}

func (h calHandlers) pool(ctx context.Context, projectID int64, pl store.PoolInfo) (api.CALPool, error) {
	sts, err := pooling.CALStatus(ctx, h.st, projectID, pl.ID)
	if err != nil {
		return api.CALPool{}, err
	}
	cp := api.CALPool{PoolID: pl.ID, Name: pl.Name, Status: pl.Status, Stop: pooling.CALStopKnee, Queries: make([]api.CALQueryStatus, len(sts))}
	if spec, err := pooling.SpecOf(pl); err == nil && spec.CAL.Stop != "" {
		cp.Stop = spec.CAL.Stop
	}
	for i, s := range sts {
		cp.Queries[i] = calView(s)
	}
	return cp, nil
}

func calView(s pooling.CALQueryStatus) api.CALQueryStatus {
	q := s.Query
	return api.CALQueryStatus{PoolID: q.PoolID, QueryID: q.QueryID, Query: q.QueryExtID, Text: q.QueryText, Round: q.Round, BatchSize: q.BatchSize,
		State: q.State, Reason: q.Reason, Pending: q.Pending, Judged: s.Judged, Found: s.Found, Fired: s.Status.Fired,
		Recall: s.Status.Estimate.Recall, Basis: s.Status.Estimate.Basis, ExtendTo: q.ExtendTo, Items: s.PoolItems, FromRuns: s.FromRuns, FromCAL: s.FromCAL}
}

// target loads the path's project, cal pool and query.
func (h calHandlers) target(c echo.Context) (store.Project, int64, int64, error) {
	p, err := h.research.project(c)
	if err != nil {
		return p, 0, 0, err
	}
	poolID, err := strconv.ParseInt(c.Param("pool"), 10, 64)
	if err != nil || poolID <= 0 {
		return p, 0, 0, apperr.Invalidf("pool", "not a pool id")
	}
	queryID, err := strconv.ParseInt(c.Param("query"), 10, 64)
	if err != nil || queryID <= 0 {
		return p, 0, 0, apperr.Invalidf("query", "not a query id")
	}
	pl, err := h.st.PoolByID(c.Request().Context(), p.ID, poolID)
	if err != nil {
		return p, 0, 0, err
	}
	if pl.Strategy != pooling.CAL {
		return p, 0, 0, apperr.Invalidf("pool", "pool %q has strategy %s, not cal", pl.Name, pl.Strategy)
	}
	return p, poolID, queryID, nil
}

func (h calHandlers) stop(c echo.Context) error {
	p, poolID, queryID, err := h.target(c)
	if err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	return reply(c, calView)(h.control.Stop(c.Request().Context(), ss.User.ID, ss.User.Username, p.ID, poolID, queryID))
}

// extend lets the review go on for more judgments (pooling.CALControl.Extend).
func (h calHandlers) extend(c echo.Context) error {
	p, poolID, queryID, err := h.target(c)
	if err != nil {
		return err
	}
	var req api.CALExtendRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ss, _ := auth.CurrentSession(c)
	return reply(c, calView)(h.control.Extend(c.Request().Context(), ss.User.ID, ss.User.Username, p.ID, poolID, queryID, req.Judgments))
}
