package httpapi

import (
	"errors"
	"testing"

	"boolpool/server/apperr"
)

// TestImportGate: a user gets at most max imports at once, the next is
// refused as rate limited (429) naming the flag; another user is not
// affected; leaving frees the place (once, however often it is called).
func TestImportGate(t *testing.T) {
	g := newImportGate(2)
	l1, err := g.enter(1)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := g.enter(1)
	if err != nil {
		t.Fatal(err)
	}
	var ref *apperr.Refused
	if _, err := g.enter(1); !errors.Is(err, apperr.ErrRateLimited) || !errors.As(err, &ref) || ref.Field != "files" {
		t.Fatalf("third import: %v, want rate limited on files", err)
	}
	l3, err := g.enter(2)
	if err != nil {
		t.Fatalf("another user: %v", err)
	}
	l1()
	l1()
	l4, err := g.enter(1)
	if err != nil {
		t.Fatalf("after one left: %v", err)
	}
	if _, err := g.enter(1); err == nil {
		t.Fatal("a leave counted twice")
	}
	l2()
	l3()
	l4()
	if len(g.running) != 0 {
		t.Fatalf("running %v after all left", g.running)
	}
}
