package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestMakeDBMigrates: 'make db' prints exactly one DATABASE_URL=… line on
// stdout, and the schema behind it is migrated, so the README's next
// command (import) works at once.
func TestMakeDBMigrates(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	ctx := context.Background()
	db := storetest.URL(t) // an empty database: db.sh honours DATABASE_URL
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-C", root, "db")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("make db: %v\n%s", err, stderr.String())
	}
	if got, want := stdout.String(), "DATABASE_URL="+db+"\n"; got != want {
		t.Fatalf("stdout = %q, want the one line %q (stderr %q)", got, want, stderr.String())
	}
	st, err := store.Open(ctx, db, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	have, err := st.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := store.LatestVersion()
	if err != nil {
		t.Fatal(err)
	}
	if have != latest {
		t.Fatalf("after make db the schema is at version %d, want %d (stderr %q)", have, latest, stderr.String())
	}
	if !strings.Contains(stderr.String(), "schema") {
		t.Errorf("stderr should report the migration: %q", stderr.String())
	}
}
