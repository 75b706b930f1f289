package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// audit appends one audit-log row inside tx. userID or projectID 0 = none.
func audit(ctx context.Context, tx pgx.Tx, userID, projectID int64, action, entity, entityID string, detail any) error {
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
	_, err := tx.Exec(ctx, `INSERT INTO audit_log (user_id, project_id, action, entity, entity_id, detail)
		VALUES ($1, $2, $3, $4, $5, $6)`, uid, pid, action, entity, entityID, detail)
	if err != nil {
		return fmt.Errorf("store: audit %s: %w", action, err)
	}
	return nil
}
