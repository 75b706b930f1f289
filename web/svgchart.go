package web

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Charts are SVG drawn here, as strings, and mounted with app.Raw: go-app
// has no SVG element builders, and a string is easy to test. Every chart
// carries role="img", an aria-label and a <title>, and the same numbers are
// in a table or text next to it.

// chartBar is one labelled bar; Series picks its colour (one per run).
type chartBar struct {
	Label  string
	Value  float64
	Series int
}

// barChartSVG draws horizontal bars scaled to scale (the largest value
// when scale <= 0), each with its label and value.
func barChartSVG(id, title string, bars []chartBar, scale float64) string {
	const rowH, barW, valueW = 22, 300, 60
	// Room for the longest label (about 7 px a character at 12 px), so no
	// label is cut off on the left; longer ones are shortened with "…"
	// (the bar's tooltip and the table next to the chart have them whole).
	const minLabelW, maxLabelW, charW = 60, 420, 7
	labelW := minLabelW
	for _, b := range bars {
		labelW = max(labelW, 12+charW*len([]rune(b.Label)))
	}
	labelW = min(labelW, maxLabelW)
	fit := (labelW - 12) / charW
	if scale <= 0 {
		for _, b := range bars {
			scale = math.Max(scale, b.Value)
		}
	}
	h := rowH*len(bars) + 8
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" id="%s" class="chart" role="img" aria-label="%s" width="%d" height="%d" viewBox="0 0 %d %d">`,
		html.EscapeString(id), html.EscapeString(title), labelW+barW+valueW, h, labelW+barW+valueW, h)
	fmt.Fprintf(&sb, `<title>%s</title>`, html.EscapeString(title))
	for i, b := range bars {
		y := 4 + i*rowH
		w := 0.0
		if scale > 0 && b.Value > 0 {
			w = b.Value / scale * barW
		}
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, labelW-6, y+15, html.EscapeString(fitLabel(b.Label, fit)))
		fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`,
			labelW, y+3, w, rowH-6, seriesColor(b.Series), html.EscapeString(b.Label), chartNumber(b.Value))
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" font-size="12">%s</text>`, float64(labelW)+w+4, y+15, chartNumber(b.Value))
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// heatGridSVG draws a square matrix of counts (runs × runs overlap), cell
// shade proportional to the largest count.
func heatGridSVG(id, title string, labels []string, m [][]int) string {
	const cell = 40
	// Room for the longest label (about 7 px a character at 11 px).
	labelW := 24
	for _, l := range labels {
		labelW = max(labelW, 12+7*len([]rune(l)))
	}
	top := 0
	for _, row := range m {
		for _, v := range row {
			if v > top {
				top = v
			}
		}
	}
	n := len(labels)
	// The column labels are turned 45°: the last one reaches about 0.71 of
	// its length right of its column's middle.
	w, h := labelW+cell*n+max(4, labelW*3/4-cell/2), labelW+cell*n+4
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" id="%s" class="chart" role="img" aria-label="%s" width="%d" height="%d" viewBox="0 0 %d %d">`,
		html.EscapeString(id), html.EscapeString(title), w, h, w, h)
	fmt.Fprintf(&sb, `<title>%s</title>`, html.EscapeString(title))
	for i, l := range labels {
		x := labelW + i*cell + cell/2
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="11" text-anchor="start" transform="rotate(-45 %d %d)">%s</text>`, x, labelW-6, x, labelW-6, html.EscapeString(l))
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="11" text-anchor="end">%s</text>`, labelW-6, labelW+i*cell+cell/2+4, html.EscapeString(l))
	}
	for i := 0; i < n && i < len(m); i++ {
		for j := 0; j < n && j < len(m[i]); j++ {
			v := m[i][j]
			shade := 0.0
			if top > 0 {
				shade = float64(v) / float64(top)
			}
			x, y := labelW+j*cell, labelW+i*cell
			bg := heatColor(shade)
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ccc"><title>%s ∩ %s: %d</title></rect>`,
				x, y, cell, cell, bg.hex(), html.EscapeString(labels[i]), html.EscapeString(labels[j]), v)
			color := bg.textColor()
			fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="12" text-anchor="middle" fill="%s">%d</text>`, x+cell/2, y+cell/2+4, color, v)
		}
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// fitLabel cuts s to n characters, the last one "…".
func fitLabel(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

// rgb is an opaque colour.
type rgb struct{ r, g, b float64 }

// heatColor is a heat cell's shade (0–1 of the largest count): the brand
// blue over white, from 8 % to 90 %, as an opaque colour so the text on it
// can be chosen by its luminance.
func heatColor(shade float64) rgb {
	a := 0.08 + 0.82*math.Max(0, math.Min(1, shade))
	return rgb{255 + (38-255)*a, 255 + (65-255)*a, 255 + (94-255)*a}
}

func (c rgb) hex() string {
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(c.r)), int(math.Round(c.g)), int(math.Round(c.b)))
}

// luminance is the WCAG relative luminance.
func (c rgb) luminance() float64 {
	f := func(v float64) float64 {
		v /= 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*f(c.r) + 0.7152*f(c.g) + 0.0722*f(c.b)
}

// textColor is black or white, whichever contrasts more with c (at least
// 4.58:1 whatever c is).
func (c rgb) textColor() string {
	l := c.luminance()
	if (l+0.05)/0.05 >= 1.05/(l+0.05) {
		return "#000"
	}
	return "#fff"
}

// chartInterval is one run's mean and interval on a 0–1 measure.
type chartInterval struct {
	Label           string
	Mean, Low, High float64
	Series          int
}

// intervalChartSVG draws each run's mean as a dot and its interval as a
// line on a common 0–1 axis (the leaderboard at a glance).
func intervalChartSVG(id, title string, rows []chartInterval) string {
	const rowH, labelW, axisW, pad = 24, 140, 360, 12
	h := rowH*len(rows) + 30
	w := labelW + axisW + 2*pad
	x := func(v float64) float64 { return float64(labelW+pad) + math.Max(0, math.Min(1, v))*axisW }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" id="%s" class="chart" role="img" aria-label="%s" width="%d" height="%d" viewBox="0 0 %d %d">`,
		html.EscapeString(id), html.EscapeString(title), w, h, w, h)
	fmt.Fprintf(&sb, `<title>%s</title>`, html.EscapeString(title))
	axisY := rowH*len(rows) + 8
	fmt.Fprintf(&sb, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#999"/>`, x(0), axisY, x(1), axisY)
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="4" x2="%.1f" y2="%d" stroke="#eee"/>`, x(t), x(t), axisY)
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, x(t), axisY+16, chartNumber(t))
	}
	for i, r := range rows {
		y := 4 + i*rowH + rowH/2
		c := seriesColor(r.Series)
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text>`, labelW, y+4, html.EscapeString(r.Label))
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="3"/>`, x(r.Low), y, x(r.High), y, c)
		fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%d" r="5" fill="%s"><title>%s: %.3f [%.3f, %.3f]</title></circle>`,
			x(r.Mean), y, c, html.EscapeString(r.Label), r.Mean, r.Low, r.High)
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// chartNumber prints counts as integers and measures with three decimals.
func chartNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}

// seriesColor is a colour-blind-safe palette (Okabe–Ito), cycling.
func seriesColor(i int) string {
	palette := []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}
	return palette[i%len(palette)]
}

// svg mounts a chart string.
func svg(s string) app.UI { return app.Raw(s) }
