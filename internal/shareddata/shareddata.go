// Package shareddata gives tests the files of the shared data directory
// that BOOLPOOL_SHARED_DATA names (QUEST, DebQUEST, NevIR, …); a test that
// needs them is skipped where it is not set.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the environment variable of the shared data directory.
const Env = "BOOLPOOL_SHARED_DATA"

// Dir returns the shared data directory, or skips the test.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		t.Skip(Env + " not set; skipping the test on the shared data")
	}
	return dir
}

// Open opens the file at path (its elements joined below the shared data
// directory) for the test, which closes it when it ends; it skips the test
// without the shared data and fails it when the file cannot be opened.
func Open(t testing.TB, path ...string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join(append([]string{Dir(t)}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
