package textseg

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", []string{}},
		{"spaces", "  \n ", []string{}},
		{"one", "Hello world", []string{"Hello world"}},
		{"two", "It rains. The sun shines!", []string{"It rains.", "The sun shines!"}},
		{"abbrev", "Tools, e.g. Foo. Next one.", []string{"Tools, e.g. Foo.", "Next one."}},
		{"initial", "Written by J. R. Smith. Done.", []string{"Written by J. R. Smith.", "Done."}},
		{"lowercase after dot", "version 1.2 is out. and more", []string{"version 1.2 is out. and more"}},
		{"short then long (debian)", "Real-time strategy game\n0 A.D. is a free game. It is\nhistorical.",
			[]string{"Real-time strategy game\n0 A.D. is a free game.", "It is\nhistorical."}},
		{"summary line ends", "Short summary.\nLong text here.", []string{"Short summary.", "Long text here."}},
		{"paragraphs", "First para\nwraps here\n\nSecond para", []string{"First para\nwraps here", "Second para"}},
		{"list", "Features:\n * one\n * two", []string{"Features:", "* one", "* two"}},
		{"quote", `He said "Stop." Then left.`, []string{`He said "Stop."`, "Then left."}},
		{"unicode", "Ça marche. Über gut.", []string{"Ça marche.", "Über gut."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Split(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Split(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzStarts(f *testing.F) {
	for _, s := range []string{"", "A. B.", "x\n\ny", "é. Ü", "e.g. X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		starts := Starts(s)
		prev := int32(-1)
		for _, st := range starts {
			if st <= prev || int(st) >= len(s) {
				t.Fatalf("bad starts %v for %q", starts, s)
			}
			prev = st
		}
	})
}

// TestCountWords: CountWords agrees with strings.Fields (Unicode spaces
// too) and allocates nothing on a line of a million tokens.
func TestCountWords(t *testing.T) {
	for _, s := range []string{"", "  ", "a", " a  b\tc\u00a0d\u2003e ", "q1 Q0 d1 1 2.5 tag extra words"} {
		if got, want := CountWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("CountWords(%q) = %d, want %d", s, got, want)
		}
	}
	long := strings.Repeat(" x", 1_000_000)
	if allocs := testing.AllocsPerRun(3, func() {
		if n := CountWords(long); n != 1_000_000 {
			t.Fatalf("%d words, want 1000000", n)
		}
	}); allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
