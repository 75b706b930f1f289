package retrieval

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress reports done/total with rate and ETA. On a terminal it redraws
// one bar in place (at most every 200 ms); anywhere else (a log file, a
// pipe) it prints a plain line every 10 s and a last one at Done, never a
// carriage return. A nil writer makes it silent. Safe for concurrent use.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	interval time.Duration // between plain lines when not on a terminal
	label    string
	total    int
	done     int
	start    time.Time
	last     time.Time
}

// NewProgress starts a report for total units of work.
func NewProgress(w io.Writer, label string, total int) *Progress {
	now := time.Now()
	return &Progress{w: w, tty: IsTerminal(w), interval: 10 * time.Second, label: label, total: total, start: now, last: now}
}

// IsTerminal reports whether w is a character device (a terminal), where
// redrawing a line with \r makes sense.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Add records n finished units.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.w == nil {
		return
	}
	every := p.interval
	if p.tty {
		every = 200 * time.Millisecond
	}
	if time.Since(p.last) >= every {
		p.last = time.Now()
		p.draw()
	}
}

// Done draws the final state and ends the line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	p.draw()
	if p.tty {
		fmt.Fprintln(p.w)
	}
	p.w = nil
}

func (p *Progress) draw() {
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = min(1, float64(p.done)/float64(p.total))
	}
	elapsed := time.Since(p.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(p.done) / s
	}
	eta := "?"
	if p.done >= p.total {
		eta = "0s"
	} else if rate > 0 {
		eta = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %d/%d (%.0f%%)  %.1f/s  elapsed %s  ETA %s\n", p.label, p.done, p.total, 100*frac, rate,
			elapsed.Round(time.Millisecond), eta)
		return
	}
	filled := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d  %.1f/s  ETA %s   ", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total, rate, eta)
}
