package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"boolpool/server/auth"
	"boolpool/server/devtools/loadgen"
	"boolpool/server/store"
	"boolpool/server/vocab"
)

// LoginSuite fires 60 parallel sign-ins at a real server (a child process)
// and reads the server's resident memory before and at its peak (VmHWM):
// once with password hashing bounded as it ships (one hash per CPU) and,
// as the reference in the same run, with the bound lifted to 60 (every
// attempt hashing at once, as before the bound). A third scenario sends
// 60 guesses at one account with the default limits and counts the 429s.
func LoginSuite() Suite { return Suite{Name: "login", Run: runLogin} }

const loginAttempts = 60

func runLogin(ctx context.Context, env *Env) ([]Row, error) {
	bin, err := env.serverBin()
	if err != nil {
		return nil, err
	}
	// Real-cost accounts: argon2id with the shipped parameters (19 MiB).
	hash, err := auth.HashPassword("bench-login-password", auth.DefaultHashParams)
	if err != nil {
		return nil, err
	}
	for i := 0; i < loginAttempts; i++ {
		name := fmt.Sprintf("bench-login-%d", i)
		if _, err := env.Store.UserByUsername(ctx, name); err == nil {
			continue
		}
		if _, err := env.Store.CreateUser(ctx, store.NewUser{Username: name, Role: vocab.RoleAnnotator, PasswordHash: hash}); err != nil {
			return nil, err
		}
	}
	type outcome struct {
		before, peak int64 // KiB
		p50, max     time.Duration
		codes        map[int]int
	}
	scenario := func(sameAccount bool, args ...string) (outcome, error) {
		port, err := loadgen.FreePort()
		if err != nil {
			return outcome{}, err
		}
		srv, err := loadgen.StartServer(ctx, bin, env.DBURL, fmt.Sprintf("127.0.0.1:%d", port), args...)
		if err != nil {
			return outcome{}, err
		}
		defer func() { _ = srv.Kill() }()
		time.Sleep(500 * time.Millisecond) // let start-up allocations settle
		var o outcome
		if o.before, err = procStatusKiB(srv.PID(), "VmRSS"); err != nil {
			return o, err
		}
		lat := make([]float64, loginAttempts)
		codes := make([]int, loginAttempts)
		var wg sync.WaitGroup
		for i := 0; i < loginAttempts; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("bench-login-%d", i)
				if sameAccount {
					name = "bench-login-0"
				}
				body, _ := json.Marshal(map[string]string{"username": name, "password": "wrong guess " + strconv.Itoa(i)})
				start := time.Now()
				res, err := http.Post(srv.URL()+"/api/auth/login", "application/json", bytes.NewReader(body))
				lat[i] = time.Since(start).Seconds()
				if err != nil {
					codes[i] = -1
					return
				}
				res.Body.Close()
				codes[i] = res.StatusCode
			}()
		}
		wg.Wait()
		if o.peak, err = procStatusKiB(srv.PID(), "VmHWM"); err != nil {
			return o, err
		}
		o.codes = map[int]int{}
		for _, c := range codes {
			o.codes[c]++
		}
		o.p50 = time.Duration(Percentile(lat, 50) * float64(time.Second))
		o.max = time.Duration(Percentile(lat, 100) * float64(time.Second))
		return o, nil
	}
	open := []string{"-login-rate", "1000000", "-login-account-rate", "1000000"}
	bounded, err := scenario(false, open...)
	if err != nil {
		return nil, err
	}
	unbounded, err := scenario(false, append(open, "-max-password-hashes", strconv.Itoa(loginAttempts))...)
	if err != nil {
		return nil, err
	}
	// Default limits: 10 per minute per address and per account.
	guesses, err := scenario(true, "-login-rate", "1000000", "-login-account-rate", "10")
	if err != nil {
		return nil, err
	}
	growth := func(o outcome) float64 { return float64(o.peak-o.before) / 1024 }
	rows := []Row{
		Row{Suite: "login", Name: fmt.Sprintf("%d parallel sign-ins: server RSS growth (peak − before)", loginAttempts),
			Value: growth(bounded), Unit: "MiB",
			Note: fmt.Sprintf("before %.0f MiB, peak %.0f MiB with %d hash slots (the CPUs); answers %s; p50 %v, slowest %v; reference: the same with 60 slots (peak %.0f MiB, slowest %v)",
				float64(bounded.before)/1024, float64(bounded.peak)/1024, max(2, runtime.NumCPU()), codesText(bounded.codes),
				bounded.p50.Round(time.Millisecond), bounded.max.Round(time.Millisecond), float64(unbounded.peak)/1024, unbounded.max.Round(time.Millisecond)),
		}.WithRef("unbounded hashing (60 at once)", growth(unbounded)),
		{Suite: "login", Name: fmt.Sprintf("%d parallel guesses at one account (default per-account limit 10/min)", loginAttempts),
			Value: float64(guesses.codes[http.StatusTooManyRequests]), Unit: "refused (429)", HigherIsBetter: true,
			Note: "answers " + codesText(guesses.codes)},
	}
	rows[1] = rows[1].WithTarget(">= 50", guesses.codes[http.StatusTooManyRequests] >= 50)
	return rows, nil
}

func codesText(codes map[int]int) string {
	var parts []string
	for _, c := range []int{200, 401, 429, 500, 503, -1} {
		if n := codes[c]; n > 0 {
			label := strconv.Itoa(c)
			if c == -1 {
				label = "network error"
			}
			parts = append(parts, fmt.Sprintf("%d×%s", n, label))
		}
	}
	return strings.Join(parts, ", ")
}
