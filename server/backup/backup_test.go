package backup_test

import (
	"context"
	"path/filepath"
	"testing"

	"boolpool/server/backup"
	"boolpool/server/ingest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

func TestDumpRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := storetest.New(t)
	p, err := src.EnsureProject(ctx, "bk")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, src, p.ID, "quest", []string{"../ingest/testdata/quest_small.jsonl", "../ingest/testdata/docs_small.jsonl"}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	want, err := src.CountProject(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	srcURL := src.Pool().Config().ConnString()
	dump := filepath.Join(t.TempDir(), "db.dump")
	if err := backup.Dump(ctx, srcURL, dump); err != nil {
		t.Fatal(err)
	}

	// Restore into an empty database and into one that already has data.
	for _, name := range []string{"empty", "populated"} {
		t.Run(name, func(t *testing.T) {
			dstURL := storetest.URL(t)
			if name == "populated" {
				st, err := store.Open(ctx, dstURL, 2)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := st.Migrate(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := st.EnsureProject(ctx, "other"); err != nil {
					t.Fatal(err)
				}
				st.Close()
			}
			if err := backup.Restore(ctx, dstURL, dump); err != nil {
				t.Fatal(err)
			}
			dst, err := store.Open(ctx, dstURL, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer dst.Close()
			if err := dst.CheckSchema(ctx); err != nil {
				t.Fatal(err)
			}
			q, err := dst.ProjectByName(ctx, "bk")
			if err != nil {
				t.Fatal(err)
			}
			got, err := dst.CountProject(ctx, q.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("restored counts %+v, want %+v", got, want)
			}
		})
	}
	if err := backup.Restore(ctx, storetest.URL(t), filepath.Join(t.TempDir(), "missing.dump")); err == nil {
		t.Fatal("restoring a missing file succeeded")
	}
}
