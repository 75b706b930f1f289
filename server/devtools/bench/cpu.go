package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"boolpool/server/store"
)

// Where the CPU of a load scenario goes, from /proc (Linux, the database on
// this machine): the Postgres processes (the postmaster's children), the
// server process, and this process (the load generator). Read at two
// instants, the difference is each one's CPU time over the window.

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux).
const clockTicks = 100

// cpuSnap is one reading.
type cpuSnap struct {
	at     time.Time
	pg     map[int]float64 // seconds per Postgres process
	server float64         // seconds
	self   float64         // seconds, this process (user + system)
}

// cpuSplit is CPU seconds per judgment (milliseconds) over a window.
type cpuSplit struct {
	pg, server, client float64 // ms per judgment
	window             time.Duration
}

// postmasterPID is the parent of a backend of the database st opens, or 0
// when it cannot be read (a database on another machine).
func postmasterPID(ctx context.Context, st *store.Store) int {
	var backend int
	if err := st.Pool().QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		return 0
	}
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(backend), "status"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// procCPU is a process's user + system CPU time and parent pid.
func procCPU(pid int) (secs float64, ppid int, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) may hold spaces: fields after its ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ppid, _ = strconv.Atoi(f[1])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / clockTicks, ppid, nil
}

// readCPU takes a reading; postmaster 0 leaves pg empty.
func readCPU(postmaster, server int) cpuSnap {
	c := cpuSnap{at: time.Now(), pg: map[int]float64{}}
	if postmaster > 0 {
		if ents, err := os.ReadDir("/proc"); err == nil {
			for _, e := range ents {
				pid, err := strconv.Atoi(e.Name())
				if err != nil {
					continue
				}
				if secs, ppid, err := procCPU(pid); err == nil && ppid == postmaster {
					c.pg[pid] = secs
				}
			}
		}
	}
	if server > 0 {
		c.server, _, _ = procCPU(server)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	return c
}

// split is the CPU between two readings per judgment written at rate
// (judgments/s) over the same window. A Postgres process that ended inside
// the window is not counted (its time is lost with it); one that started
// inside it counts from zero.
func split(a, b cpuSnap, rate float64) cpuSplit {
	w := b.at.Sub(a.at)
	n := rate * w.Seconds()
	if n <= 0 {
		return cpuSplit{window: w}
	}
	var pg float64
	for pid, secs := range b.pg {
		pg += secs - a.pg[pid]
	}
	return cpuSplit{pg: pg / n * 1000, server: (b.server - a.server) / n * 1000, client: (b.self - a.self) / n * 1000, window: w}
}

// machineBusy returns the busy and total jiffies of all CPUs (/proc/stat).
func machineBusy() (busy, total float64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
		x, _ := strconv.ParseFloat(v, 64)
		total += x
		if i != 3 && i != 4 { // idle, iowait
			busy += x
		}
	}
	return busy / clockTicks, total / clockTicks, nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
