package auth

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter allows perMinute events per key (a client address) with a
// burst of the same size. Idle keys are forgotten.
type RateLimiter struct {
	mu        sync.Mutex
	perMinute int
	keys      map[string]*limiterEntry
	lastSweep time.Time
}

type limiterEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewRateLimiter returns a limiter of perMinute events per key.
func NewRateLimiter(perMinute int) *RateLimiter {
	if perMinute < 1 {
		perMinute = 1
	}
	return &RateLimiter{perMinute: perMinute, keys: map[string]*limiterEntry{}}
}

// Allow reports whether one more event for key is allowed now.
func (r *RateLimiter) Allow(key string) bool {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.lastSweep) > 5*time.Minute {
		for k, e := range r.keys {
			if now.Sub(e.seen) > 5*time.Minute {
				delete(r.keys, k)
			}
		}
		r.lastSweep = now
	}
	e, ok := r.keys[key]
	if !ok {
		e = &limiterEntry{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(r.perMinute)), r.perMinute)}
		r.keys[key] = e
	}
	e.seen = now
	return e.lim.AllowN(now, 1)
}
