package web

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

// wellFormed parses s as XML and counts its elements by name.
func wellFormed(t *testing.T, s string) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, s)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

func TestBarChartSVG(t *testing.T) {
	tests := []struct {
		name  string
		bars  []chartBar
		max   float64
		rects int
		want  []string
	}{
		{"empty", nil, 1, 0, []string{`role="img"`, `aria-label="t &lt;1&gt;"`}},
		{"scaled to max", []chartBar{{Label: "a & b", Value: 0.5}, {Label: "c", Value: 1, Series: 1}}, 1, 2,
			[]string{`width="150.0"`, `width="300.0"`, "a &amp; b", ">0.500</text>", `fill="#E69F00"`}},
		{"scaled to largest, counts as integers", []chartBar{{Label: "x", Value: 2}, {Label: "y", Value: 4}}, 0, 2,
			[]string{`width="150.0"`, `width="300.0"`, ">4</text>"}},
		{"negative is empty", []chartBar{{Label: "x", Value: -1}}, 1, 1, []string{`width="0.0"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := barChartSVG("c", "t <1>", tc.bars, tc.max)
			if got := wellFormed(t, s)["rect"]; got != tc.rects {
				t.Errorf("%d rects, want %d", got, tc.rects)
			}
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q in %s", w, s)
				}
			}
		})
	}
}

func TestHeatGridSVG(t *testing.T) {
	s := heatGridSVG("o", "overlap", []string{"bm25", "dense"}, [][]int{{4, 2}, {2, 3}})
	n := wellFormed(t, s)
	if n["rect"] != 4 {
		t.Errorf("%d cells, want 4", n["rect"])
	}
	for _, w := range []string{"bm25 ∩ dense: 2", `fill="#3c546e"`, ">3</text>"} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
	// A ragged matrix draws what it has.
	if got := wellFormed(t, heatGridSVG("o", "x", []string{"a", "b"}, [][]int{{1}}))["rect"]; got != 1 {
		t.Errorf("ragged: %d cells, want 1", got)
	}
}

func TestIntervalChartSVG(t *testing.T) {
	s := intervalChartSVG("l", "ndcg@10", []chartInterval{{Label: "bm25", Mean: 0.5, Low: 0.25, High: 0.75}, {Label: "out", Mean: 1.5, Low: -1, High: 2, Series: 1}})
	n := wellFormed(t, s)
	if n["circle"] != 2 {
		t.Errorf("%d dots, want 2", n["circle"])
	}
	// Axis from x=152 to x=512: 0.5 → 332, 0.25 → 242, 0.75 → 422; out of range is clamped.
	for _, w := range []string{`cx="332.0"`, `x1="242.0" y1="16" x2="422.0"`, `cx="512.0"`, `x1="152.0" y1="40" x2="512.0"`, "bm25: 0.500 [0.250, 0.750]"} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q in %s", w, s)
		}
	}
}

func TestChartNumber(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 4: "4", 0.25: "0.250", 1.0 / 3: "0.333", -2: "-2"} {
		if got := chartNumber(v); got != want {
			t.Errorf("chartNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestHeatTextContrast (issue 17, defect 8): the number on every heat
// shade contrasts at least 4.5:1 with it.
func TestHeatTextContrast(t *testing.T) {
	for i := 0; i <= 100; i++ {
		bg := heatColor(float64(i) / 100)
		fg := rgb{255, 255, 255}
		if bg.textColor() == "#000" {
			fg = rgb{}
		}
		a, b := bg.luminance(), fg.luminance()
		if b > a {
			a, b = b, a
		}
		if r := (a + 0.05) / (b + 0.05); r < 4.5 {
			t.Errorf("shade %d%%: %s on %s is %.2f:1", i, bg.textColor(), bg.hex(), r)
		}
	}
}

// TestBarChartLabelsFit (issue 17, defect 8): the label column is as wide
// as the longest label (up to a bound, beyond which labels are shortened),
// so no label starts left of the chart.
func TestBarChartLabelsFit(t *testing.T) {
	long := "_ that are also _ but not _"
	s := barChartSVG("c", "t", []chartBar{{Label: long, Value: 1}}, 1)
	if !strings.Contains(s, `text-anchor="end">`+long+`</text>`) || !strings.Contains(s, `<text x="195"`) {
		t.Errorf("long label not drawn whole at x=195: %s", s)
	}
	huge := strings.Repeat("x", 100)
	s = barChartSVG("c", "t", []chartBar{{Label: huge, Value: 1}}, 1)
	if strings.Contains(s, huge+"</text>") || !strings.Contains(s, "…</text>") || !strings.Contains(s, `<text x="414"`) {
		t.Errorf("huge label not shortened within 420 px: %s", s)
	}
}
