package store

import (
	"context"
	"fmt"

	"boolpool/server/vocab"
)

// taskKinds are the task kinds in the order people see them.
var taskKinds = vocab.TaskKinds()

// MemberProject is a project a user is a member of, with the task kinds it
// has items of (in taskKinds order).
type MemberProject struct {
	Project
	Kinds []string `db:"kinds"`
}

// MemberProjects returns the projects the user is a member of, by name,
// each with the task kinds it has items of.
func (s *Store) MemberProjects(ctx context.Context, userID int64) ([]MemberProject, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+projectCols+`,
		ARRAY(SELECT k FROM unnest($2::text[]) WITH ORDINALITY AS t(k, n)
			WHERE EXISTS (SELECT 1 FROM items i WHERE i.project_id = projects.id AND i.kind = t.k) ORDER BY t.n) AS kinds
		FROM projects WHERE id IN (SELECT project_id FROM project_members WHERE user_id = $1)
		ORDER BY name`, userID, taskKinds)
	return collectAll[MemberProject](rows, fmt.Sprintf("member projects of user %d", userID))
}

// ProgressOf counts the rater's done, skipped and live-leased items of a
// project and kind, and today's active time (the queue's RaterProgress).
func (s *Store) ProgressOf(ctx context.Context, userID, projectID int64, kind string) (RaterProgress, error) {
	var pr RaterProgress
	if err := s.pool.QueryRow(ctx, progressSQL, userID, projectID, kind).Scan(&pr.Done, &pr.Skipped, &pr.Leased, &pr.ActiveMs); err != nil {
		return pr, fmt.Errorf("store: progress of user %d in project %d (%s): %w", userID, projectID, kind, err)
	}
	return pr, nil
}
