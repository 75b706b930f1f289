package progress

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
	p := New(f, "bm25", "", 4, 0)
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
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "bm25: 1/4 ") || !strings.HasPrefix(lines[4], "bm25: 4/4 (100.0%)") {
		t.Fatalf("want 4 periodic lines and a final one, got %q", out)
	}
}

// TestProgressQuietBetweenIntervals: off a terminal, nothing is printed
// between intervals but the final line.
func TestProgressQuietBetweenIntervals(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf, "x", "", 1000, 0)
	for i := 0; i < 1000; i++ {
		p.Add(1)
	}
	p.Done()
	if got := buf.String(); strings.Count(got, "\n") != 1 || strings.Contains(got, "\r") || !strings.HasPrefix(got, "x: 1000/1000") {
		t.Fatalf("got %q", got)
	}
}

// TestProgressOutput: off a terminal, plain lines with the unit, and
// silence for a job with nothing to do.
func TestProgressOutput(t *testing.T) {
	tests := []struct {
		name   string
		add    []int
		want   []string
		silent bool
	}{
		{"plain lines", []int{3, 4, 3}, []string{"docs: 3/10 docs (30.0%)", "docs: 7/10 docs (70.0%)", "docs: 10/10 docs (100.0%)", "ETA 0s"}, false},
		{"nothing to do", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			total := 0
			for _, n := range tc.add {
				total += n
			}
			p := New(&buf, "docs", "docs", total, time.Nanosecond)
			for _, n := range tc.add {
				time.Sleep(time.Millisecond)
				p.Add(n)
			}
			p.Done()
			out := buf.String()
			if tc.silent != (out == "") {
				t.Fatalf("output %q", out)
			}
			if strings.Contains(out, "\r") {
				t.Errorf("carriage return in non-terminal output %q", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
		})
	}
}
