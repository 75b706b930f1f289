package trecfmt

import (
	"reflect"
	"strings"
	"testing"
)

// TestFieldsWithoutBuildingThem: firstFields agrees with strings.Fields
// (the count is textseg.CountWords, tested there); a qrels or run line of
// a million tokens is refused or read without a million strings (issue 29).
func TestFieldsWithoutBuildingThem(t *testing.T) {
	for _, s := range []string{"", "  ", "a", " a  b\tc\u00a0d\u2003e ", "q1 Q0 d1 1 2.5 tag extra words"} {
		all := strings.Fields(s)
		want := all[:min(len(all), 3)]
		if got := firstFields(s, 3); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("firstFields(%q, 3) = %q, want %q", s, got, want)
		}
	}
	long := "q1 Q0 d1 1 2.5 tag" + strings.Repeat(" x", 1_000_000)
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := parseRunLine(long, "run.txt", 1); err != nil {
			t.Fatal(err)
		}
		if _, err := parseQrel(long, "qrels.txt", 1); err == nil || !strings.Contains(err.Error(), "got 1000006") {
			t.Fatalf("qrel: %v", err)
		}
	})
	if allocs > 20 {
		t.Fatalf("%v allocations for a line of a million tokens", allocs)
	}
}
