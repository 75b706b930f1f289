package loadgen

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/cookiejar"
	"sync"
	"time"

	"boolpool/api"
)

// Config drives one load run.
type Config struct {
	BaseURL  string
	Project  string
	Users    []Creds
	Duration time.Duration   // stop starting new tasks after this long (0 = until Stop)
	Stop     <-chan struct{} // closing it also stops new tasks (nil = never)
	// MaxPerUser bounds the judgments each annotator submits (0 = no bound).
	MaxPerUser int
	// Retry keeps retrying a failed request (server down) until it is
	// acknowledged or RetryFor has passed; set for crash tests.
	RetryFor time.Duration
	// Warmup is left out of the measured rate and latencies (the server's
	// connection pool fills, plans are cached); judgments acknowledged in
	// it still count as acknowledged.
	Warmup time.Duration
	// Think is the mean pause between one judgment and the next task
	// fetch of an annotator (uniform in [0.5, 1.5] x Think); 0 = none, the
	// annotators work as fast as the server answers.
	Think time.Duration
	// RampUp spreads the annotators' starts evenly over this long
	// (annotator i of n starts at i/n × RampUp), as the people of a running
	// campaign are at every point of their cycle rather than all asking for
	// their first batch in the same millisecond; 0 = all at once. Keep
	// Warmup ≥ RampUp to measure the steady state.
	RampUp time.Duration
}

// Result summarises a run.
type Result struct {
	Acked       map[string]int64 // client id → judgment id, as acknowledged
	Duplicates  int              // retries the server recognised (200 instead of 201)
	Retries     int              // requests repeated after a failure
	Errors      []string         // unexpected statuses (first few)
	SubmitLat   []float64        // seconds, per acknowledged submit (incl. retries) after the warm-up
	QueueLat    []float64        // seconds, per task fetch after the warm-up
	Measured    int              // judgments acknowledged after the warm-up
	Elapsed     time.Duration    // of the whole run
	Window      time.Duration    // of the measured part (Elapsed minus the warm-up)
	GaveUp      int              // judgments never acknowledged within RetryFor
	mu          sync.Mutex
	errorsTotal int
}

// ErrorsTotal counts unexpected responses.
func (r *Result) ErrorsTotal() int { return r.errorsTotal }

func (r *Result) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errorsTotal++
	if len(r.Errors) < 10 {
		r.Errors = append(r.Errors, msg)
	}
}

// Run signs every user in, then starts one goroutine per user and returns
// when all are done. Sign-in (a deliberately slow password hash) is not
// part of the measured time: sessions last hours, judgments come every few
// seconds.
func Run(ctx context.Context, cfg Config) *Result {
	res := &Result{Acked: map[string]int64{}}
	annotators := make([]*annotator, len(cfg.Users))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, u := range cfg.Users {
		wg.Add(1)
		go func(i int, u Creds) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			annotators[i] = login(ctx, cfg, u, res)
		}(i, u)
	}
	wg.Wait()
	start := time.Now()
	deadline := start.Add(cfg.Duration)
	if cfg.Duration == 0 {
		deadline = start.Add(24 * time.Hour)
	}
	for i, a := range annotators {
		if a == nil {
			continue
		}
		a.measureFrom = start.Add(cfg.Warmup)
		delay := cfg.RampUp * time.Duration(i) / time.Duration(len(annotators))
		wg.Add(1)
		go func(a *annotator) {
			defer wg.Done()
			if delay > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(delay):
				}
			}
			a.annotate(ctx, deadline)
		}(a)
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Window = max(0, res.Elapsed-cfg.Warmup)
	return res
}

// Rate is the measured judgments per second.
func (r *Result) Rate() float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(r.Measured) / r.Window.Seconds()
}

type annotator struct {
	cfg         Config
	http        *http.Client
	csrf        string
	userID      int64 // the author_id of this annotator's judgments
	res         *Result
	measureFrom time.Time
}

// login signs one user in (nil on failure, recorded in res).
func login(ctx context.Context, cfg Config, u Creds, res *Result) *annotator {
	jar, _ := cookiejar.New(nil)
	a := &annotator{cfg: cfg, res: res, http: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: 2, DisableCompression: true}}}
	var me api.Me
	if _, err := a.do(ctx, "POST", "/api/auth/login", api.LoginRequest{Username: u.Username, Password: u.Password}, &me, time.Now().Add(cfg.RetryFor)); err != nil {
		res.fail("login " + u.Username + ": " + err.Error())
		return nil
	}
	a.csrf, a.userID = me.CSRFToken, me.UserID
	return a
}

// annotate judges tasks until the deadline or the pool runs dry. It leases
// them as the web judge page does (api.QueueRefill, api.QueueAsk): a batch
// up to the high-water mark whenever it holds the low-water mark or fewer,
// so the bench measures the real client's mix of fetches and submits. Its
// judgments are acknowledged one by one before the next (nothing pending
// when it refills).
func (a *annotator) annotate(ctx context.Context, deadline time.Time) {
	cfg, res := a.cfg, a.res
	var tasks []api.Task
	judged := map[int64]bool{} // items whose judgment was acknowledged
	for n := 0; cfg.MaxPerUser == 0 || n < cfg.MaxPerUser; n++ {
		if n > 0 && cfg.Think > 0 {
			pause := cfg.Think/2 + time.Duration(randInt(int(cfg.Think/time.Millisecond)+1))*time.Millisecond
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil || stopped(cfg.Stop) {
			return
		}
		if api.QueueRefill(len(tasks)) {
			var q api.Queue
			t0 := time.Now()
			if _, err := a.do(ctx, "POST", "/api/projects/"+cfg.Project+"/queue", api.QueueRequest{Kind: api.KindRelevance, N: api.QueueAsk(0)}, &q, deadline); err != nil {
				if stopped(cfg.Stop) {
					return // the server went away as the run ended
				}
				res.fail("queue: " + err.Error())
				return
			}
			if t0.After(a.measureFrom) {
				res.mu.Lock()
				res.QueueLat = append(res.QueueLat, time.Since(t0).Seconds())
				res.mu.Unlock()
			}
			// The answer holds the tasks in hand first (renewed), then
			// the new ones.
			tasks = tasks[:0]
			for _, t := range q.Tasks {
				if !judged[t.ItemID] {
					tasks = append(tasks, t)
				}
			}
		}
		if len(tasks) == 0 {
			return // nothing left for this annotator
		}
		t := tasks[0]
		tasks = tasks[1:]
		rel := randInt(4)
		req := api.JudgmentRequest{ClientID: api.NewUUID(), AuthorID: a.userID, ItemID: t.ItemID, Kind: api.KindRelevance, Relevance: &rel,
			Evidence: api.EvidencePartial, TimeSpentMs: 1000 + int64(randInt(5000))}
		if len(t.Query.Atoms) > 0 {
			req.Attributions = []api.Attribution{{Atom: 0, Sentences: []int{0}, Satisfied: api.SatisfiedYes}}
		}
		var jr api.JudgmentResponse
		t1 := time.Now()
		// A judgment, once attempted, is retried past the run's deadline:
		// the client must not drop work it has started.
		status, err := a.do(ctx, "POST", "/api/judgments", req, &jr, time.Now().Add(cfg.RetryFor))
		if err != nil {
			res.mu.Lock()
			res.GaveUp++
			res.mu.Unlock()
			res.fail("judgment: " + err.Error())
			continue
		}
		judged[t.ItemID] = true
		res.mu.Lock()
		if t1.After(a.measureFrom) {
			res.SubmitLat = append(res.SubmitLat, time.Since(t1).Seconds())
			res.Measured++
		}
		if prev, ok := res.Acked[req.ClientID]; ok && prev != jr.ID {
			res.errorsTotal++
			res.Errors = append(res.Errors, fmt.Sprintf("client id %s acknowledged as %d and %d", req.ClientID, prev, jr.ID))
		}
		res.Acked[req.ClientID] = jr.ID
		if status == http.StatusOK {
			res.Duplicates++
		}
		res.mu.Unlock()
	}
}

// do sends one JSON request, retrying transport failures and 5xx answers
// with backoff until retryUntil (when the config allows retries).
func (a *annotator) do(ctx context.Context, method, path string, body, out any, retryUntil time.Time) (int, error) {
	b, _ := json.Marshal(body)
	backoff := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, method, a.cfg.BaseURL+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		if a.csrf != "" {
			req.Header.Set(api.CSRFHeader, a.csrf)
		}
		resp, err := a.http.Do(req)
		var status int
		var payload []byte
		if err == nil {
			status = resp.StatusCode
			payload, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if err == nil && status < 500 {
			if status >= 300 {
				return status, fmt.Errorf("%s %s: %d %s", method, path, status, bytes.TrimSpace(payload))
			}
			if out != nil {
				if err := json.Unmarshal(payload, out); err != nil {
					return status, fmt.Errorf("%s %s: %w", method, path, err)
				}
			}
			return status, nil
		}
		if err == nil {
			err = fmt.Errorf("status %d", status)
		}
		if a.cfg.RetryFor == 0 || time.Now().After(retryUntil) || ctx.Err() != nil || (out == nil && stopped(a.cfg.Stop)) {
			return status, fmt.Errorf("%s %s: %w", method, path, err)
		}
		a.res.mu.Lock()
		a.res.Retries++
		a.res.mu.Unlock()
		select {
		case <-ctx.Done():
			return 0, errors.Join(err, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 500*time.Millisecond)
	}
}

func randInt(n int) int {
	v, _ := rand.Int(rand.Reader, big.NewInt(int64(n)))
	return int(v.Int64())
}

func stopped(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}
