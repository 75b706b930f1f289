package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"time"

	"boolpool/server/devtools/loadgen"
)

// The judging path's floor: what Postgres alone does for a judgment, run
// by pgbench with the load scenario's clients and no server. Each pgbench
// transaction is one rater's cycle with the fewest statements the design
// allows: lease up to four items with the real lease_items function (the
// web client's batch of four new tasks per fetch), write their judgments
// in one INSERT (as the server's batch writer does), mark the leases done
// (the real triggers keep the progress and taken counts), commit. Left
// out, so the floor is below what the product can reach: the session
// look-up and authorisation read, the supersede look-up, the activity
// counter, the consensus refresh and its audit row, HTTP and JSON. The
// ratio of this rate to pgbench's single-row INSERT is the most the
// judging path can reach on the box.

// floorScript is the pgbench script; :project is set with -D, each client
// is one rater (bench_floor_raters maps pgbench's client_id to a user).
const floorScript = `BEGIN;
SELECT user_id AS uid FROM bench_floor_raters WHERE n = :client_id \gset
SELECT count(*) FROM lease_items(:project, :uid, 'relevance', 4, 3, 0, 60);
INSERT INTO judgments (client_id, item_id, user_id, kind, relevance, evidence, attributions, time_spent_ms)
	SELECT gen_random_uuid(), a.item_id, a.user_id, 'relevance', 2, 'partial', '[]', 1000
	FROM assignments a WHERE a.user_id = :uid AND a.status = 'leased';
UPDATE assignments SET status = 'done', done_at = now() WHERE user_id = :uid AND status = 'leased';
COMMIT;
`

var pgbenchTxRe = regexp.MustCompile(`number of transactions actually processed: ([0-9]+)`)

// floorResult is a floor run's rate and what it cost the machine.
type floorResult struct {
	rate  float64 // judgments/s
	cpuMs float64 // CPU per judgment of everything but pgbench itself (ms); 0 = unknown
}

// judgmentFloor builds a project like the load scenarios' (docs items,
// raters judgments each, clients raters) and runs floorScript against it
// with clients connections for dur.
func judgmentFloor(ctx context.Context, env *Env, project string, docs, clients, raters int, dur time.Duration) (floorResult, error) {
	var res floorResult
	if _, err := loadgen.Fixture(ctx, env.Store, project, docs, clients, raters); err != nil {
		return res, err
	}
	p, err := env.Store.ProjectByName(ctx, project)
	if err != nil {
		return res, err
	}
	if _, err := env.Store.Pool().Exec(ctx, `DROP TABLE IF EXISTS bench_floor_raters;
		CREATE TABLE bench_floor_raters (n int PRIMARY KEY, user_id bigint NOT NULL)`); err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `INSERT INTO bench_floor_raters
		SELECT row_number() OVER (ORDER BY m.user_id) - 1, m.user_id FROM project_members m WHERE m.project_id = $1`, p.ID); err != nil {
		return res, fmt.Errorf("floor: raters: %w", err)
	}
	dir, err := os.MkdirTemp("", "boolpool-pgbench-floor-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "judgment.sql")
	if err := os.WriteFile(script, []byte(floorScript), 0o644); err != nil {
		return res, err
	}
	var before int64
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1`, p.ID).Scan(&before); err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	busy0, _, berr := machineBusy()
	out, pgbenchCPU, err := pgToolCPU(ctx, dir, "pgbench", "-n", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(dur.Seconds())),
		"-D", fmt.Sprintf("project=%d", p.ID), "-f", script, env.DBURL)
	if err != nil {
		return res, err
	}
	busy1, _, berr1 := machineBusy()
	m, t := tpsRe.FindStringSubmatch(out), pgbenchTxRe.FindStringSubmatch(out)
	if m == nil || t == nil {
		return res, fmt.Errorf("floor: pgbench: no tps or transaction count in output: %s", out)
	}
	tps, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return res, err
	}
	txs, err := strconv.ParseFloat(t[1], 64)
	if err != nil || txs == 0 {
		return res, fmt.Errorf("floor: pgbench processed %q transactions: %v", t[1], err)
	}
	var after int64
	if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM judgments j JOIN items i ON i.id = j.item_id WHERE i.project_id = $1`, p.ID).Scan(&after); err != nil {
		return res, fmt.Errorf("floor: %w", err)
	}
	if written, most := after-before, int64(min(docs*raters, docs*clients)); written >= most*99/100 {
		return res, fmt.Errorf("floor: %d clients wrote %d of the project's %d possible judgments: the pool ran dry, the floor needs more than %d documents", clients, written, most, docs)
	}
	// tps excludes connection time; judgments per transaction is exact.
	res.rate = tps * float64(after-before) / txs
	if berr == nil && berr1 == nil && after > before {
		// The machine's busy time over the run (connections included)
		// less pgbench's own: Postgres, and whatever else ran.
		res.cpuMs = (busy1 - busy0 - pgbenchCPU) / float64(after-before) * 1000
	}
	return res, nil
}

// floorBestClients is the floor's second run: few connections, about where
// this SQL runs fastest on a 2-core box (more connections contend on the
// head of the open-items index).
const floorBestClients = 4

// floorBestDocs is the documents of the second run's project: each of its
// 4 raters judges each item at most once, so the pool must hold more than
// 4 raters write in the window (a 2-core box wrote about 5,000
// judgments/s).
const floorBestDocs = 60000

// cpuRows are the saturated scenario's CPU per judgment and, at 200
// annotators, the judging path's floor and the ceiling it sets on this
// machine: its cores over the CPU a judgment needs at the least (the
// floor's database work at its best concurrency, plus the server's and the
// load generator's measured here).
func cpuRows(n int, res *loadgen.Result, cpu cpuSplit, floor, best floorResult, pg pgbenchResult) []Row {
	var rows []Row
	total := cpu.pg + cpu.server + cpu.client
	if cpu.server > 0 {
		note := fmt.Sprintf("Postgres %.3f ms, server %.3f ms, load generator %.3f ms (/proc, over the %s window at %.0f judgments/s)",
			cpu.pg, cpu.server, cpu.client, cpu.window.Round(time.Second), res.Rate())
		if cpu.pg == 0 {
			note += "; Postgres not counted (not on this machine)"
		}
		rows = append(rows, Row{Suite: "load", Name: fmt.Sprintf("%d annotators, no pauses: CPU per judgment", n), Value: total, Unit: "ms", Note: note})
	}
	if floor.rate == 0 {
		return rows
	}
	rows = append(rows,
		Row{Suite: "load", Name: fmt.Sprintf("%d clients, a judgment's SQL alone (pgbench, no server): judgments written", n), Value: floor.rate, Unit: "judgments/s", HigherIsBetter: true,
			Note: "the floor of the judging path's database work (suite_load_floor.go): per transaction lease 4 with lease_items, insert their judgments in one statement, mark them done, commit; no session, authorisation, supersede, activity, consensus, HTTP or JSON"}.
			WithRef(fmt.Sprintf("pgbench single-row INSERT, %d clients", n), pg.tps),
		Row{Suite: "load", Name: fmt.Sprintf("%d clients, a judgment's SQL alone (pgbench, no server): judgments written", floorBestClients), Value: best.rate, Unit: "judgments/s", HigherIsBetter: true,
			Note: fmt.Sprintf("the same floor with %d connections; CPU per judgment %.3f ms (the machine's busy time less pgbench's)", floorBestClients, best.cpuMs)}.
			WithRef(fmt.Sprintf("pgbench single-row INSERT, %d clients", n), pg.tps))
	if best.cpuMs > 0 && cpu.server > 0 {
		cores := float64(runtime.NumCPU())
		need := best.cpuMs + cpu.server + cpu.client
		rows = append(rows, Row{Suite: "load", Name: fmt.Sprintf("%d annotators: the most this design can write on this machine", n), Value: cores / need * 1000, Unit: "judgments/s", HigherIsBetter: true,
			Note: fmt.Sprintf("%.0f cores / (the floor's %.3f ms + the server's %.3f ms + the load generator's %.3f ms per judgment): an upper bound, with nothing of the session, authorisation, consensus or activity work in Postgres", cores, best.cpuMs, cpu.server, cpu.client)}.
			WithRef(fmt.Sprintf("pgbench single-row INSERT, %d clients", n), pg.tps))
	}
	return rows
}
