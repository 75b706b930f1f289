package retrieval

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProgressPlainOffTerminal: written to a file (a log), progress is
// plain periodic lines and a last line, never a carriage return.
func TestProgressPlainOffTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := NewProgress(f, "bm25", 4)
	if p.tty {
		t.Fatal("a regular file was taken for a terminal")
	}
	p.interval = time.Nanosecond
	for i := 0; i < 4; i++ {
		time.Sleep(time.Millisecond)
		p.Add(1)
	}
	p.Done()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	if strings.Contains(out, "\r") {
		t.Fatalf("carriage return in a log file: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "bm25: 1/4 ") || !strings.HasPrefix(lines[4], "bm25: 4/4 (100%)") {
		t.Fatalf("want 4 periodic lines and a final one, got %q", out)
	}
}

// TestProgressQuietBetweenIntervals: off a terminal, nothing is printed
// between intervals but the final line.
func TestProgressQuietBetweenIntervals(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, "x", 1000)
	for i := 0; i < 1000; i++ {
		p.Add(1)
	}
	p.Done()
	if got := buf.String(); strings.Count(got, "\n") != 1 || strings.Contains(got, "\r") || !strings.HasPrefix(got, "x: 1000/1000") {
		t.Fatalf("got %q", got)
	}
}
