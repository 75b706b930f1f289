// Package bench is boolpool's benchmark harness: suites measure a figure
// and, in the same run, a reference to compare it with, repeat both, and
// report medians and their ratio. 'boolpool-lab bench' runs the suites and
// prints one table (also written to bench/results.md).
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"boolpool/encoders"
	"boolpool/server/store"
)

// Row is one measured figure.
type Row struct {
	Suite     string
	Name      string
	Value     float64
	Unit      string
	Reference string  // what Value is compared with ("" = none)
	RefValue  float64 // the reference's median, same unit
	// Ratio is Value/RefValue, or RefValue/Value when HigherIsBetter is
	// false, so that > 1 always means "better than the reference".
	Ratio          float64
	HigherIsBetter bool
	Target         string // e.g. ">= 0.95x"; "" = none
	Met            *bool  // nil when there is no target
	Note           string
}

// WithRef fills in the reference and the ratio.
func (r Row) WithRef(name string, refValue float64) Row {
	r.Reference, r.RefValue = name, refValue
	if refValue > 0 && r.Value > 0 {
		if r.HigherIsBetter {
			r.Ratio = r.Value / refValue
		} else {
			r.Ratio = refValue / r.Value
		}
	}
	return r
}

// WithTarget records whether a target was met.
func (r Row) WithTarget(target string, met bool) Row {
	r.Target, r.Met = target, &met
	return r
}

// Env is what suites get.
type Env struct {
	Store      *store.Store // a database of its own for the run
	DBURL      string
	SharedData string // ../shared/data when available, else ""
	// Runtime hands the suites that encode the ONNX Runtime; the caller
	// opens it (see SharedRuntime) and closes it after the run, so the
	// suites never open or close one themselves.
	Runtime func() (*encoders.Runtime, error)
	// OpenRuntime opens a further runtime with other session options (the
	// encoders-int8 suite's single-threaded sessions); the suite closes it.
	// nil: the figures that need one are left out.
	OpenRuntime func(encoders.Config) (*encoders.Runtime, error)
	Repeats     int
	Quick       bool
	Log         *slog.Logger
	Progress    io.Writer
	// ProfileDir, when set, makes the load suite start its servers with
	// net/http/pprof on a loopback port and write a CPU and an allocation
	// profile of each saturated scenario's measured window there (dev
	// tooling: the served pprof listener is off unless asked for).
	ProfileDir string
	// ServerBin is the server binary (bin/boolpool) the load, crash,
	// uploads and login suites start as child processes ('serve'); the lab
	// binary that runs the suites is not a server.
	ServerBin string
}

// serverBin is env.ServerBin, or an error naming the flag when unset.
func (env *Env) serverBin() (string, error) {
	if env.ServerBin == "" {
		return "", fmt.Errorf("no server binary: pass --server-bin (bin/boolpool)")
	}
	return env.ServerBin, nil
}

// OpenEncoder opens the named encoder on env.Runtime; the caller closes it.
func (env *Env) OpenEncoder(ctx context.Context, name string) (*encoders.ONNXEncoder, error) {
	rt, err := env.Runtime()
	if err != nil {
		return nil, err
	}
	return rt.Open(ctx, name)
}

// SharedRuntime makes an Env.Runtime that calls open on first use and
// hands the same runtime out after; release closes it if it was opened.
func SharedRuntime(open func() (*encoders.Runtime, error)) (get func() (*encoders.Runtime, error), release func()) {
	var (
		mu sync.Mutex
		rt *encoders.Runtime
	)
	get = func() (*encoders.Runtime, error) {
		mu.Lock()
		defer mu.Unlock()
		if rt == nil {
			r, err := open()
			if err != nil {
				return nil, err
			}
			rt = r
		}
		return rt, nil
	}
	release = func() {
		mu.Lock()
		defer mu.Unlock()
		if rt != nil {
			rt.Close()
			rt = nil
		}
	}
	return get, release
}

// Suite is one named group of measurements.
type Suite struct {
	Name string
	Run  func(ctx context.Context, env *Env) ([]Row, error)
}

// Median of xs (xs is reordered).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Percentile returns the p-th percentile (0–100, nearest rank) of xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	k := int(float64(len(s))*p/100+0.5) - 1
	k = max(0, min(k, len(s)-1))
	return s[k]
}

// Time runs fn repeats times and returns the median duration in seconds.
func Time(repeats int, fn func() error) (float64, error) {
	var ts []float64
	for i := 0; i < max(1, repeats); i++ {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ts = append(ts, time.Since(start).Seconds())
	}
	return Median(ts), nil
}

// MachineInfo describes where the numbers were taken.
func MachineInfo() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				if _, v, ok := strings.Cut(l, ":"); ok {
					cpu = strings.TrimSpace(v)
				}
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/1024/1024)
		}
	}
	return fmt.Sprintf("%s, %d cores%s, %s %s/%s", cpu, runtime.NumCPU(), mem, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// Markdown renders the rows as one table.
func Markdown(w io.Writer, rows []Row, info string, took time.Duration) {
	fmt.Fprintf(w, "# boolpool-lab benchmarks\n\nMachine: %s  \nDate: %s, total time %s.  \n", info, time.Now().UTC().Format(time.RFC3339), took.Round(time.Second))
	fmt.Fprintf(w, "Figures are medians over repeats; ratio > 1 means better than the reference measured in the same run.\n\n")
	fmt.Fprintln(w, "| suite | figure | value | reference | ref value | ratio | target | met | note |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---|---|---|")
	for _, r := range rows {
		ref, refv, ratio := "", "", ""
		if r.Reference != "" {
			ref = r.Reference
			refv = fmtNum(r.RefValue) + " " + r.Unit
			if r.Ratio > 0 {
				ratio = fmt.Sprintf("%.2fx", r.Ratio)
			}
		}
		met := ""
		if r.Met != nil {
			met = "no"
			if *r.Met {
				met = "yes"
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s %s | %s | %s | %s | %s | %s | %s |\n", r.Suite, r.Name, fmtNum(r.Value), r.Unit, ref, refv, ratio, r.Target, met, r.Note)
	}
}

func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.01:
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.2e", v)
	}
}
