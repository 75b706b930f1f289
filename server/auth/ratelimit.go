package auth

import (
	"context"
	"sync"
	"time"
)

// RateStore keeps rate limits in the database, so every server on it
// shares them.
type RateStore interface {
	AllowRate(ctx context.Context, scope, key string, every time.Duration, burst int) (bool, error)
	RateHeld(ctx context.Context, scope, key string) (bool, error)
	DeleteIdleRateLimits(ctx context.Context) (int64, error)
}

// RateLimiter allows perMinute events per key (a client address or an
// account name) with a burst of the same size, counted in the database:
// two servers behind one balancer give an address perMinute attempts, not
// twice that. Each event is one indexed upsert; keys idle long enough to
// be fully refilled are swept at most once a minute per process.
type RateLimiter struct {
	st        RateStore
	scope     string
	perMinute int

	mu        sync.Mutex
	lastSweep time.Time
}

// NewRateLimiter returns a limiter of perMinute events per key in scope.
func NewRateLimiter(st RateStore, scope string, perMinute int) *RateLimiter {
	if perMinute < 1 {
		perMinute = 1
	}
	return &RateLimiter{st: st, scope: scope, perMinute: perMinute}
}

// Allow reports whether one more event for key is allowed now.
func (r *RateLimiter) Allow(ctx context.Context, key string) (bool, error) {
	r.mu.Lock()
	sweep := time.Since(r.lastSweep) > time.Minute
	if sweep {
		r.lastSweep = time.Now()
	}
	r.mu.Unlock()
	if sweep {
		// A failed sweep only leaves refilled rows behind.
		_, _ = r.st.DeleteIdleRateLimits(ctx)
	}
	return r.st.AllowRate(ctx, r.scope, key, time.Minute/time.Duration(r.perMinute), r.perMinute)
}
