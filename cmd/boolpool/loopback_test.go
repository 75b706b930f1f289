package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"boolpool/api"
	"boolpool/internal/judgingtest"
	"boolpool/server/jobs"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/vocab"
)

// TestHelperServeProcess is not a test: TestLoopbackTwoServersOneWorker
// runs the test binary as `boolpool serve` processes through it.
func TestHelperServeProcess(t *testing.T) {
	args := os.Getenv("BOOLPOOL_HELPER_SERVE_ARGS")
	if args == "" {
		t.Skip("runs only as a helper process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runServe(ctx, strings.Fields(args), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// startServeProcess starts `boolpool serve args…` as a process of its own
// on a free loopback address and waits for /readyz; it returns the base URL.
func startServeProcess(t *testing.T, cache string, args ...string) string {
	t.Helper()
	return startServeProc(t, cache, nil, args...).base
}

// serveProc is a `boolpool serve` process of a test.
type serveProc struct {
	base   string
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has ended
}

// startServeProc is startServeProcess with extra environment variables
// (NAME=value), returning the process too (a crash test kills it).
func startServeProc(t *testing.T, cache string, env []string, args ...string) *serveProc {
	t.Helper()
	addr := freeAddr(t)
	args = append([]string{"--addr", addr, "--static", t.TempDir(), "--log-level", "warn"}, args...)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServeProcess$")
	cmd.Env = append(append(os.Environ(), "BOOLPOOL_HELPER_SERVE_ARGS="+strings.Join(args, " "), "BOOLPOOL_CACHE="+cache), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("serve process %s output:\n%s", addr, out.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return &serveProc{base: base, cmd: cmd, exited: exited}
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve %s ended before it was ready:\n%s", addr, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve %s: not ready within 60s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lbUser is a signed-in client of one server.
type lbUser struct{ *judgingtest.APIUser }

func lbLogin(t *testing.T, base, name string) *lbUser {
	t.Helper()
	return &lbUser{judgingtest.Login(t, base, name)}
}

// dashboard follows a live dashboard's SSE stream and keeps its latest
// snapshot.
type dashboard struct {
	mu     sync.Mutex
	last   api.LiveSnapshot
	n      int
	closed bool
}

func (u *lbUser) dashboard(path string) *dashboard {
	u.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	u.T.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", u.Base+path, nil)
	res, err := u.Client.Do(req)
	if err != nil {
		u.T.Fatalf("subscribe: %v", err)
	}
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		u.T.Fatalf("subscribe %s: status %d", u.Base, res.StatusCode)
	}
	d := &dashboard{}
	done := make(chan struct{})
	u.T.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer res.Body.Close()
		judgingtest.ReadSnapshots(res.Body, func(snap api.LiveSnapshot) {
			d.mu.Lock()
			d.last, d.n = snap, d.n+1
			d.mu.Unlock()
		})
		d.mu.Lock()
		d.closed = true
		d.mu.Unlock()
	}()
	return d
}

// waitFor waits until the latest snapshot satisfies ok.
func (d *dashboard) waitFor(t *testing.T, what string, limit time.Duration, ok func(api.LiveSnapshot) bool) api.LiveSnapshot {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		d.mu.Lock()
		last, n, closed := d.last, d.n, d.closed
		d.mu.Unlock()
		if n > 0 && ok(last) {
			return last
		}
		if closed {
			t.Fatalf("dashboard stream closed while waiting for %s", what)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot with %s within %v; last %+v", what, limit, last.Progress)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLoopbackTwoServersOneWorker is issue 15's loopback run: two `serve
// --workers 0` processes and one `worker` process on one database;
// annotators spread across both servers with a dashboard (SSE) on each;
// an encode job (lexical encoder, one document per committed batch)
// started through the first server; the worker SIGKILLed mid-job and
// another started; annotators judge and a researcher adjudicates while
// the job waits for River's rescuer and resumes: the job completes once,
// every document encoded once, and both dashboards show every judgment
// and the adjudication. (The judging comes after the kill: before it,
// the job could finish while the annotators signed in, as it did on a
// quiet box with 600 documents.)
func TestLoopbackTwoServersOneWorker(t *testing.T) {
	cache := tokenizerCache(t)
	if testing.Short() {
		t.Skip("waits for River's rescuer (about 20 s)")
	}
	ctx := context.Background()
	url, st := migratedDB(t)
	fx := judgingtest.New(t, st, 1)
	// Enough that the job runs for seconds (about 1,400 documents a second
	// on a quiet 2-core box), as in TestWorkerKilledMidEncode.
	const docs = 6000
	importFillerDocs(t, st, fx.Project.ID, "x", docs)
	total := docs + len(fx.Documents)

	serveArgs := []string{"--database-url", url, "--workers", "0"}
	servers := [2]string{startServeProcess(t, cache, serveArgs...), startServeProcess(t, cache, serveArgs...)}
	workerArgs := []string{"--database-url", url, "--queues", jobs.QueueEncode + "," + jobs.QueueDefault, "--rescue-after", "2s", "--log-level", "warn"}
	first := startWorkerProcess(t, cache, workerArgs...)

	var dash [2]*dashboard
	for i, base := range servers {
		dash[i] = lbLogin(t, base, "researcher").dashboard("/api/projects/fixture/live")
		dash[i].waitFor(t, "the first snapshot", 20*time.Second, func(api.LiveSnapshot) bool { return true })
	}
	researcher := lbLogin(t, servers[0], "researcher")
	var job api.JobView
	if code := researcher.Do("POST", "/api/projects/fixture/jobs", api.JobRequest{Kind: api.JobKindEncode,
		Params: json.RawMessage(`{"encoder": "lexical", "batch": 1, "skip_queries": true}`)}, &job); code != 201 && code != 200 && code != 202 {
		t.Fatalf("start the encode job: status %d", code)
	}

	_, committed := killWorkerMidEncode(t, st, first, job.ID, total)
	t.Logf("killed the worker with %d of %d documents committed", committed, total)

	restarted := time.Now()
	startWorkerProcess(t, cache, workerArgs...)

	// Annotators judge while the job waits for the rescuer and resumes:
	// annotator1 and annotator3 on the first server, annotator2 on the
	// second.
	judged, judgedItems := 0, []int64(nil)
	for i, who := range []struct {
		name   string
		server int
	}{{"annotator1", 0}, {"annotator2", 1}, {"annotator3", 0}} {
		u := lbLogin(t, servers[who.server], who.name)
		var q api.Queue
		if code := u.Do("POST", "/api/projects/fixture/queue", api.QueueRequest{Kind: api.KindRelevance, N: 2}, &q); code != 200 {
			t.Fatalf("%s queue: status %d", who.name, code)
		}
		for k, task := range q.Tasks {
			rel := (i + k) % 4
			req := api.JudgmentRequest{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", 3000+judged), AuthorID: u.ID,
				ItemID: task.ItemID, Kind: api.KindRelevance, Relevance: &rel, Evidence: api.EvidenceComplete, TimeSpentMs: 1000}
			var res api.JudgmentResponse
			if code := u.Do("POST", "/api/judgments", req, &res); code != 201 {
				t.Fatalf("%s judges item %d: status %d", who.name, task.ItemID, code)
			}
			judged++
			judgedItems = append(judgedItems, task.ItemID)
		}
	}
	if judged < 4 {
		t.Fatalf("only %d judgments made", judged)
	}

	// An adjudication on the second server while the job is taken up again.
	adjItem := judgedItems[0] // a judged item: the consensus counts stay at judged
	adjRel := 3
	if code := lbLogin(t, servers[1], "researcher").Do("POST", fmt.Sprintf("/api/items/%d/adjudication", adjItem),
		api.AdjudicationRequest{Relevance: &adjRel, Note: "loopback"}, nil); code != 200 && code != 201 {
		t.Fatalf("adjudicate item %d on the second server: status %d", adjItem, code)
	}

	done := storetest.WaitJob(t, st, job.ID, 120*time.Second, store.Job.Finished)
	if done.State != vocab.JobDone {
		t.Fatalf("job %+v", done)
	}
	t.Logf("job done %v after the second worker started", time.Since(restarted).Round(time.Second))
	n := lexicalVectors(t, st)
	if n != total {
		t.Fatalf("%d vectors, want %d (every document once)", n, total)
	}
	var runs, attempt int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*), max(attempt) FROM river_job WHERE args @> jsonb_build_object('job_id', $1::bigint)`, job.ID).Scan(&runs, &attempt); err != nil {
		t.Fatal(err)
	}
	if runs != 1 || attempt != 2 {
		t.Fatalf("%d River entries for the job, attempt %d; want one entry completed at attempt 2", runs, attempt)
	}

	// Both dashboards see every judgment and the adjudication.
	for i, d := range dash {
		snap := d.waitFor(t, fmt.Sprintf("all %d judgments", judged), 20*time.Second, func(s api.LiveSnapshot) bool {
			return s.Progress.Judged == judged && s.Consensus.Items == judged && s.Consensus.Adjudicated == 1
		})
		t.Logf("server %d dashboard: %d judged, consensus over %d items, %d adjudicated", i, snap.Progress.Judged, snap.Consensus.Items, snap.Consensus.Adjudicated)
	}
}
