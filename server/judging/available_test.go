package judging

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOpenCacheCountsOnceAndServesStale: callers arriving together share
// one count; later an old count is served at once while one refresh runs.
func TestOpenCacheCountsOnceAndServesStale(t *testing.T) {
	c := newOpenCache(time.Millisecond)
	k := openKey{project: 1, kind: "relevance", raters: 3}
	var calls atomic.Int32
	release := make(chan struct{})
	count := func(context.Context) (int, error) {
		<-release
		return 10 + int(calls.Add(1)), nil
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
	time.Sleep(20 * time.Millisecond)
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
	time.Sleep(5 * time.Millisecond) // older than the TTL now
	slow := make(chan struct{})
	n, err := c.get(context.Background(), k, func(context.Context) (int, error) { <-slow; return 99, nil })
	if err != nil || n != 11 {
		t.Fatalf("stale read: %d, %v; want the old count 11 without waiting", n, err)
	}
	close(slow)
	deadline := time.Now().Add(2 * time.Second)
	for {
		c.mu.Lock()
		e := c.m[k]
		c.mu.Unlock()
		if e.n == 99 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background refresh never stored its count")
		}
		time.Sleep(time.Millisecond)
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
