package judging

import (
	"context"
	"sync"
	"time"

	"boolpool/server/store"
)

// availableTTL is how long a rater's count of still-available items is
// reused. Counting looks at every open item of a project (tens of ms on a
// large pool), while the number only feeds the progress bar, so it may lag
// a little; it is refreshed at once when the rater's queue runs dry.
const availableTTL = 20 * time.Second

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
	n, err := s.st.AvailableItems(ctx, lp)
	if err != nil {
		return 0, err
	}
	s.avail.put(k, availEntry{n: n, mine: mine, at: now})
	return n, nil
}
