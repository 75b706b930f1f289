package api

import "testing"

func TestNewUUID(t *testing.T) {
	a, b := NewUUID(), NewUUID()
	if a == b {
		t.Fatalf("two calls gave the same UUID %s", a)
	}
	for _, u := range []string{a, b} {
		if len(u) != 36 || u[8] != '-' || u[13] != '-' || u[18] != '-' || u[23] != '-' {
			t.Errorf("%q is not in the 8-4-4-4-12 form", u)
		}
		if u[14] != '4' {
			t.Errorf("%q: version %c, want 4", u, u[14])
		}
		if v := u[19]; v != '8' && v != '9' && v != 'a' && v != 'b' {
			t.Errorf("%q: variant nibble %c, want 8, 9, a or b", u, v)
		}
	}
}
