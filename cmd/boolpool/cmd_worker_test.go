package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/encoders"
	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/config"
	"boolpool/server/embedjob"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// migratedDB is a fresh migrated database: its URL and a store on it.
func migratedDB(t *testing.T) (string, *store.Store) {
	t.Helper()
	url := storetest.URL(t)
	st, err := store.Open(context.Background(), url, 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return url, st
}

// webClient is the job client of a web server without a worker (serve
// --workers 0, built by server/app): it only queues and cancels jobs.
func webClient(t *testing.T, st *store.Store, cache string) *jobs.Client {
	t.Helper()
	return apptest.New(t, config.Config{}, st, slog.New(slog.DiscardHandler), app.Options{CacheDir: cache, NoRelay: true}).Jobs
}

// TestWorkerRunsQueuedJobs: a job queued by a server without a worker is
// run by `boolpool worker`, which stops cleanly on its signal; bad flags
// are usage errors.
func TestWorkerRunsQueuedJobs(t *testing.T) {
	ctx := context.Background()
	url, st := migratedDB(t)
	p := importSmall(t, st)
	if _, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		_, err := im.Query(ctx, store.QueryIn{ExtID: "q1", Text: "vulture of the Andes"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	j, err := webClient(t, st, t.TempDir()).Submit(ctx, p.ID, api.JobKindRetrieve, json.RawMessage(`{"method": "bm25", "depth": 5}`), 0)
	if err != nil || j.State != vocab.JobQueued {
		t.Fatalf("queue: %+v %v", j, err)
	}

	wctx, stop := context.WithCancel(ctx)
	var stdout, stderr bytes.Buffer
	errc := make(chan error, 1)
	go func() {
		errc <- runWorker(wctx, []string{"--database-url", url, "--queues", jobs.QueueDefault, "--log-level", "warn"}, &stdout, &stderr)
	}()
	done := storetest.WaitJob(t, st, j.ID, 30*time.Second, store.Job.Finished)
	stop()
	if err := <-errc; err != nil {
		t.Fatalf("worker: %v\n%s", err, stderr.String())
	}
	if done.State != vocab.JobDone || done.Done != 1 || done.Total != 1 {
		t.Fatalf("job %+v", done)
	}
	if !strings.Contains(stdout.String(), "queues [default]") {
		t.Errorf("worker said %q", stdout.String())
	}

	for _, args := range [][]string{
		{"--database-url", url, "--device", "tpu"},
		{"--database-url", url, "--concurrency", "0"},
		{"--database-url", url, "--queues", "gpu"},
		{"--database-url", url, "--sweep-every", "10ms"},
	} {
		if err := runWorker(ctx, args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("worker %v: %v, want a usage error", args, err)
		}
	}
}

// TestHelperWorkerProcess is not a test: TestWorkerKilledMidEncode runs
// the test binary as a `boolpool worker` process through it.
func TestHelperWorkerProcess(t *testing.T) {
	args := os.Getenv("BOOLPOOL_HELPER_WORKER_ARGS")
	if args == "" {
		t.Skip("runs only as a helper process")
	}
	if err := runWorker(context.Background(), strings.Fields(args), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startWorkerProcess starts `boolpool worker args…` as a process of its
// own, with the encoders' cache.
func startWorkerProcess(t *testing.T, cache string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorkerProcess$")
	cmd.Env = append(os.Environ(), "BOOLPOOL_HELPER_WORKER_ARGS="+strings.Join(args, " "), "BOOLPOOL_CACHE="+cache)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("worker process %v output:\n%s", args, out.String())
		}
	})
	return cmd
}

// TestWorkerKilledMidEncode: a worker process is SIGKILLed in the middle
// of an encode job (lexical encoder, one document per committed batch);
// another worker takes the job up once River's rescuer sees the dead
// worker's heartbeat stop, resumes from the committed batches, and the job
// completes once with every document encoded once.
func TestWorkerKilledMidEncode(t *testing.T) {
	cache := tokenizerCache(t)
	if testing.Short() {
		t.Skip("waits for River's leader to expire (about 20 s)")
	}
	ctx := context.Background()
	url, st := migratedDB(t)
	p, err := st.EnsureProject(ctx, "killed")
	if err != nil {
		t.Fatal(err)
	}
	// Enough that the job runs for seconds at ~1,300 documents a second
	// (600 finished before the first progress report on a quiet box).
	const docs = 6000
	importFillerDocs(t, st, p.ID, "", docs)
	j, err := webClient(t, st, cache).Submit(ctx, p.ID, api.JobKindEncode,
		json.RawMessage(`{"encoder": "lexical", "batch": 1, "skip_queries": true}`), 0)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--database-url", url, "--queues", jobs.QueueEncode, "--rescue-after", "2s", "--log-level", "warn"}
	first := startWorkerProcess(t, cache, args...)
	killedAt, committed := killWorkerMidEncode(t, st, first, j.ID, docs)
	t.Logf("killed the worker with %d of %d documents committed", committed, docs)
	restarted := time.Now()
	startWorkerProcess(t, cache, args...)
	storetest.WaitJob(t, st, j.ID, 90*time.Second, func(j store.Job) bool { return j.State != vocab.JobRunning || j.Done < killedAt.Done })
	t.Logf("the job was taken up again after %v", time.Since(restarted).Round(time.Second))
	done := storetest.WaitJob(t, st, j.ID, 90*time.Second, store.Job.Finished)
	if done.State != vocab.JobDone {
		t.Fatalf("job %+v", done)
	}
	t.Logf("done %v after the restart", time.Since(restarted).Round(time.Second))
	var rep embedjob.Report
	if err := json.Unmarshal(done.Result, &rep); err != nil {
		t.Fatal(err)
	}
	total := lexicalVectors(t, st)
	// The second worker encoded what the first had not committed, no more.
	if total != docs || rep.Unchanged < committed || rep.Encoded+rep.Unchanged != docs || rep.Encoded == 0 {
		t.Fatalf("%d vectors; report %+v; %d committed before the kill", total, rep, committed)
	}
	var state string
	var attempt int
	if err := st.Pool().QueryRow(ctx, `SELECT state::text, attempt FROM river_job WHERE args @> jsonb_build_object('job_id', $1::bigint)`, j.ID).Scan(&state, &attempt); err != nil {
		t.Fatal(err)
	}
	if state != "completed" && state != "running" || attempt != 2 {
		t.Fatalf("River entry %s attempt %d, want completed at attempt 2", state, attempt)
	}
}

// importFillerDocs imports n short documents, ext ids prefix0, prefix1, …:
// work for an encode job that a test interrupts.
func importFillerDocs(t *testing.T, st *store.Store, projectID int64, prefix string, n int) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Import(ctx, projectID, func(im *store.Importer) error {
		for i := range n {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprint(prefix, i), Title: fmt.Sprint("Document ", prefix, i),
				Body: fmt.Sprintf("Text number %d about condors, coffee and the Andes.", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// lexicalVectors counts the vectors the lexical encoder has stored.
func lexicalVectors(t *testing.T, st *store.Store) int {
	t.Helper()
	ctx := context.Background()
	enc, err := st.EncoderByName(ctx, encoders.LexicalName)
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.CountEncoderVectors(ctx, enc)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// killWorkerMidEncode waits until the worker process w has encoded some of
// the job's total documents, SIGKILLs it, and returns the job as the kill
// left it and the vectors committed by then (checked: some, not all).
func killWorkerMidEncode(t *testing.T, st *store.Store, w *exec.Cmd, jobID int64, total int) (store.Job, int) {
	t.Helper()
	running := storetest.WaitJob(t, st, jobID, 60*time.Second, func(j store.Job) bool {
		return j.Finished() || (j.Phase == "encoding documents" && j.Done >= 20)
	})
	if running.Finished() {
		t.Fatalf("the job ended before the worker could be killed: %+v", running)
	}
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w.Wait()
	ctx := context.Background()
	killedAt, err := st.JobByID(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	committed := lexicalVectors(t, st)
	if killedAt.State != vocab.JobRunning || committed == 0 || committed >= total {
		t.Fatalf("after the kill: job %s, %d of %d documents committed", killedAt.State, committed, total)
	}
	return killedAt, committed
}
