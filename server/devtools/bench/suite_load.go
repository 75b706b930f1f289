package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"boolpool/api"
	"boolpool/server/devtools/loadgen"
)

// LoadSuite runs N concurrent annotators (50 and 200) against the real
// server on loopback and compares the judgment write rate with pgbench
// single-row inserts on the same database in the same run.
func LoadSuite() Suite { return Suite{Name: "load", Run: runLoad} }

// CrashSuite kills the server with SIGKILL repeatedly (and Postgres once)
// under load and counts lost and duplicated judgments.
func CrashSuite() Suite { return Suite{Name: "crash", Run: runCrash} }

func runLoad(ctx context.Context, env *Env) ([]Row, error) {
	bin, err := env.serverBin()
	if err != nil {
		return nil, err
	}
	dur, warm := 15*time.Second, 2*time.Second
	if env.Quick {
		dur, warm = 5*time.Second, time.Second
	}
	// Paced annotators pause about this long between judgments: several
	// times faster than people, who read a document for 10-60 s.
	const think = 2 * time.Second
	// Enough tasks (docs × 3 raters) that the fastest scenario does not
	// run the pool dry within its window.
	const docs = 15000
	// The paced scenario: a crowd of this many at think's pace (~500
	// judgments/s at 1,000 annotators).
	const pacedN = 1000
	// run drives one scenario on a project and server of its own, so one
	// scenario's aftermath (consensus backlog, autovacuum) is not measured
	// as the next one's latency.
	postmaster := postmasterPID(ctx, env.Store)
	run := func(project string, n int, think time.Duration) (*loadgen.Result, cpuSplit, error) {
		var cpu cpuSplit
		creds, err := loadgen.Fixture(ctx, env.Store, project, docs, n, 3)
		if err != nil {
			return nil, cpu, err
		}
		port, err := loadgen.FreePort()
		if err != nil {
			return nil, cpu, err
		}
		args := []string{"-db-max-conns", "48"}
		profile := env.ProfileDir != "" && think == 0
		debugAddr := ""
		if profile {
			dport, err := loadgen.FreePort()
			if err != nil {
				return nil, cpu, err
			}
			debugAddr = fmt.Sprintf("127.0.0.1:%d", dport)
			args = append(args, "-debug-addr", debugAddr)
		}
		srv, err := loadgen.StartServer(ctx, bin, env.DBURL, fmt.Sprintf("127.0.0.1:%d", port), args...)
		if err != nil {
			return nil, cpu, err
		}
		profiled := make(chan error, 1)
		if profile {
			go func() {
				profiled <- writeProfiles(ctx, debugAddr, filepath.Join(env.ProfileDir, project), warm, dur-warm-time.Second)
			}()
		} else {
			profiled <- nil
		}
		cfg := loadgen.Config{BaseURL: srv.URL(), Project: project, Users: creds, Duration: dur, Warmup: warm, Think: think}
		if think > 0 {
			// A paced crowd is measured in its steady state: the annotators
			// join over one refill cycle (the judgments between two task
			// fetches at think's pace), and the window starts after it.
			cfg.RampUp = pacedRampUp(think)
			cfg.Warmup += cfg.RampUp
			cfg.Duration += cfg.RampUp
		}
		// The CPU of each process over the measured window.
		window := make(chan [2]cpuSnap, 1)
		go func() {
			sleepCtx(ctx, cfg.Warmup)
			a := readCPU(postmaster, srv.PID())
			sleepCtx(ctx, cfg.Duration-cfg.Warmup)
			window <- [2]cpuSnap{a, readCPU(postmaster, srv.PID())}
		}()
		res := loadgen.Run(ctx, cfg)
		snaps := <-window
		cpu = split(snaps[0], snaps[1], res.Rate())
		perr := <-profiled
		_ = srv.Kill()
		if perr != nil {
			return nil, cpu, fmt.Errorf("%s: profiles: %w", project, perr)
		}
		if res.ErrorsTotal() > 0 {
			return nil, cpu, fmt.Errorf("%s: %d errors, e.g. %v; server log: %s", project, res.ErrorsTotal(), res.Errors[:min(3, len(res.Errors))], srv.Log(2000))
		}
		return res, cpu, nil
	}
	var rows []Row
	for _, n := range []int{50, 200} {
		res, cpu, err := run(fmt.Sprintf("load%d", n), n, 0)
		if err != nil {
			return nil, err
		}
		pg, err := pgbenchInserts(ctx, env.DBURL, n, dur-warm)
		if err != nil {
			return nil, err
		}
		var paced *loadgen.Result
		var floor, best floorResult
		if n == 200 {
			if floor, err = judgmentFloor(ctx, env, fmt.Sprintf("floor%d", n), docs, n, 3, dur-warm); err != nil {
				return nil, err
			}
			if best, err = judgmentFloor(ctx, env, fmt.Sprintf("floor%d", floorBestClients), floorBestDocs, floorBestClients, 3, dur-warm); err != nil {
				return nil, err
			}
			if paced, _, err = run(fmt.Sprintf("paced%d", pacedN), pacedN, think); err != nil {
				return nil, err
			}
		}
		p50, p99 := Percentile(res.SubmitLat, 50)*1000, Percentile(res.SubmitLat, 99)*1000
		r := Row{Suite: "load", Name: fmt.Sprintf("%d annotators, no pauses: judgments written", n), Value: res.Rate(), Unit: "judgments/s", HigherIsBetter: true,
			Note: fmt.Sprintf("tasks leased as the web judge page leases them: a batch up to %d when %d or fewer are left (api.QueueRefill/QueueAsk), %d task fetches for %d judgments (fetch p50 %.1f ms, p99 %.1f ms); %s measured after a %s warm-up",
				api.QueueHighWater, api.QueueLowWater, len(res.QueueLat), res.Measured, Percentile(res.QueueLat, 50)*1000, Percentile(res.QueueLat, 99)*1000, res.Window.Round(time.Second), warm)}.
			WithRef(fmt.Sprintf("pgbench single-row INSERT, %d clients", n), pg.tps)
		rows = append(rows, r.WithTarget(">= 0.25x", r.Ratio >= 0.25))
		rows = append(rows, cpuRows(n, res, cpu, floor, best, pg)...)
		sp99 := Row{Suite: "load", Name: fmt.Sprintf("%d annotators, no pauses: submit latency p99", n), Value: p99, Unit: "ms",
			Note: "closed loop: latency = clients / throughput (Little's law)"}.
			WithRef("pgbench INSERT latency p99, same clients", pg.p99)
		if n == 200 {
			sp99 = sp99.WithTarget("<= 100 ms", p99 <= 100)
		}
		rows = append(rows,
			Row{Suite: "load", Name: fmt.Sprintf("%d annotators, no pauses: submit latency p50", n), Value: p50, Unit: "ms"}.
				WithRef("pgbench INSERT latency p50, same clients", pg.p50),
			sp99)
		if paced != nil {
			pp99, fp99 := Percentile(paced.SubmitLat, 99)*1000, Percentile(paced.QueueLat, 99)*1000
			rows = append(rows,
				Row{Suite: "load", Name: fmt.Sprintf("%d annotators, ~%s per judgment: judgments written", pacedN, think), Value: paced.Rate(), Unit: "judgments/s", HigherIsBetter: true},
				Row{Suite: "load", Name: fmt.Sprintf("%d annotators, ~%s per judgment: submit latency p50", pacedN, think), Value: Percentile(paced.SubmitLat, 50) * 1000, Unit: "ms"},
				Row{Suite: "load", Name: fmt.Sprintf("%d annotators, ~%s per judgment: submit latency p99", pacedN, think), Value: pp99, Unit: "ms"}.
					WithTarget("< 50 ms", pp99 < 50),
				Row{Suite: "load", Name: fmt.Sprintf("%d annotators, ~%s per judgment: task fetch latency p99", pacedN, think), Value: fp99, Unit: "ms",
					Note: fmt.Sprintf("fetch p50 %.1f ms; %d fetches for %d judgments (batches as the web client); the annotators joined over the first %s (one refill cycle), %s measured after a %s warm-up", Percentile(paced.QueueLat, 50)*1000, len(paced.QueueLat), paced.Measured, pacedRampUp(think), paced.Window.Round(time.Second), warm+pacedRampUp(think))}.
					WithTarget("< 100 ms", fp99 < 100))
		}
	}
	return rows, nil
}

// pacedRampUp is how long a paced crowd takes to join: one refill cycle,
// the judgments a batch lasts (api.QueueHighWater − api.QueueLowWater) at
// think's pace.
func pacedRampUp(think time.Duration) time.Duration {
	return time.Duration(api.QueueHighWater-api.QueueLowWater) * think
}

// writeProfiles waits out the warm-up, then takes a CPU and an allocation
// profile (allocations during the window, not since start) of the server's
// next window at once, from its net/http/pprof listener on debugAddr, and
// writes them to prefix.cpu.pprof and prefix.allocs.pprof.
func writeProfiles(ctx context.Context, debugAddr, prefix string, warm, window time.Duration) error {
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(warm):
	}
	secs := max(1, int(window.Seconds()))
	errs := make(chan error, 2)
	for _, p := range []struct{ path, file string }{{"profile", ".cpu.pprof"}, {"allocs", ".allocs.pprof"}} {
		go func() {
			errs <- fetchProfile(ctx, fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", debugAddr, p.path, secs), prefix+p.file)
		}()
	}
	return errors.Join(<-errs, <-errs)
}

func fetchProfile(ctx context.Context, url, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return os.WriteFile(file, b, 0o644)
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

type pgbenchResult struct {
	tps, p50, p99 float64 // per second; milliseconds
}

// pgbenchInserts measures single-row inserts into a judgments-like table
// (uuid unique key, bigint, jsonb, timestamptz) with clients connections,
// with per-transaction latencies from pgbench's log.
func pgbenchInserts(ctx context.Context, dbURL string, clients int, dur time.Duration) (pgbenchResult, error) {
	var res pgbenchResult
	dir, err := os.MkdirTemp("", "boolpool-pgbench-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "insert.sql")
	if err := os.WriteFile(script, []byte("INSERT INTO bench_inserts (client_id, item_id, payload) VALUES (gen_random_uuid(), (random()*1000)::bigint, '{\"relevance\": 2}');\n"), 0o644); err != nil {
		return res, err
	}
	if _, err := pgTool(ctx, "", "psql", dbURL, "-qc", `DROP TABLE IF EXISTS bench_inserts; CREATE TABLE bench_inserts (id bigserial PRIMARY KEY,
		client_id uuid NOT NULL UNIQUE, item_id bigint NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return res, err
	}
	out, err := pgTool(ctx, dir, "pgbench", "-n", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(dur.Seconds())), "-l", "-f", script, dbURL)
	if err != nil {
		return res, err
	}
	m := tpsRe.FindStringSubmatch(out)
	if m == nil {
		return res, fmt.Errorf("pgbench: no tps in output: %s", out)
	}
	if res.tps, err = strconv.ParseFloat(m[1], 64); err != nil {
		return res, err
	}
	// Log lines: client_id transaction_no latency_us script_no epoch us.
	logs, err := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
	if err != nil {
		return res, err
	}
	var lat []float64
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			return res, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 3 {
				continue
			}
			us, err := strconv.ParseFloat(fields[2], 64)
			if err != nil {
				return res, fmt.Errorf("pgbench log %s: %q: %w", f, line, err)
			}
			lat = append(lat, us/1000)
		}
	}
	if len(lat) == 0 {
		return res, fmt.Errorf("pgbench wrote no transaction log in %s", dir)
	}
	res.p50, res.p99 = Percentile(lat, 50), Percentile(lat, 99)
	return res, nil
}

// pgTool runs a PostgreSQL client program, preferring the server's own
// version (Debian keeps them under /usr/lib/postgresql/15/bin).
func pgTool(ctx context.Context, dir, name string, args ...string) (string, error) {
	out, _, err := pgToolCPU(ctx, dir, name, args...)
	return out, err
}

// pgToolCPU is pgTool, also returning the program's CPU time (user +
// system) in seconds.
func pgToolCPU(ctx context.Context, dir, name string, args ...string) (string, float64, error) {
	bin := filepath.Join("/usr/lib/postgresql/15/bin", name)
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath(name); err != nil {
			return "", 0, fmt.Errorf("%s not found: %w", name, err)
		}
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("%s: %w: %s", name, err, out.String())
	}
	return out.String(), (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), nil
}

func runCrash(ctx context.Context, env *Env) ([]Row, error) {
	bin, err := env.serverBin()
	if err != nil {
		return nil, err
	}
	kills := 12
	if env.Quick {
		kills = 10
	}
	rep, err := loadgen.Crash(ctx, loadgen.CrashConfig{Bin: bin, ScriptsDir: "scripts", Annotators: 50, Kills: kills,
		KillEvery: time.Second, RestartPostgres: true, Log: env.Log})
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("%d SIGKILLs + %d Postgres fast restart; %d acknowledged, %d stored, %d client retries (%d recognised as already stored)",
		rep.Kills, rep.PGRestarts, rep.Acked, rep.Stored, rep.Retries, rep.RetriedDups)
	return []Row{
		Row{Suite: "crash", Name: "acknowledged judgments lost", Value: float64(rep.Lost), Unit: "", Note: note}.WithTarget("= 0", rep.Lost == 0),
		Row{Suite: "crash", Name: "duplicate judgments", Value: float64(rep.Duplicates), Unit: ""}.WithTarget("= 0", rep.Duplicates == 0),
	}, nil
}
