package migrations

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestEverySQLFileEmbedded: every .sql file in this folder but the schema
// snapshot (schema.sql) is in FS, so a migration misnamed without its
// leading number cannot be left out silently.
func TestEverySQLFileEmbedded(t *testing.T) {
	onDisk, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := fs.ReadDir(FS, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range embedded {
		names = append(names, e.Name())
	}
	if slices.Contains(names, "schema.sql") {
		t.Error("FS embeds schema.sql: it is the generated snapshot, not a migration")
	}
	if len(names) == 0 {
		t.Fatal("FS embeds no migration")
	}
	for _, e := range onDisk {
		n := e.Name()
		if !strings.HasSuffix(n, ".sql") || n == "schema.sql" {
			continue
		}
		if !slices.Contains(names, n) {
			t.Errorf("%s is not embedded: a migration's name starts with its number (NNNN_name.sql)", n)
		}
	}
}
