package embedjob

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports done/total with rate and ETA. On a terminal it redraws
// one bar in place (at most every 200 ms); elsewhere (a log file, a pipe) it
// prints a plain line every interval. A nil writer makes it silent.
type progress struct {
	w        io.Writer
	tty      bool
	label    string
	unit     string
	total    int
	done     int
	start    time.Time
	last     time.Time
	interval time.Duration
	drawn    bool
}

func newProgress(w io.Writer, label, unit string, total int, interval time.Duration) *progress {
	now := time.Now()
	if interval <= 0 {
		interval = 10 * time.Second
	}
	return &progress{w: w, tty: isTerminal(w), label: label, unit: unit, total: total, start: now, last: now, interval: interval}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// add records n finished units.
func (p *progress) add(n int) {
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

// finish draws the final state (ending the terminal line).
func (p *progress) finish() {
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

func (p *progress) draw() {
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
		eta = (time.Duration(float64(p.total-p.done) / rate * float64(time.Second))).Round(time.Second).String()
	}
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(p.done) / float64(p.total)
	}
	if !p.tty {
		fmt.Fprintf(p.w, "%s: %d/%d %s (%.1f%%)  %.1f %s/s  elapsed %s  ETA %s\n", p.label, p.done, p.total, p.unit, pct,
			rate, p.unit, elapsed.Round(time.Second), eta)
		return
	}
	const width = 30
	filled := min(width, int(pct/100*width))
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d %5.1f%%  %.1f %s/s  ETA %s   ", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total, pct, rate, p.unit, eta)
}
