package lexical_test

import (
	"context"
	"slices"
	"testing"

	"boolpool/server/lexical"
)

// TestSlots: candidates are numbered in the order first added, a second
// Add keeps the slot, and a released numbering comes back empty.
func TestSlots(t *testing.T) {
	docs := make([]lexical.Doc, 10)
	for i := range docs {
		docs[i] = lexical.Doc{ExtID: string(rune('a' + i)), Body: "word"}
	}
	ix, err := lexical.Build(context.Background(), docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	s := ix.Slots()
	for _, d := range []uint32{7, 2, 7, 9, 2} {
		s.Add(d)
	}
	if !slices.Equal(s.Docs, []uint32{7, 2, 9}) || s.Of(2) != 1 || s.Of(9) != 2 || s.Of(3) != -1 || s.Len() != 3 {
		t.Fatalf("docs %v, slot of 2 = %d, of 9 = %d, of 3 = %d", s.Docs, s.Of(2), s.Of(9), s.Of(3))
	}
	s.Release()
	s = ix.Slots()
	defer s.Release()
	if s.Len() != 0 || s.Of(7) != -1 || s.Add(3) != 0 {
		t.Fatalf("a borrowed numbering is not empty: %v, slot of 7 = %d", s.Docs, s.Of(7))
	}
}
