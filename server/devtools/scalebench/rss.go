package scalebench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"boolpool/server/store"
)

// rssSampler records, every 200 ms until stopped, the peak resident set of
// this process and the peak sum over the Postgres backends connected to
// the run's database (found by their process title "postgres: user db …";
// shared buffers they touched count in each, so the sum is an upper
// bound).
type rssSampler struct {
	once     sync.Once
	done     chan struct{}
	finished chan struct{}
	self, pg float64 // MiB
}

func startRSS(ctx context.Context, st *store.Store) *rssSampler {
	s := &rssSampler{done: make(chan struct{}), finished: make(chan struct{})}
	var db string
	_ = st.Pool().QueryRow(ctx, `SELECT current_database()`).Scan(&db)
	go func() {
		defer close(s.finished)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			s.self = max(s.self, rssMiB("self"))
			s.pg = max(s.pg, backendsMiB(db))
			select {
			case <-s.done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return s
}

// stop ends the sampling and returns the peaks (MiB); it may be called
// more than once.
func (s *rssSampler) stop() (self, pg float64) {
	s.once.Do(func() { close(s.done) })
	<-s.finished
	return s.self, s.pg
}

// rssMiB is the VmRSS of /proc/<pid>/status in MiB (0 if unreadable).
func rssMiB(pid string) float64 {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func backendsMiB(db string) float64 {
	if db == "" {
		return 0
	}
	procs, _ := os.ReadDir("/proc")
	var sum float64
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		f := strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " "))
		if len(f) >= 3 && f[0] == "postgres:" && f[2] == db {
			sum += rssMiB(p.Name())
		}
	}
	return sum
}
