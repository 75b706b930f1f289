package judging

import (
	"context"
	"sync"
	"time"

	"boolpool/server/store"
)

// availableTTL is how long a rater's count of still-available items is
// reused. The number only feeds the progress bar, so it may lag a little;
// it is refreshed at once when the rater's queue runs dry.
const availableTTL = 20 * time.Second

// openTTL is how long a project's count of open items is shared between
// its raters. Counting looks at every open item (tens of ms on a large
// pool); two hundred raters arriving at once must not each count.
const openTTL = 3 * time.Second

type openKey struct {
	project int64
	kind    string
	raters  int
}

type openEntry struct {
	n  int
	at time.Time
}

// openCache shares recent OpenItems counts; one rater counts while the
// others arriving at the same moment wait for that count.
type openCache struct {
	mu   sync.Mutex
	ttl  time.Duration
	m    map[openKey]openEntry
	busy map[openKey]chan struct{}
}

func newOpenCache(ttl time.Duration) *openCache {
	return &openCache{ttl: ttl, m: map[openKey]openEntry{}, busy: map[openKey]chan struct{}{}}
}

// get returns a fresh enough count, or counts (once for all callers).
func (c *openCache) get(ctx context.Context, k openKey, count func() (int, error)) (int, error) {
	for {
		c.mu.Lock()
		if e, ok := c.m[k]; ok && time.Since(e.at) <= c.ttl {
			c.mu.Unlock()
			return e.n, nil
		}
		wait, counting := c.busy[k]
		if !counting {
			done := make(chan struct{})
			c.busy[k] = done
			c.mu.Unlock()
			n, err := count()
			c.mu.Lock()
			if err == nil {
				c.m[k] = openEntry{n: n, at: time.Now()}
			}
			delete(c.busy, k)
			close(done)
			c.mu.Unlock()
			return n, err
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

type availKey struct {
	project, user int64
	kind          string
}

type availEntry struct {
	n    int // available items when counted
	mine int // the rater's done + skipped + leased items then
	at   time.Time
}

// availableCache keeps recent AvailableItems counts per rater.
type availableCache struct {
	mu  sync.Mutex
	ttl time.Duration
	m   map[availKey]availEntry
}

func newAvailableCache(ttl time.Duration) *availableCache {
	return &availableCache{ttl: ttl, m: map[availKey]availEntry{}}
}

func (c *availableCache) get(k availKey, now time.Time) (availEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || now.Sub(e.at) > c.ttl {
		return availEntry{}, false
	}
	return e, true
}

func (c *availableCache) put(k availKey, e availEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) > 100_000 {
		for kk, old := range c.m {
			if e.at.Sub(old.at) > c.ttl {
				delete(c.m, kk)
			}
		}
	}
	c.m[k] = e
}

// available returns the rater's count of items still available, cached for
// availableTTL. Items the rater took since the count moved from available
// to their own (mine), so the cached count is reduced by that much and the
// progress total stays steady. fresh forces a new count.
func (s *Service) available(ctx context.Context, lp store.LeaseParams, mine int, fresh bool) (int, error) {
	k := availKey{lp.ProjectID, lp.UserID, lp.Kind}
	now := time.Now()
	if e, ok := s.avail.get(k, now); ok && !fresh {
		return max(0, e.n-(mine-e.mine)), nil
	}
	count := func() (int, error) { return s.st.OpenItems(ctx, lp.ProjectID, lp.Kind, lp.Raters) }
	var open int
	var err error
	if fresh {
		open, err = count()
	} else {
		open, err = s.open.get(ctx, openKey{lp.ProjectID, lp.Kind, lp.Raters}, count)
	}
	if err != nil {
		return 0, err
	}
	theirs, err := s.st.RaterOpenItems(ctx, lp)
	if err != nil {
		return 0, err
	}
	n := max(0, open-theirs)
	s.avail.put(k, availEntry{n: n, mine: mine, at: now})
	return n, nil
}
