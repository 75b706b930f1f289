package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func TestMigrateFromEmpty(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.URL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	if err := s.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "boolpool migrate") {
		t.Fatalf("CheckSchema on an empty database = %v, want an error telling to migrate", err)
	}
	applied, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, _ := store.LatestVersion()
	if len(applied) == 0 || applied[len(applied)-1] != latest {
		t.Fatalf("applied %v, want up to %d", applied, latest)
	}
	if err := s.CheckSchema(ctx); err != nil {
		t.Fatalf("CheckSchema after migrate: %v", err)
	}
	// River's migrations (the job queue) come with ours.
	if have, latest, err := s.QueueSchemaVersion(ctx); err != nil || have != latest || latest == 0 {
		t.Fatalf("job queue schema %d of %d, %v", have, latest, err)
	}
	again, err := s.Migrate(ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("second Migrate applied %v, err %v; want nothing", again, err)
	}
	// pgvector is usable on the pool's connections after migrating.
	var d float64
	if err := s.Pool().QueryRow(ctx, `SELECT '[1,0]'::vector <=> '[0,1]'::vector`).Scan(&d); err != nil || d != 1 {
		t.Fatalf("vector distance = %v, %v", d, err)
	}
}

// TestCheckSchemaWantsJobQueue: a database whose boolpool schema is current
// but whose River tables are missing is refused until migrate runs again.
func TestCheckSchemaWantsJobQueue(t *testing.T) {
	ctx := context.Background()
	s := storetest.New(t)
	m, err := rivermigrate.New(riverpgxv5.New(s.Pool()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: -1}); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "boolpool migrate") {
		t.Fatalf("CheckSchema without River's tables = %v", err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateFromPreviousSchemaWithData stops at every earlier version,
// writes data, then migrates the rest of the way: data must survive and
// the schema must end current.
func TestMigrateFromPreviousSchemaWithData(t *testing.T) {
	ms, err := store.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, stop := range ms[:len(ms)-1] {
		t.Run(stop.Name, func(t *testing.T) {
			ctx := context.Background()
			s, err := store.Open(ctx, storetest.URL(t), 4)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.MigrateTo(ctx, stop.Version); err != nil {
				t.Fatal(err)
			}
			if err := s.CheckSchema(ctx); err == nil {
				t.Fatal("CheckSchema accepted a schema that is behind")
			}
			// Data written with the old schema, through plain SQL of the
			// first version's tables.
			if _, err := s.Pool().Exec(ctx, `INSERT INTO projects (name) VALUES ('old');
				INSERT INTO documents (project_id, ext_id, body, content_hash) SELECT id, 'd1', 'old text', '\x00' FROM projects;
				INSERT INTO queries (project_id, ext_id, text) SELECT id, 'q1', 'old query' FROM projects;
				INSERT INTO users (username, role) VALUES ('old-user', 'annotator')`); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Migrate(ctx); err != nil {
				t.Fatalf("migrating from %s with data: %v", stop.Name, err)
			}
			if err := s.CheckSchema(ctx); err != nil {
				t.Fatal(err)
			}
			p, err := s.ProjectByName(ctx, "old")
			if err != nil {
				t.Fatal(err)
			}
			c, err := s.CountProject(ctx, p.ID)
			if err != nil || c.Documents != 1 || c.Queries != 1 {
				t.Fatalf("after migration: %+v, %v", c, err)
			}
		})
	}
}

// TestSkippedMigrationIsDetected: a database that has a later migration but
// lacks an earlier one is not current.
func TestSkippedMigrationIsDetected(t *testing.T) {
	ms, _ := store.Migrations()
	if len(ms) < 2 {
		t.Skip("needs two migrations")
	}
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.URL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Pretend the second migration was never recorded.
	if _, err := s.Pool().Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, ms[1].Version); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckSchema(ctx); err == nil || !strings.Contains(err.Error(), "never applied") {
		t.Fatalf("CheckSchema = %v, want 'never applied'", err)
	}
}
