//go:build !js

// Package e2e drives the real boolpool server, PostgreSQL and the go-app
// wasm client in Debian's headless Chromium through chromedp. Tests skip when
// Chromium is missing, except under CI=true, where that is a failure
// (scripts/install-chromium.sh installs it).
package e2e

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"boolpool/internal/judgingtest"
	"boolpool/server/app"
	"boolpool/server/app/apptest"
	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/jobs"
	"boolpool/server/judging"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// staticDir holds the freshly built app.wasm and the repository's static
// files; TestMain builds it once per test binary.
var staticDir string

// buildErr is why the wasm build failed (tests report it).
var buildErr error

func TestMain(m *testing.M) {
	if chromiumPath() != "" {
		staticDir, buildErr = buildStatic()
	}
	code := m.Run()
	if staticDir != "" {
		os.RemoveAll(staticDir)
	}
	os.Exit(code)
}

// chromiumPath finds Debian's chromium.
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// repoRoot is the module root (where go.mod is).
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// buildStatic builds app.wasm from the current source into a temporary
// static directory next to copies of the CSS and icons.
func buildStatic() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "boolpool-e2e-static-")
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "app.wasm"), "./wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build wasm: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Join(root, "static"))
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), "app.wasm") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "static", e.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// requireBrowser skips (or, under CI, fails) when Chromium is absent.
func requireBrowser(t testing.TB) string {
	t.Helper()
	p := chromiumPath()
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed and CI is set: run scripts/install-chromium.sh")
		}
		t.Skip("chromium is not installed (scripts/install-chromium.sh installs it)")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return p
}

// env is one running server with its fixture and a browser.
type env struct {
	t     testing.TB
	st    *store.Store
	dbURL string // the database's URL (for the CLI)
	fx    *judgingtest.Fixture
	judge *judging.Service // the server's own (its judgments reach the consensus)
	url   string
	ctx   context.Context
	shots string
	// wasmBytes counts the bytes of app.wasm (at any of its URLs) the
	// server has sent, wasmRequests the requests for it.
	wasmBytes, wasmRequests *atomic.Int64
}

// newEnv starts the server on a fresh database with the fixture, and a
// headless Chromium with a fresh profile.
func newEnv(t testing.TB, ratersPerItem int) *env {
	t.Helper()
	chromium := requireBrowser(t)
	st, dbURL := storetest.NewWithURL(t)
	fx := judgingtest.New(t, st, ratersPerItem)
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 1 << 20, LoginPerMinute: 1000, StaticDir: staticDir}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The server `boolpool serve` runs (server/app: every service and job
	// kind, the relay and the live pools' triggers), with a worker.
	// The server closes first, then the App (cleanups run last first).
	a := apptest.New(t, cfg, st, log, app.Options{Jobs: jobs.Config{Concurrency: 1, Test: true}})
	wasmBytes, wasmRequests := new(atomic.Int64), new(atomic.Int64)
	srv := httptest.NewServer(countWasm(httpapi.New(cfg, a.Services, log).Handler(), wasmBytes, wasmRequests))
	t.Cleanup(srv.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1440, 1000),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	// Every page reports what the server's Content-Security-Policy blocks
	// (securitypolicyviolation events, through a binding that survives
	// navigations); the test fails if anything was.
	var cspMu sync.Mutex
	var cspBlocked []string
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(func(ev any) {
		if b, ok := ev.(*runtime.EventBindingCalled); ok && b.Name == cspBinding {
			cspMu.Lock()
			cspBlocked = append(cspBlocked, b.Payload)
			cspMu.Unlock()
		}
	}))
	t.Cleanup(func() { cancel(); cancelA() })
	// Start the browser now, so its start-up is not part of any timing.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, runtime.AddBinding, runtime.AddBindingParams{Name: cspBinding}); err != nil {
		t.Fatalf("CSP binding: %v", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspReporter}); err != nil {
		t.Fatalf("CSP reporter: %v", err)
	}
	// Registered after the browser's clean-up, so it runs before it.
	t.Cleanup(func() {
		cspMu.Lock()
		defer cspMu.Unlock()
		if len(cspBlocked) > 0 {
			t.Errorf("the Content-Security-Policy blocked %d things the page tried: %q", len(cspBlocked), cspBlocked)
		}
	})
	return &env{t: t, st: st, dbURL: dbURL, fx: fx, judge: a.Services.Judging, url: srv.URL, ctx: ctx, shots: screenshotDir(t),
		wasmBytes: wasmBytes, wasmRequests: wasmRequests}
}

// countWasm counts the requests for /web/app*.wasm and the bytes next
// sends for them.
func countWasm(next http.Handler, n, requests *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/web/app.") && strings.HasSuffix(r.URL.Path, ".wasm") {
			requests.Add(1)
			w = countingWriter{ResponseWriter: w, n: n}
		}
		next.ServeHTTP(w, r)
	})
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	k, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// cspBinding is the function pages call with each Content-Security-Policy
// violation; cspReporter installs the listener in every new document.
const (
	cspBinding  = "boolpoolCSPViolation"
	cspReporter = `document.addEventListener("securitypolicyviolation", (e) => {
  try { boolpoolCSPViolation(e.effectiveDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber); } catch (_) {}
});`
)

// screenshotDir is $BOOLPOOL_SCREENSHOTS or web/e2e/testdata/screenshots
// (committed, for people to look at).
func screenshotDir(t testing.TB) string {
	dir := os.Getenv("BOOLPOOL_SCREENSHOTS")
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "web", "e2e", "testdata", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// do runs browser actions with a deadline, failing the test on error.
func (e *env) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		e.shot("failure-" + strings.ReplaceAll(what, " ", "-"))
		e.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates JavaScript and returns its value as T.
func eval[T any](e *env, js string) T {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		e.t.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func (e *env) waitJS(what, cond string, timeout time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if eval[bool](e, "!!("+cond+")") {
			return
		}
		if time.Now().After(deadline) {
			e.shot("timeout-" + strings.ReplaceAll(what, " ", "-"))
			e.t.Fatalf("timed out after %v waiting for %s (%s)", timeout, what, cond)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shot writes a full-page screenshot.
func (e *env) shot(name string) string {
	ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(e.shots, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		e.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	e.t.Logf("screenshot: %s", p)
	return p
}

// login signs in through the login page, by keyboard.
func (e *env) login(user string) {
	e.t.Helper()
	e.do("open login", chromedp.Navigate(e.url+"/login"),
		chromedp.WaitVisible(chromedp.CSS(`#login[data-wasm="1"]`)))
	e.do("type credentials",
		chromedp.SendKeys(chromedp.CSS(`#username`), user),
		chromedp.SendKeys(chromedp.CSS(`#password`), judgingtest.Password+"\r"),
	)
	e.waitJS("leave the login page", `location.pathname !== "/login"`, 20*time.Second)
}

// logout clears the session cookie through the API.
func (e *env) logout() {
	e.t.Helper()
	eval[int](e, `fetch("/api/me").then(r => r.json()).then(me => fetch("/api/auth/logout", {method: "POST", headers: {"X-CSRF-Token": me.csrf_token}})).then(r => r.status)`)
}

// key presses keys (one key event each).
func (e *env) key(keys string) {
	e.t.Helper()
	e.do("press "+keys, chromedp.KeyEvent(keys))
}

// setValue sets the value of the element sel finds and fires event (input,
// change) as a person's typing or choosing would.
func (e *env) setValue(sel, value, event string) {
	e.t.Helper()
	eval[bool](e, `(() => { const el = document.querySelector(`+jsonString(sel)+`); el.value = `+jsonString(value)+`;
		el.dispatchEvent(new Event(`+jsonString(event)+`, {bubbles: true})); return true })()`)
}

// itemOnScreen is the judging page's current item id ("" if none).
func (e *env) itemOnScreen(root string) string {
	return eval[string](e, `(document.querySelector("`+root+`") || {dataset: {}}).dataset.item || ""`)
}
