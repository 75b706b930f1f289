package bench

import (
	"os"
	"testing"
	"time"
)

// TestProcCPU reads this process's CPU time and parent from /proc: the
// parent is the one the runtime reports, and the time grows with work.
func TestProcCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	before, ppid, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ppid != os.Getppid() {
		t.Fatalf("parent %d, want %d", ppid, os.Getppid())
	}
	x := 0
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
		x++
	}
	after, _, err := procCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if after-before < 0.05 {
		t.Fatalf("100 ms of spinning (%d rounds) counted as %.3f s of CPU", x, after-before)
	}
	busy, total, err := machineBusy()
	if err != nil {
		t.Fatal(err)
	}
	if busy <= 0 || busy > total {
		t.Fatalf("machine busy %.1f s of %.1f s", busy, total)
	}
}

// TestSplit divides each process's CPU over the window by the judgments
// written in it; a Postgres process absent from the first reading (a
// backend started in the window) counts from zero.
func TestSplit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := cpuSnap{at: t0, pg: map[int]float64{10: 5, 11: 1}, server: 2, self: 1}
	b := cpuSnap{at: t0.Add(10 * time.Second), pg: map[int]float64{10: 9, 11: 2, 12: 1}, server: 6, self: 2}
	got := split(a, b, 1000) // 10,000 judgments in the window
	want := cpuSplit{pg: 0.6, server: 0.4, client: 0.1, window: 10 * time.Second}
	near := func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 }
	if !near(got.pg, want.pg) || !near(got.server, want.server) || !near(got.client, want.client) || got.window != want.window {
		t.Fatalf("split = %+v, want %+v", got, want)
	}
	if z := split(a, b, 0); z.pg != 0 || z.server != 0 {
		t.Fatalf("no judgments: %+v, want zero", z)
	}
}
