package retrieval

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress is a terminal progress bar with rate and ETA, redrawn at most
// every 200 ms. A nil writer makes it silent. Safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	total int
	done  int
	start time.Time
	last  time.Time
}

// NewProgress starts a bar for total units of work.
func NewProgress(w io.Writer, label string, total int) *Progress {
	now := time.Now()
	return &Progress{w: w, label: label, total: total, start: now, last: now}
}

// Add records n finished units.
func (p *Progress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	if p.w != nil && time.Since(p.last) >= 200*time.Millisecond {
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
	fmt.Fprintln(p.w)
	p.w = nil
}

func (p *Progress) draw() {
	const width = 30
	frac := 1.0
	if p.total > 0 {
		frac = float64(p.done) / float64(p.total)
	}
	filled := int(frac * width)
	elapsed := time.Since(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d  %.1f/s  ETA %s   ", p.label,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total, rate, eta)
}
