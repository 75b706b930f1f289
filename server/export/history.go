package export

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"boolpool/server/store"
)

// Record is one recorded export of a project (cite its ID to name an exact
// version of the judged data), or one that failed (Failed, with its Error
// and no counts).
type Record struct {
	ID        string
	Format    string
	Counts    map[string]any
	CreatedBy string // the username; "" for the command line
	CreatedAt time.Time
	Failed    bool
	Error     string
}

// History is a project's export snapshots and failed exports, newest
// first (GET /api/projects/:project/exports).
func History(ctx context.Context, st *store.Store, projectID int64) ([]Record, error) {
	snaps, err := st.ExportSnapshots(ctx, projectID)
	if err != nil {
		return nil, err
	}
	names, err := st.Usernames(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(snaps))
	for _, s := range snaps {
		r := Record{ID: s.ID, Format: s.Format, CreatedAt: s.CreatedAt}
		if err := json.Unmarshal(s.Counts, &r.Counts); err != nil {
			return nil, fmt.Errorf("export: snapshot %s counts: %w", s.ID, err)
		}
		if s.CreatedBy != nil {
			r.CreatedBy = names[*s.CreatedBy]
		}
		out = append(out, r)
	}
	fails, err := st.ExportFailures(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for _, f := range fails {
		r := Record{ID: f.ID, Format: f.Format, CreatedAt: f.At, Failed: true, Error: f.Reason, Counts: map[string]any{}}
		if f.CreatedBy != nil {
			r.CreatedBy = names[*f.CreatedBy]
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}
