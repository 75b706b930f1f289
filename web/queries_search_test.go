package web

import (
	"fmt"
	"testing"

	"boolpool/api"
)

func TestMatchingQueries(t *testing.T) {
	qs := []api.QueryExpression{
		{ExtID: "q1", Text: "Birds of the Venezuelan Andes", Atoms: []string{"birds of Colombia"}},
		{ExtID: "q2", Text: "Films set in Paris"},
		{ExtID: "q10", Text: "Comedy films"},
	}
	ids := func(text string) []string {
		var out []string
		for _, q := range matchingQueries(qs, text) {
			out = append(out, q.ExtID)
		}
		return out
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"", []string{"q1", "q2", "q10"}},
		{"  FILMS ", []string{"q2", "q10"}},
		{"colombia", []string{"q1"}},
		{"q1", []string{"q1", "q10"}},
		{"nothing", nil},
	} {
		if got := ids(tc.text); len(got) != len(tc.want) || (len(got) > 0 && fmt.Sprint(got) != fmt.Sprint(tc.want)) {
			t.Errorf("matchingQueries(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
