package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"boolpool/server/loadtest"
)

// LoadSuite runs N concurrent annotators (50 and 200) against the real
// server on loopback and compares the judgment write rate with pgbench
// single-row inserts on the same database in the same run.
func LoadSuite() Suite { return Suite{Name: "load", Run: runLoad} }

// CrashSuite kills the server with SIGKILL repeatedly (and Postgres once)
// under load and counts lost and duplicated judgments.
func CrashSuite() Suite { return Suite{Name: "crash", Run: runCrash} }

func runLoad(ctx context.Context, env *Env) ([]Row, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dur := 15 * time.Second
	if env.Quick {
		dur = 4 * time.Second
	}
	var rows []Row
	for _, n := range []int{50, 200} {
		project := fmt.Sprintf("load%d", n)
		creds, err := loadtest.Fixture(ctx, env.Store, project, 6000, n, 3)
		if err != nil {
			return nil, err
		}
		port, err := loadtest.FreePort()
		if err != nil {
			return nil, err
		}
		srv, err := loadtest.StartServer(ctx, bin, env.DBURL, fmt.Sprintf("127.0.0.1:%d", port), "-db-max-conns", "48")
		if err != nil {
			return nil, err
		}
		res := loadtest.Run(ctx, loadtest.Config{BaseURL: srv.URL(), Project: project, Users: creds, Duration: dur})
		_ = srv.Kill()
		if res.ErrorsTotal() > 0 {
			return nil, fmt.Errorf("load %d: %d errors, e.g. %v", n, res.ErrorsTotal(), res.Errors)
		}
		rate := float64(len(res.Acked)) / res.Elapsed.Seconds()
		tps, err := pgbenchInserts(ctx, env.DBURL, n, dur)
		if err != nil {
			return nil, err
		}
		p50, p99 := Percentile(res.SubmitLat, 50)*1000, Percentile(res.SubmitLat, 99)*1000
		r := Row{Suite: "load", Name: fmt.Sprintf("%d annotators: judgments written", n), Value: rate, Unit: "judgments/s", HigherIsBetter: true,
			Note: fmt.Sprintf("plus one task fetch per judgment; fetch p50 %.1f ms", Percentile(res.QueueLat, 50)*1000)}.
			WithRef(fmt.Sprintf("pgbench single-row INSERT, %d clients", n), tps)
		rows = append(rows, r.WithTarget(">= 0.50x", r.Ratio >= 0.5))
		rows = append(rows, Row{Suite: "load", Name: fmt.Sprintf("%d annotators: submit latency p50", n), Value: p50, Unit: "ms"})
		p99Row := Row{Suite: "load", Name: fmt.Sprintf("%d annotators: submit latency p99", n), Value: p99, Unit: "ms"}
		if n == 200 {
			p99Row = p99Row.WithTarget("< 50 ms", p99 < 50)
		}
		rows = append(rows, p99Row)
	}
	return rows, nil
}

var tpsRe = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchInserts measures single-row inserts into a judgments-like table
// (uuid unique key, bigint, jsonb, timestamptz) with clients connections.
func pgbenchInserts(ctx context.Context, dbURL string, clients int, dur time.Duration) (float64, error) {
	dir, err := os.MkdirTemp("", "boolpool-pgbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "insert.sql")
	if err := os.WriteFile(script, []byte("INSERT INTO bench_inserts (client_id, item_id, payload) VALUES (gen_random_uuid(), (random()*1000)::bigint, '{\"relevance\": 2}');\n"), 0o644); err != nil {
		return 0, err
	}
	if _, err := pgTool(ctx, "psql", dbURL, "-qc", `DROP TABLE IF EXISTS bench_inserts; CREATE TABLE bench_inserts (id bigserial PRIMARY KEY,
		client_id uuid NOT NULL UNIQUE, item_id bigint NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, err
	}
	out, err := pgTool(ctx, "pgbench", "-n", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(dur.Seconds())), "-f", script, dbURL)
	if err != nil {
		return 0, err
	}
	m := tpsRe.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("pgbench: no tps in output: %s", out)
	}
	return strconv.ParseFloat(m[1], 64)
}

// pgTool runs a PostgreSQL client program, preferring the server's own
// version (Debian keeps them under /usr/lib/postgresql/15/bin).
func pgTool(ctx context.Context, name string, args ...string) (string, error) {
	bin := filepath.Join("/usr/lib/postgresql/15/bin", name)
	if _, err := os.Stat(bin); err != nil {
		if bin, err = exec.LookPath(name); err != nil {
			return "", fmt.Errorf("%s not found: %w", name, err)
		}
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %w: %s", name, err, out.String())
	}
	return out.String(), nil
}

func runCrash(ctx context.Context, env *Env) ([]Row, error) {
	bin, err := os.Executable()
	if err != nil {
		return nil, err
	}
	kills := 12
	if env.Quick {
		kills = 10
	}
	rep, err := loadtest.Crash(ctx, loadtest.CrashConfig{Bin: bin, ScriptsDir: "scripts", Annotators: 50, Kills: kills,
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
