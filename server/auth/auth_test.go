package auth

import (
	"strings"
	"testing"
)

func TestPasswordHash(t *testing.T) {
	p := HashParams{MemoryKiB: 1024, Time: 1, Threads: 1}
	h, err := HashPassword("s3cret pass", p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("encoding %q", h)
	}
	h2, _ := HashPassword("s3cret pass", p)
	if h == h2 {
		t.Error("two hashes of one password are equal: salt missing")
	}
	tests := []struct {
		name, hash, pw string
		ok             bool
		wantErr        bool
	}{
		{"right", h, "s3cret pass", true, false},
		{"wrong", h, "s3cret pasS", false, false},
		{"empty", h, "", false, false},
		{"garbage", "nonsense", "x", false, true},
		{"bcrypt", "$2a$10$abcdefghijklmnopqrstuv", "x", false, true},
		{"bad params", "$argon2id$v=19$m=0,t=1,p=1$c2FsdA$a2V5", "x", false, true},
	}
	for _, tc := range tests {
		ok, err := VerifyPassword(tc.hash, tc.pw)
		if ok != tc.ok || (err != nil) != tc.wantErr {
			t.Errorf("%s: ok=%v err=%v", tc.name, ok, err)
		}
	}
}

func TestRateLimiter(t *testing.T) {
	r := NewRateLimiter(3)
	for i := 0; i < 3; i++ {
		if !r.Allow("a") {
			t.Fatalf("attempt %d refused", i+1)
		}
	}
	if r.Allow("a") {
		t.Error("4th attempt within a minute allowed")
	}
	if !r.Allow("b") {
		t.Error("another address is limited too")
	}
}
