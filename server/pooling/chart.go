package pooling

import (
	"bufio"
	"fmt"
	"html"
	"io"
)

// chartColors are distinguishable on white (one per strategy, cycling).
var chartColors = []string{"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"}

// WriteRecallSVG draws recall of all gold against judgments, one line per
// strategy, as a self-contained SVG.
func WriteRecallSVG(w io.Writer, sum GoldSummary) error {
	const width, height, left, right, top, bottom = 720.0, 420.0, 60.0, 150.0, 20.0, 45.0
	pw, ph := width-left-right, height-top-bottom
	maxJ := 1
	for _, r := range sum.Strategies {
		maxJ = max(maxJ, r.Judgments)
	}
	x := func(j int) float64 { return left + pw*float64(j)/float64(maxJ) }
	y := func(f int) float64 {
		if sum.Gold == 0 {
			return top + ph
		}
		return top + ph*(1-float64(f)/float64(sum.Gold))
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(b, `<text x="%.0f" y="14">recall of all gold (%d relevant, %d queries) vs judgments</text>`+"\n", left, sum.Gold, sum.Queries)
	for i := 0; i <= 10; i += 2 {
		yy := top + ph*(1-float64(i)/10)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left, yy, left+pw, yy, left-6, yy+4, float64(i)/10)
	}
	for i := 0; i <= 5; i++ {
		j := maxJ * i / 5
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(j), top, x(j), top+ph, x(j), top+ph+16, j)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">judgments</text>`+"\n", left+pw/2, height-6)
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", left, top, pw, ph)
	for i, name := range sum.Order {
		r, ok := sum.Strategies[name]
		if !ok {
			continue
		}
		c := chartColors[i%len(chartColors)]
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="`, c)
		for _, p := range r.Curve {
			fmt.Fprintf(b, "%.1f,%.1f ", x(p[0]), y(p[1]))
		}
		fmt.Fprint(b, `"/>`+"\n")
		ly := top + 16 + 18*float64(i)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%s (%.3f)</text>`+"\n",
			left+pw+10, ly, left+pw+30, ly, c, left+pw+35, ly+4, html.EscapeString(name), r.Recall)
	}
	fmt.Fprint(b, "</svg>\n")
	return b.Flush()
}
