package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"boolpool/server/apperr"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
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

// TestRateLimiterAcrossServers: two limiters on one database (two servers)
// share one limit per key; other keys and scopes are not limited by it.
func TestRateLimiterAcrossServers(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	a, b := NewRateLimiter(st, "login-address", 3), NewRateLimiter(st, "login-address", 3)
	for i, r := range []*RateLimiter{a, b, a} {
		if ok, err := r.Allow(ctx, "10.0.0.1"); err != nil || !ok {
			t.Fatalf("attempt %d refused (err %v)", i+1, err)
		}
	}
	for i, r := range []*RateLimiter{a, b} {
		if ok, err := r.Allow(ctx, "10.0.0.1"); err != nil || ok {
			t.Errorf("server %d: 4th attempt within a minute allowed (err %v)", i, err)
		}
	}
	if ok, err := b.Allow(ctx, "10.0.0.2"); err != nil || !ok {
		t.Errorf("another address is limited too (err %v)", err)
	}
	if ok, err := NewRateLimiter(st, "crowd-entry", 3).Allow(ctx, "10.0.0.1"); err != nil || !ok {
		t.Errorf("another scope is limited too (err %v)", err)
	}
	// A fully refilled key is swept; a limited one stays.
	fast := NewRateLimiter(st, "fast", 60_000) // refills within a millisecond
	if ok, err := fast.Allow(ctx, "k"); err != nil || !ok {
		t.Fatalf("fast: %v %v", ok, err)
	}
	time.Sleep(5 * time.Millisecond)
	if n, err := st.DeleteIdleRateLimits(ctx); err != nil || n != 1 {
		t.Fatalf("swept %d keys (err %v), want the refilled one", n, err)
	}
	if ok, err := a.Allow(ctx, "10.0.0.1"); err != nil || ok {
		t.Errorf("the sweep forgot a limited address (err %v)", err)
	}
}

// Issue 29 item 4: sign-in limits lock out guessing, not the owner. Wrong
// guesses from one address end in 429 for that address, while the right
// password from another address still signs in; guesses spread over
// fresh addresses get one try each once the account's all-address limit
// is used up.
func TestLoginGuessingDoesNotLockOutOwner(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	hash, err := HashPassword("the right one", HashParams{MemoryKiB: 1024, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, store.NewUser{Username: "admin", Role: vocab.RoleAdmin, PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	s := New(st, Options{LoginPerMinute: 1000, AccountLoginPerMinute: 5, AccountBackoff: 50 * time.Millisecond}, slog.New(slog.DiscardHandler))
	codes := map[string]int{}
	for i := 0; i < 12; i++ {
		_, err := s.Login(ctx, "admin", fmt.Sprintf("guess %d", i), "10.0.0.1")
		switch {
		case errors.Is(err, apperr.ErrUnauthorized):
			codes["401"]++
		case errors.Is(err, apperr.ErrRateLimited):
			codes["429"]++
		default:
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	if codes["401"] != 5 || codes["429"] != 7 {
		t.Errorf("12 guesses from one address: %v, want 5 checked and 7 refused", codes)
	}
	// The owner, from another address, signs in.
	if l, err := s.Login(ctx, "admin", "the right one", "10.0.0.2"); err != nil || l.User.Username != "admin" {
		t.Fatalf("the right password from another address after 12 guesses: %v", err)
	}
	// Guesses spread over addresses: the account's limit (5) is used up,
	// so each fresh address is heard once, then refused.
	for i := 0; i < 3; i++ {
		addr := fmt.Sprintf("10.0.1.%d", i)
		if _, err := s.Login(ctx, "admin", "spread guess", addr); !errors.Is(err, apperr.ErrUnauthorized) {
			t.Errorf("first guess from %s: %v, want 401", addr, err)
		}
		if _, err := s.Login(ctx, "admin", "spread guess 2", addr); !errors.Is(err, apperr.ErrRateLimited) {
			t.Errorf("second guess from %s past the account's limit: %v, want 429", addr, err)
		}
	}
	// The first address, which failed, stays refused even with the right
	// password; the owner's address still gets in.
	if _, err := s.Login(ctx, "admin", "the right one", "10.0.0.1"); !errors.Is(err, apperr.ErrRateLimited) {
		t.Errorf("the guessing address: %v, want 429", err)
	}
	if _, err := s.Login(ctx, "admin", "the right one", "10.0.0.2"); err != nil {
		t.Errorf("the owner's address again: %v", err)
	}
}
