package jobs

import (
	"context"
	"encoding/json"

	"boolpool/server/apperr"
	"boolpool/server/pooling"
)

// CALBatch is the job kind that grows a cal pool (pooling.CALJobKind):
// the next batch of one query, once its last batch is fully judged (or the
// query's end by its stopping rule). Queued by pooling.CALTrigger with the
// round to add, so it is unique per pool, query and round; a repeated or
// early job does nothing, and a retry is harmless (the round is added in
// one transaction, once).
func CALBatch(g *pooling.CALGrower) Kind {
	return ParamsKind(QueueDefault, calParams, func(ctx context.Context, a Attempt, p pooling.CALJobParams) (any, error) {
		a.Report("computing the next batch", 0, 1)
		res, err := g.Grow(ctx, a.Job.ProjectID, p)
		if err != nil {
			return nil, err
		}
		a.Report("done", 1, 1)
		return res, nil
	})
}

func calParams(raw json.RawMessage) (pooling.CALJobParams, error) {
	var p pooling.CALJobParams
	if err := strictJSON(raw, &p); err != nil {
		return p, err
	}
	if p.PoolID <= 0 {
		return p, apperr.Invalidf("params.pool_id", "required")
	}
	if p.QueryID <= 0 {
		return p, apperr.Invalidf("params.query_id", "required")
	}
	if p.Round < 1 {
		return p, apperr.Invalidf("params.round", "must be at least 1")
	}
	return p, nil
}
