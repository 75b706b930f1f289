package judging

import (
	"context"
	"fmt"
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

// openCache shares recent OpenItems counts between raters. Only the first
// count of a project blocks (once for all callers arriving together); after
// that an old count is served while one refresh runs in the background, so
// no rater waits for a count.
type openCache struct {
	mu   sync.Mutex
	ttl  time.Duration
	m    map[openKey]openEntry
	busy map[openKey]chan struct{}
	errs map[openKey]error // the last failed count's error
}

func newOpenCache(ttl time.Duration) *openCache {
	return &openCache{ttl: ttl, m: map[openKey]openEntry{}, busy: map[openKey]chan struct{}{}, errs: map[openKey]error{}}
}

// get returns the latest count, starting a refresh when it is older than
// the TTL; count runs without the caller's cancellation.
func (c *openCache) get(ctx context.Context, k openKey, count func(context.Context) (int, error)) (int, error) {
	c.mu.Lock()
	e, have := c.m[k]
	wait, counting := c.busy[k]
	if (!have || time.Since(e.at) > c.ttl) && !counting {
		wait = make(chan struct{})
		c.busy[k] = wait
		go c.refresh(context.WithoutCancel(ctx), k, wait, count)
	}
	c.mu.Unlock()
	if have {
		return e.n, nil
	}
	select {
	case <-wait:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, have = c.m[k]; !have {
		return 0, fmt.Errorf("judging: count open items of project %d: %w", k.project, c.errs[k])
	}
	return e.n, nil
}

func (c *openCache) refresh(ctx context.Context, k openKey, done chan struct{}, count func(context.Context) (int, error)) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := count(ctx)
	c.mu.Lock()
	if err == nil {
		c.m[k] = openEntry{n: n, at: time.Now()}
	} else {
		c.errs[k] = err
	}
	delete(c.busy, k)
	close(done)
	c.mu.Unlock()
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
	count := func(ctx context.Context) (int, error) { return s.st.OpenItems(ctx, lp.ProjectID, lp.Kind, lp.Raters) }
	var open int
	var err error
	if fresh {
		open, err = count(ctx)
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
