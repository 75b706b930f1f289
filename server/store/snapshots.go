package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ExportSnapshot is one recorded export (export_snapshots).
type ExportSnapshot struct {
	ID        string          `db:"id"`
	ProjectID int64           `db:"project_id"`
	Format    string          `db:"format"`
	Counts    json.RawMessage `db:"counts"`
	CreatedBy *int64          `db:"created_by"`
	CreatedAt time.Time       `db:"created_at"`
}

const snapshotCols = `id::text AS id, project_id, format, counts, created_by, created_at`

// RecordExportSnapshot stores a finished export under id (a UUID) and
// audits it. userID 0 = the command line.
func (s *Store) RecordExportSnapshot(ctx context.Context, id string, projectID int64, format string, counts any, userID int64) (ExportSnapshot, error) {
	var snap ExportSnapshot
	var uid *int64
	if userID != 0 {
		uid = &userID
	}
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `INSERT INTO export_snapshots (id, project_id, format, counts, created_by)
			VALUES ($1, $2, $3, $4, $5) RETURNING `+snapshotCols, id, projectID, format, counts, uid)
		var err error
		snap, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ExportSnapshot])
		if err != nil {
			return fmt.Errorf("store: record export: %w", err)
		}
		return audit(ctx, tx, userID, projectID, "export.snapshot", "export", id, map[string]any{"format": format, "counts": counts})
	})
	return snap, err
}

// ExportSnapshots lists a project's recorded exports, newest first.
func (s *Store) ExportSnapshots(ctx context.Context, projectID int64) ([]ExportSnapshot, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+snapshotCols+` FROM export_snapshots WHERE project_id = $1 ORDER BY created_at DESC, id`, projectID)
	return collectAll[ExportSnapshot](rows, "export snapshots")
}

// ExportFailure is an export that failed (audit_log action
// "export.failed": no schema change), with its reason.
type ExportFailure struct {
	ID        string
	Format    string
	Reason    string
	CreatedBy *int64
	At        time.Time
}

// MaxExportFailures bounds the failures ExportFailures lists.
const MaxExportFailures = 50

// RecordExportFailure audits a failed export under id with its reason
// (clipped to 500 bytes). userID 0 = the command line.
func (s *Store) RecordExportFailure(ctx context.Context, id string, projectID int64, format, reason string, userID int64) error {
	if len(reason) > 500 {
		reason = reason[:500]
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		return audit(ctx, tx, userID, projectID, "export.failed", "export", id, map[string]any{"format": format, "reason": reason})
	})
}

// ExportFailures lists a project's newest failed exports (at most
// MaxExportFailures), newest first.
func (s *Store) ExportFailures(ctx context.Context, projectID int64) ([]ExportFailure, error) {
	rows, _ := s.pool.Query(ctx, `SELECT entity_id, coalesce(detail->>'format', ''), coalesce(detail->>'reason', ''), user_id, at
		FROM audit_log WHERE project_id = $1 AND action = 'export.failed' ORDER BY at DESC, id DESC LIMIT $2`, projectID, MaxExportFailures)
	return scanAll(rows, "export failures", func(f *ExportFailure) []any {
		return []any{&f.ID, &f.Format, &f.Reason, &f.CreatedBy, &f.At}
	})
}
