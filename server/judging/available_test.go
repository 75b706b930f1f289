package judging

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// testClock is a clock that moves only when the test moves it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestOpenCacheCountsOnceAndNeverServesStale: callers arriving together
// share one count; a count older than the TTL is not served, callers wait
// for a new one. The cache's clock is the test's: it stands still while
// the callers arrive (a caller that comes after the count finished is
// served that count, one that comes while it runs waits for it: either
// way one count for all) and moves past the TTL only when the test moves
// it, so no sleep decides the outcome.
func TestOpenCacheCountsOnceAndNeverServesStale(t *testing.T) {
	const ttl = time.Second
	clock := &testClock{t: time.Unix(1_700_000_000, 0)}
	c := newOpenCache(ttl)
	c.now = clock.now
	k := openKey{project: 1, kind: "relevance", raters: 3}
	var calls atomic.Int32
	started := make(chan struct{})
	release := make(chan struct{})
	count := func(context.Context) (int, error) {
		n := calls.Add(1)
		if n == 1 {
			close(started)
		}
		<-release
		return 10 + int(n), nil
	}
	var wg sync.WaitGroup
	got := make([]int, 20)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			n, err := c.get(context.Background(), k, count)
			if err != nil {
				t.Error(err)
			}
			got[i] = n
		}(i)
	}
	<-started // the count is in flight: callers arriving now wait for it
	close(release)
	wg.Wait()
	for i, n := range got {
		if n != 11 {
			t.Fatalf("caller %d got %d, want the one shared count 11", i, n)
		}
	}
	if calls.Load() != 1 {
		t.Fatalf("%d counts for 20 simultaneous callers, want 1", calls.Load())
	}
	fresh := func(context.Context) (int, error) { return 99, nil }
	clock.advance(ttl) // exactly the TTL old: still served
	if n, err := c.get(context.Background(), k, fresh); err != nil || n != 11 {
		t.Fatalf("read at the TTL: %d, %v; want the shared count 11", n, err)
	}
	clock.advance(time.Nanosecond) // older than the TTL now
	n, err := c.get(context.Background(), k, fresh)
	if err != nil || n != 99 {
		t.Fatalf("read after the TTL: %d, %v; want the new count 99, not the old 11", n, err)
	}
}

// countStore is a real store whose open-item counts the test sets.
type countStore struct {
	*store.Store
	open, theirs int
}

func (s *countStore) OpenItems(context.Context, int64, string, int) (int, error) { return s.open, nil }
func (s *countStore) RaterOpenItems(context.Context, store.LeaseParams) (int, error) {
	return s.theirs, nil
}

// TestProgressTotalHeldWhileRaterWorks: the total (mine + available) stays
// put from item to item, whatever other raters do, and is counted again
// when the rater's queue runs dry or their own items outgrow it (issue 17:
// 2284 → 2287 → 2300).
//
// The total is held in the database: a second server (another Service on
// the same database) shows the rater the same total.
func TestProgressTotalHeldWhileRaterWorks(t *testing.T) {
	ctx := context.Background()
	db := storetest.New(t)
	p, err := db.EnsureProject(ctx, "held")
	if err != nil {
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, store.NewUser{Username: "rater", Role: vocab.RoleAnnotator})
	if err != nil {
		t.Fatal(err)
	}
	st := &countStore{Store: db, open: 100, theirs: 0}
	servers := [2]*Service{{st: st, open: newOpenCache(0)}, {st: st, open: newOpenCache(0)}}
	lp := store.LeaseParams{ProjectID: p.ID, UserID: u.ID, Kind: "relevance", Raters: 3}
	total := func(mine int, dry bool) int {
		t.Helper()
		// The held total travels with the lease batch, as in Queue.
		hp := lp
		hp.NoNew, hp.N, hp.Lease, hp.HoldIdle = true, 1, time.Minute, totalIdle
		_, _, pr, err := db.LeaseTasks(ctx, hp)
		if err != nil {
			t.Fatal(err)
		}
		pr.Done = mine
		n, err := servers[mine%2].available(ctx, lp, pr, dry)
		if err != nil {
			t.Fatal(err)
		}
		return mine + n
	}
	if got := total(3, false); got != 103 {
		t.Fatalf("first total %d, want 103", got)
	}
	// Others fill items the rater judged (open drops, theirs drops), the
	// rater goes on.
	for mine := 4; mine < 20; mine++ {
		st.open, st.theirs = 100-mine, mine/2
		if got := total(mine, false); got != 103 {
			t.Fatalf("total after %d items: %d, want it held at 103", mine, got)
		}
	}
	// Gold items take the rater past the total: counted again.
	st.open, st.theirs = 10, 0
	if got := total(104, false); got != 114 {
		t.Fatalf("total once outgrown: %d, want 104 + 10", got)
	}
	// The queue runs dry: exact.
	st.open = 0
	if got := total(110, true); got != 110 {
		t.Fatalf("total when dry: %d, want 110", got)
	}
}

func TestOpenCacheFirstCountError(t *testing.T) {
	c := newOpenCache(time.Minute)
	boom := errors.New("database down")
	_, err := c.get(context.Background(), openKey{project: 2}, func(context.Context) (int, error) { return 0, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap the count's error", err)
	}
}
