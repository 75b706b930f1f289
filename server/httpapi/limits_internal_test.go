package httpapi

import (
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSweepUploads: at start, upload directories of processes that are
// gone (a killed server) are removed, as are ones older than a day; those
// of running processes stay. (The old server wrote uploads to unnamed temp
// directories and never removed a killed one's.)
func TestSweepUploads(t *testing.T) {
	root := t.TempDir()
	// The id of a process that has exited.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no 'true' command:", err)
	}
	dead := cmd.Process.Pid
	mk := func(name string, age time.Duration) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(dir, when, when); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	gone := mk(uploadDirPrefix+strconv.Itoa(dead)+"-123", time.Minute)
	alive := mk(uploadDirPrefix+"1-456", time.Minute) // pid 1 runs
	old := mk(uploadDirPrefix+"1-789", 25*time.Hour)
	ours := mk(uploadDirPrefix+strconv.Itoa(os.Getpid())+"-1", 25*time.Hour)
	other := mk("unrelated", 48*time.Hour)

	fresh, err := newUploadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n, err := sweepUploads(root, time.Now(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		kept bool
	}{{gone, false}, {alive, true}, {old, false}, {ours, true}, {other, true}, {fresh, true}} {
		_, err := os.Stat(c.dir)
		if kept := err == nil; kept != c.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(c.dir), kept, c.kept)
		}
	}
	if n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	if _, err := sweepUploads(filepath.Join(root, "missing"), time.Now(), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Errorf("missing root: %v", err)
	}
}
