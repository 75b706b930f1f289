package store_test

import (
	"context"
	"strings"
	"testing"

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
