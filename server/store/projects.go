package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Project is one annotation project.
type Project struct {
	ID             int64           `db:"id"`
	Name           string          `db:"name"`
	Title          string          `db:"title"`
	RatersPerItem  int             `db:"raters_per_item"`
	GoldRate       float32         `db:"gold_rate"`
	LeaseSeconds   int             `db:"lease_seconds"`
	Instructions   json.RawMessage `db:"instructions"`
	CompletionCode string          `db:"completion_code"`
	CreatedAt      time.Time       `db:"created_at"`
	// Quality control (migration 0061): the least binarised gold accuracy
	// (0 = off), the gold items judged before it applies, and whether an
	// annotator below it gets no new items.
	GoldMinAccuracy float32 `db:"gold_min_accuracy"`
	GoldMinJudged   int     `db:"gold_min_judged"`
	GoldPause       bool    `db:"gold_pause"`
	// Crowd completion (migration 0091): where a participant who is done
	// goes back to, and the per-participant quota (0 = none).
	CrowdCompletionURL string `db:"crowd_completion_url"`
	CrowdQuotaItems    int    `db:"crowd_quota_items"`
	CrowdQuotaMinutes  int    `db:"crowd_quota_minutes"`
	// ConsensusMethod (migration 0097) is how votes become the consensus
	// of exports that name none: majority or dawid-skene.
	ConsensusMethod string `db:"consensus_method"`
}

const projectCols = `id, name, title, raters_per_item, gold_rate, lease_seconds, instructions, completion_code, created_at,
	gold_min_accuracy, gold_min_judged, gold_pause, crowd_completion_url, crowd_quota_items, crowd_quota_minutes, consensus_method`

// EnsureProject returns the project called name, creating it if needed.
func (s *Store) EnsureProject(ctx context.Context, name string) (Project, error) {
	_, err := s.pool.Exec(ctx, `INSERT INTO projects (name, title) VALUES ($1, $1) ON CONFLICT (name) DO NOTHING`, name)
	if err != nil {
		return Project{}, fmt.Errorf("store: ensure project %q: %w", name, err)
	}
	return s.ProjectByName(ctx, name)
}

// ProjectByName looks a project up by name.
func (s *Store) ProjectByName(ctx context.Context, name string) (Project, error) {
	if !storable(name) {
		return Project{}, fmt.Errorf("store: project %q: %w", name, ErrNotFound)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+projectCols+` FROM projects WHERE name = $1`, name)
	return collectOne[Project](rows, fmt.Sprintf("project %q", name))
}

// ProjectByID looks a project up by id.
func (s *Store) ProjectByID(ctx context.Context, id int64) (Project, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+projectCols+` FROM projects WHERE id = $1`, id)
	return collectOne[Project](rows, fmt.Sprintf("project %d", id))
}

// ListProjects returns all projects by name.
func (s *Store) ListProjects(ctx context.Context) ([]Project, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+projectCols+` FROM projects ORDER BY name`)
	return collectAll[Project](rows, "list projects")
}

// ProjectCounts summarises a project's contents.
type ProjectCounts struct {
	Documents int64 `json:"documents"`
	Queries   int64 `json:"queries"`
	Qrels     int64 `json:"qrels"`
	Runs      int64 `json:"runs"`
	Judgments int64 `json:"judgments"`
}

// CountProject counts a project's documents, queries, qrels, runs and judgments.
func (s *Store) CountProject(ctx context.Context, projectID int64) (ProjectCounts, error) {
	var c ProjectCounts
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM documents WHERE project_id = $1),
		(SELECT count(*) FROM queries WHERE project_id = $1),
		(SELECT count(*) FROM qrels WHERE project_id = $1),
		(SELECT count(*) FROM runs WHERE project_id = $1),
		(SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1)`, projectID).
		Scan(&c.Documents, &c.Queries, &c.Qrels, &c.Runs, &c.Judgments)
	if err != nil {
		return c, fmt.Errorf("store: count project: %w", err)
	}
	return c, nil
}

// CreateProject inserts a project titled title (name when empty) and makes
// its creator a member; a taken name is ErrConflict.
func (s *Store) CreateProject(ctx context.Context, name, title string, createdBy int64) (Project, error) {
	if title == "" {
		title = name
	}
	var p Project
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, `INSERT INTO projects (name, title) VALUES ($1, $2) RETURNING `+projectCols, name, title)
		var err error
		p, err = pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Project])
		if isUniqueViolation(err) {
			return fmt.Errorf("store: project %q exists: %w", name, ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("store: create project: %w", err)
		}
		if createdBy != 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO project_members (project_id, user_id) VALUES ($1, $2)`, p.ID, createdBy); err != nil {
				return fmt.Errorf("store: create project: membership: %w", err)
			}
		}
		return audit(ctx, tx, createdBy, p.ID, "project.create", "project", fmt.Sprint(p.ID), map[string]any{"name": name, "title": title})
	})
	return p, err
}
