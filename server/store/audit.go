package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// queueAudit adds one audit-log row to a batch sent in the caller's
// transaction. userID or projectID 0 = none.
func queueAudit(b *pgx.Batch, userID, projectID int64, action, entity, entityID string, detail any) {
	var uid, pid *int64
	if userID != 0 {
		uid = &userID
	}
	if projectID != 0 {
		pid = &projectID
	}
	if detail == nil {
		detail = map[string]any{}
	}
	b.Queue(`INSERT INTO audit_log (user_id, project_id, action, entity, entity_id, detail)
		VALUES ($1, $2, $3, $4, $5, $6)`, uid, pid, action, entity, entityID, detail)
}

// audit appends one audit-log row inside tx.
func audit(ctx context.Context, tx pgx.Tx, userID, projectID int64, action, entity, entityID string, detail any) error {
	b := &pgx.Batch{}
	queueAudit(b, userID, projectID, action, entity, entityID, detail)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store: audit %s: %w", action, err)
	}
	return nil
}
