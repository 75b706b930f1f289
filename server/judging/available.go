package judging

import (
	"context"
	"fmt"
	"sync"
	"time"

	"boolpool/server/store"
)

// totalIdle is how long a rater's progress total is kept between two of
// their requests. The total is counted when they start (or come back after
// this long) and then held: it changes only when their queue runs dry or
// their own items outgrow it, never from item to item (issue 17: it moved
// 2284 → 2287 → 2300 while one rater judged).
const totalIdle = 30 * time.Minute

// openTTL is the oldest shared count of a project's open items a total is
// counted from. Counting looks at every open item (tens of ms on a large
// pool); two hundred raters arriving at once share one count.
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

// openCache shares recent OpenItems counts between raters: a count at most
// the TTL old is reused, and callers arriving while one is made wait for
// it (one count for all of them). Each server keeps its own: with several
// servers on one database every count is still at most the TTL old (read
// from the database, which all of them write), at the cost of one count per
// server per TTL. It never serves an older count: a total
// counted from an old count of open items and a fresh count of the rater's
// own would be off by every item filled in between.
type openCache struct {
	mu   sync.Mutex
	ttl  time.Duration
	now  func() time.Time // the clock counts are aged by (time.Now; tests set their own)
	m    map[openKey]openEntry
	busy map[openKey]chan struct{}
	errs map[openKey]error // the last failed count's error
}

func newOpenCache(ttl time.Duration) *openCache {
	return &openCache{ttl: ttl, now: time.Now, m: map[openKey]openEntry{}, busy: map[openKey]chan struct{}{}, errs: map[openKey]error{}}
}

// get returns a count at most the TTL old, counting (once for all callers
// arriving together) when there is none; count runs without the caller's
// cancellation.
func (c *openCache) get(ctx context.Context, k openKey, count func(context.Context) (int, error)) (int, error) {
	c.mu.Lock()
	e, have := c.m[k]
	if have && c.now().Sub(e.at) <= c.ttl {
		c.mu.Unlock()
		return e.n, nil
	}
	wait, counting := c.busy[k]
	if !counting {
		wait = make(chan struct{})
		c.busy[k] = wait
		delete(c.errs, k)
		go c.refresh(context.WithoutCancel(ctx), k, wait, count)
	}
	c.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.errs[k]; err != nil {
		return 0, fmt.Errorf("judging: count open items of project %d: %w", k.project, err)
	}
	return c.m[k].n, nil
}

func (c *openCache) refresh(ctx context.Context, k openKey, done chan struct{}, count func(context.Context) (int, error)) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	n, err := count(ctx)
	c.mu.Lock()
	if err == nil {
		c.m[k] = openEntry{n: n, at: c.now()}
	} else {
		c.errs[k] = err
	}
	delete(c.busy, k)
	close(done)
	c.mu.Unlock()
}

// available returns how many items the rater can still get, as the rest
// of a total held while they work: total − mine, where mine is their done,
// skipped and leased items. The total is counted (mine + open items they
// may still be given) on their first request, after totalIdle away, when
// their queue runs dry (dry: the end is exact) and when mine outgrows it
// (gold items are not among the open items); in between it stays put,
// whatever other raters do, so the bar's total does not move from item to
// item. The total is held in the database, so a rater whose requests reach
// several servers sees one total.
//
// The held total comes with the lease (lp.HoldIdle = totalIdle): pr is
// what LeaseTasks returned.
func (s *Service) available(ctx context.Context, lp store.LeaseParams, pr store.RaterProgress, dry bool) (int, error) {
	mine := pr.Done + pr.Skipped + pr.Leased
	total, held := pr.Total, pr.TotalHeld
	if held && !dry && mine <= total {
		return total - mine, nil
	}
	open, err := s.open.get(ctx, openKey{lp.ProjectID, lp.Kind, lp.Raters}, func(ctx context.Context) (int, error) {
		return s.st.OpenItems(ctx, lp.ProjectID, lp.Kind, lp.Raters)
	})
	if err != nil {
		return 0, err
	}
	theirs, err := s.st.RaterOpenItems(ctx, lp)
	if err != nil {
		return 0, err
	}
	n := max(0, open-theirs)
	if err := s.st.HoldTotal(ctx, lp.ProjectID, lp.UserID, lp.Kind, mine+n); err != nil {
		return 0, err
	}
	return n, nil
}
