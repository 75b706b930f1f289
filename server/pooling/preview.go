package pooling

import (
	"context"
	"log/slog"

	"boolpool/server/store"
)

// Preview checks spec (Check) and computes what Create would build for spec (composition and
// Judged@k of each run) without saving anything, so a researcher can look
// at a pool before publishing it. Report.PoolID is 0.
func Preview(ctx context.Context, st *store.Store, projectID int64, spec Spec, log *slog.Logger) (Report, error) {
	spec, err := Check(ctx, st, projectID, spec)
	if err != nil {
		return Report{}, err
	}
	runs, pool, err := buildPool(ctx, st, projectID, spec, log, nil)
	if err != nil {
		return Report{}, err
	}
	return poolReport(spec, pool, runs), nil
}
