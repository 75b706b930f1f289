package web

import (
	"testing"

	"boolpool/api"
)

func TestAttributionText(t *testing.T) {
	as := []api.Attribution{
		{Atom: 0, Sentences: []int{1, 2}, Satisfied: api.SatisfiedYes},
		{Atom: 1, Sentences: []int{0}, Counter: true, Satisfied: api.SatisfiedYes},
		{Atom: 2, Satisfied: api.SatisfiedNo},
	}
	tests := []struct {
		atom int
		want string
	}{
		{0, "yes (sentences 2, 3)"},
		{1, "yes (counter-evidence 1)"},
		{2, "no"},
		{3, "—"},
	}
	for _, tc := range tests {
		if got := attributionText(as, tc.atom); got != tc.want {
			t.Errorf("atom %d: %q, want %q", tc.atom, got, tc.want)
		}
	}
}

func TestCoefficientFormats(t *testing.T) {
	v := 0.1234567
	if coefText(nil) != "—" || coefData(nil) != "" || coefText(&v) != "0.123" || coefData(&v) != "0.123457" {
		t.Errorf("coefText/coefData: %q %q %q %q", coefText(nil), coefData(nil), coefText(&v), coefData(&v))
	}
	if got := countsText(map[string]any{"qrels": 6, "lines": 6.0, "bytes": "10"}); got != "bytes 10, lines 6, qrels 6" {
		t.Errorf("countsText = %q", got)
	}
	if got := relevanceName(2); got != "2 likely relevant" {
		t.Errorf("relevanceName(2) = %q", got)
	}
	if got := relevanceName(7); got != "7" {
		t.Errorf("relevanceName(7) = %q", got)
	}
}

// TestDispositionName: the saved file takes the server's name.
func TestDispositionName(t *testing.T) {
	for cd, want := range map[string]string{
		`attachment; filename="fixture-idmap-1a2b3c4d.tsv"`: "fixture-idmap-1a2b3c4d.tsv",
		`attachment`:              "",
		`attachment; filename="x`: "",
	} {
		if got := dispositionName(cd); got != want {
			t.Errorf("dispositionName(%q) = %q, want %q", cd, got, want)
		}
	}
}

// TestCountsText: an export record's byte count reads as an integer, not
// 1.211073e+06, and empty fields are left out.
func TestCountsText(t *testing.T) {
	got := countsText(map[string]any{
		"bytes": float64(1211073), "qrels": float64(12), "mode": "", "runs": []any{},
		"score": 0.5, "format": "trec", "missing": nil,
	})
	want := "bytes 1211073, format trec, qrels 12, score 0.5"
	if got != want {
		t.Errorf("countsText = %q, want %q", got, want)
	}
}
