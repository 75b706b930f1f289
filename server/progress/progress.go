// Package progress draws the progress of a long command-line job: done of
// total units with rate and ETA, as one bar redrawn in place on a
// terminal, or as plain periodic lines in a log file or a pipe.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultInterval is the time between plain lines off a terminal.
const DefaultInterval = 10 * time.Second

// Bar reports done/total with rate and ETA. On a terminal it redraws one
// bar in place (at most every 200 ms); anywhere else (a log file, a pipe)
// it prints a plain line every interval and a last one at Done, never a
// carriage return. A nil writer makes it silent. Safe for concurrent use.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	interval time.Duration // between plain lines when not on a terminal
	label    string
	unit     string // e.g. "docs"; "" = none
	total    int
	done     int
	start    time.Time
	last     time.Time
	drawn    bool
}

// New starts a report for total units of work (unit names them in the
// output; it may be ""). interval <= 0 means DefaultInterval.
func New(w io.Writer, label, unit string, total int, interval time.Duration) *Bar {
	now := time.Now()
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Bar{w: w, tty: IsTerminal(w), interval: interval, label: label, unit: unit, total: total, start: now, last: now}
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
func (p *Bar) Add(n int) {
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

// Done draws the final state and ends the line. Off a terminal a job that
// did nothing and drew nothing stays silent.
func (p *Bar) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	if p.drawn || p.tty || p.done > 0 {
		p.draw()
	}
	if p.tty {
		fmt.Fprintln(p.w)
	}
	p.w = nil
}

func (p *Bar) draw() {
	p.drawn = true
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
	pct := 100.0
	if p.total > 0 {
		pct = min(100, 100*float64(p.done)/float64(p.total))
	}
	unit := ""
	if p.unit != "" {
		unit = " " + p.unit
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %d/%d%s (%.1f%%)  %.1f%s/s  elapsed %s  ETA %s\n", p.label, p.done, p.total, unit, pct,
			rate, unit, elapsed.Round(time.Millisecond), eta)
		return
	}
	const width = 30
	filled := min(width, int(pct/100*width))
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %5.1f%%  %.1f%s/s  ETA %s   ", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total, pct, rate, unit, eta)
}
