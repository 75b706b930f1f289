package loadgen

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"boolpool/server/store"
)

// CrashConfig sets up a crash run.
type CrashConfig struct {
	Bin             string // the boolpool binary to run as the server
	ScriptsDir      string // where db.sh lives
	Annotators      int
	Kills           int           // SIGKILLs of the server
	KillEvery       time.Duration // time between kills
	RestartPostgres bool          // also one fast restart of Postgres mid-load
	Log             *slog.Logger
}

// CrashReport is what a crash run found.
type CrashReport struct {
	Kills       int
	PGRestarts  int
	Acked       int // judgments the server acknowledged
	Stored      int // judgment rows in the database afterwards
	Lost        int // acknowledged but not stored (must be 0)
	Duplicates  int // (rater, item) pairs stored more than once (must be 0)
	Retries     int // client requests repeated after a failure
	RetriedDups int // retries the server recognised as already stored
	GaveUp      int
	Errors      []string
}

// Crash runs annotators against a server that is repeatedly killed with
// SIGKILL and restarted (and, optionally, a Postgres fast restart), then
// checks that every acknowledged judgment is stored exactly once.
func Crash(ctx context.Context, cfg CrashConfig) (CrashReport, error) {
	var rep CrashReport
	cl, err := StartCluster(ctx, cfg.ScriptsDir)
	if err != nil {
		return rep, err
	}
	defer cl.Remove(context.WithoutCancel(ctx)) //nolint:errcheck // best-effort cleanup
	st, err := store.Open(ctx, cl.URL, 4)
	if err != nil {
		return rep, err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return rep, err
	}
	creds, err := Fixture(ctx, st, "crash", 4000, cfg.Annotators, 3)
	if err != nil {
		return rep, err
	}
	port, err := FreePort()
	if err != nil {
		return rep, err
	}
	srv, err := StartServer(ctx, cfg.Bin, cl.URL, fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return rep, err
	}
	defer srv.Kill() //nolint:errcheck // best-effort cleanup
	done := make(chan *Result, 1)
	stop := make(chan struct{})
	go func() {
		done <- Run(ctx, Config{BaseURL: srv.URL(), Project: "crash", Users: creds, Stop: stop, RetryFor: 60 * time.Second})
	}()
	pgAt := cfg.Kills / 2
	for i := 0; i < cfg.Kills; i++ {
		time.Sleep(cfg.KillEvery)
		if err := srv.Kill(); err != nil {
			return rep, err
		}
		rep.Kills++
		if cfg.RestartPostgres && i == pgAt {
			if err := cl.Restart(ctx); err != nil {
				return rep, err
			}
			rep.PGRestarts++
		}
		if err := srv.Start(ctx); err != nil {
			return rep, err
		}
		if cfg.Log != nil {
			cfg.Log.Info("crash: killed and restarted the server", "kills", rep.Kills)
		}
	}
	// Let the load run on the last server for a moment, then stop it and
	// wait for in-flight judgments to be acknowledged.
	time.Sleep(cfg.KillEvery)
	close(stop)
	res := <-done
	rep.Acked, rep.Retries, rep.RetriedDups, rep.GaveUp, rep.Errors = len(res.Acked), res.Retries, res.Duplicates, res.GaveUp, res.Errors
	return rep, verify(ctx, st, res, &rep)
}

// verify checks the database against what the clients were told.
func verify(ctx context.Context, st *store.Store, res *Result, rep *CrashReport) error {
	rows, err := st.Pool().Query(ctx, `SELECT client_id::text, id FROM judgments`)
	if err != nil {
		return fmt.Errorf("loadgen: verify: %w", err)
	}
	stored := map[string]int64{}
	for rows.Next() {
		var c string
		var id int64
		if err := rows.Scan(&c, &id); err != nil {
			rows.Close()
			return err
		}
		stored[c] = id
	}
	rows.Close()
	rep.Stored = len(stored)
	for c, id := range res.Acked {
		if got, ok := stored[c]; !ok || got != id {
			rep.Lost++
		}
	}
	err = st.Pool().QueryRow(ctx, `SELECT count(*) FROM (SELECT user_id, item_id FROM judgments
		GROUP BY user_id, item_id HAVING count(*) > 1) d`).Scan(&rep.Duplicates)
	if err != nil {
		return fmt.Errorf("loadgen: verify: %w", err)
	}
	return nil
}
