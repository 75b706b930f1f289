package store

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"boolpool/migrations"
)

// Migration is one numbered schema file.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations in version order.
func Migrations() ([]Migration, error) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migrations: %s: name must start with a number and '_'", name)
		}
		body, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return nil, fmt.Errorf("migrations: %w", err)
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations: duplicate version %d", out[i].Version)
		}
	}
	return out, nil
}

// LatestVersion is the highest embedded migration version.
func LatestVersion() (int, error) {
	ms, err := Migrations()
	if err != nil || len(ms) == 0 {
		return 0, err
	}
	return ms[len(ms)-1].Version, nil
}

// SchemaVersion returns the version the database is at (0 when empty).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: schema version: %w", err)
	}
	return v, nil
}

// CheckSchema returns an error when the database schema is behind (or ahead
// of) this binary's migrations, including a lower-numbered migration that
// was never applied.
func (s *Store) CheckSchema(ctx context.Context) error {
	have, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if have > 0 {
		ms, err := Migrations()
		if err != nil {
			return err
		}
		var missing []int
		for _, m := range ms {
			var ok bool
			if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, m.Version).Scan(&ok); err != nil {
				return fmt.Errorf("store: schema check: %w", err)
			}
			if !ok && m.Version <= have {
				missing = append(missing, m.Version)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("store: migrations %v were never applied to this database: run 'boolpool migrate'", missing)
		}
	}
	want, err := LatestVersion()
	if err != nil {
		return err
	}
	switch {
	case have < want:
		return fmt.Errorf("store: database schema is at version %d, this binary needs %d: run 'boolpool migrate'", have, want)
	case have > want:
		return fmt.Errorf("store: database schema version %d is newer than this binary's %d", have, want)
	}
	return s.checkQueueSchema(ctx)
}

// Migrate applies every pending migration, each in its own transaction,
// under an advisory lock so that concurrent callers take turns. It returns
// the versions applied.
func (s *Store) Migrate(ctx context.Context) ([]int, error) {
	return s.MigrateTo(ctx, 0)
}

// MigrateTo applies pending migrations up to and including version target
// (0 = all). A migration numbered below one already applied is applied
// too (branches merged out of order), never skipped silently.
func (s *Store) MigrateTo(ctx context.Context, target int) ([]int, error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	defer conn.Release()
	const lockKey = 7_291_001
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, lockKey); err != nil {
		return nil, fmt.Errorf("store: migrate lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockKey) //nolint:errcheck // best effort; the lock dies with the session anyway
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	done := map[int]bool{}
	rows, _ := conn.Query(ctx, `SELECT version FROM schema_migrations`)
	var v int
	if err := forEach(rows, "migrate", func() error { done[v] = true; return nil }, &v); err != nil {
		return nil, err
	}
	var applied []int
	for _, m := range ms {
		if done[m.Version] || (target > 0 && m.Version > target) {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return applied, fmt.Errorf("store: migration %s: %w", m.Name, err)
		}
		applied = append(applied, m.Version)
	}
	if latest := ms[len(ms)-1].Version; target == 0 || target >= latest {
		if err := s.migrateQueue(ctx); err != nil {
			return applied, err
		}
	}
	if len(applied) > 0 {
		// Connections opened before the vector extension existed lack its
		// types: drop them so new ones register pgvector.
		s.pool.Reset()
	}
	return applied, nil
}

// The job queue's tables (River's river_job, river_leader, river_queue, …)
// come with River's own migrations (rivermigrate). Migrate applies them
// after boolpool's, under the same lock, so that one 'boolpool migrate'
// prepares everything; CheckSchema refuses a database where they are
// missing.

func (s *Store) queueMigrator() (*rivermigrate.Migrator[pgx.Tx], error) {
	m, err := rivermigrate.New(riverpgxv5.New(s.pool), &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("store: job queue migrations: %w", err)
	}
	return m, nil
}

// migrateQueue applies River's pending migrations.
func (s *Store) migrateQueue(ctx context.Context) error {
	m, err := s.queueMigrator()
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("store: job queue (River) migrations: %w", err)
	}
	return nil
}

// checkQueueSchema returns an error when River's migrations are not all
// applied.
func (s *Store) checkQueueSchema(ctx context.Context) error {
	m, err := s.queueMigrator()
	if err != nil {
		return err
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: job queue schema check: %w", err)
	}
	if !res.OK {
		return fmt.Errorf("store: the job queue's (River's) tables are not current (%s): run 'boolpool migrate'", strings.Join(res.Messages, "; "))
	}
	return nil
}

// QueueSchemaVersion returns the job queue's (River's) schema version in
// the database and the latest this binary knows.
func (s *Store) QueueSchemaVersion(ctx context.Context) (have, latest int, err error) {
	m, err := s.queueMigrator()
	if err != nil {
		return 0, 0, err
	}
	all := m.AllVersions()
	if len(all) > 0 {
		latest = all[len(all)-1].Version
	}
	existing, err := m.ExistingVersions(ctx)
	if err != nil {
		return 0, latest, fmt.Errorf("store: job queue schema version: %w", err)
	}
	for _, v := range existing {
		have = max(have, v.Version)
	}
	return have, latest, nil
}
