package pooling

import (
	"context"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// A researcher's control of a live cal pool's query (POST
// …/pools/:pool/cal/:query/stop and …/extend): stop its review, or let it
// go on for more judgments.

// MaxCALExtend bounds one extension of a query's review.
const MaxCALExtend = 10000

// CALControl stops and extends the queries of live cal pools; trigger
// queues the next batch of an extended query.
type CALControl struct {
	st      *store.Store
	trigger *CALTrigger
}

// NewCALControl makes the control of st's cal pools (server/app builds
// it with the trigger it registers for judged batches).
func NewCALControl(st *store.Store, trigger *CALTrigger) *CALControl {
	return &CALControl{st: st, trigger: trigger}
}

// CALQueryOf is the status of one query of a cal pool.
func CALQueryOf(ctx context.Context, st *store.Store, projectID, poolID, queryID int64) (CALQueryStatus, error) {
	sts, err := CALStatus(ctx, st, projectID, poolID)
	if err != nil {
		return CALQueryStatus{}, err
	}
	for _, s := range sts {
		if s.Query.QueryID == queryID {
			return s, nil
		}
	}
	return CALQueryStatus{}, apperr.Invalidf("query", "query %d is not in this pool", queryID)
}

// Stop ends the review of a cal pool's query, recording who stopped it.
func (c *CALControl) Stop(ctx context.Context, userID int64, username string, projectID, poolID, queryID int64) (CALQueryStatus, error) {
	if err := c.st.SetCALState(ctx, userID, poolID, queryID, store.CALStopped, "stopped by "+username, -1); err != nil {
		return CALQueryStatus{}, err
	}
	return CALQueryOf(ctx, c.st, projectID, poolID, queryID)
}

// Extend lets the review of a cal pool's query go on for judgments more:
// the stopping rule waits until the review holds that many more, and when
// the last batch is judged the next one is queued at once.
func (c *CALControl) Extend(ctx context.Context, userID int64, username string, projectID, poolID, queryID int64, judgments int) (CALQueryStatus, error) {
	if judgments < 1 || judgments > MaxCALExtend {
		return CALQueryStatus{}, apperr.Invalidf("judgments", "must be between 1 and %d", MaxCALExtend)
	}
	// The review the rule sees holds the seeds as well as the pool's
	// judgments: extend from its current length.
	cur, err := CALQueryOf(ctx, c.st, projectID, poolID, queryID)
	if err != nil {
		return CALQueryStatus{}, err
	}
	if err := c.st.SetCALState(ctx, userID, poolID, queryID, store.CALActive, "extended by "+username, cur.Status.Judged+judgments); err != nil {
		return CALQueryStatus{}, err
	}
	cq, err := c.st.CALQueryState(ctx, poolID, queryID)
	if err != nil {
		return CALQueryStatus{}, err
	}
	if cq.Pending == 0 && cq.Published {
		if _, err := c.trigger.Queue(ctx, cq); err != nil {
			return CALQueryStatus{}, err
		}
	}
	return CALQueryOf(ctx, c.st, projectID, poolID, queryID)
}
