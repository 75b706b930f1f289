package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"boolpool/api"
	"boolpool/server/config"
)

// fetchPage fetches path as u and returns the status, headers and body.
func (u *user) fetchPage(path string) (int, http.Header, string) {
	u.e.t.Helper()
	status, b, h := u.get(path)
	return status, h, string(b)
}

// TestTaskPageLoadingInstructions: the server-rendered task pages carry
// the project's instructions (escaped) in go-app's loading screen for a
// signed-in member, and never for anyone else.
func TestTaskPageLoadingInstructions(t *testing.T) {
	e := newEnv(t, 2, nil)
	all := map[string]api.Instructions{
		api.KindRelevance: {Text: "Judge <b>each</b> document & mark evidence", Examples: []api.Example{
			{Query: "birds of Peru", Label: "relevant", Explanation: "it names Peru", Good: true}}},
		api.KindParaphrase: {Text: "Paraphrase carefully: keep every NOT"},
	}
	raw, _ := json.Marshal(all)
	if _, err := e.st.Pool().Exec(context.Background(), `UPDATE projects SET instructions = $1 WHERE id = $2`, raw, e.fx.Project.ID); err != nil {
		t.Fatal(err)
	}
	const escaped = "Judge &lt;b&gt;each&lt;/b&gt; document &amp; mark evidence"
	member := e.login("annotator1")
	status, h, page := member.fetchPage("/judge/fixture")
	if status != 200 {
		t.Fatalf("member: status %d", status)
	}
	loader := regexp.MustCompile(`(?s)<aside[^>]*\sid="app-wasm-loader".*?</aside>`).FindString(page)
	if !strings.Contains(loader, escaped) || !strings.Contains(loader, `id="loading-instructions"`) || !strings.Contains(loader, "birds of Peru") {
		t.Errorf("member's judge page: instructions not in the loading screen:\n%s", loader)
	}
	if strings.Contains(page, "<b>each</b>") {
		t.Error("instructions not escaped")
	}
	if h.Get("Cache-Control") != "no-store" || h.Get("ETag") != "" || h.Get("Content-Security-Policy") == "" {
		t.Errorf("member's page headers: %v", h)
	}
	if _, _, p := member.fetchPage("/paraphrase/fixture"); !strings.Contains(p, "Paraphrase carefully: keep every NOT") {
		t.Error("paraphrase page: its own kind's instructions missing")
	}
	// Validation has no project text: the default instructions.
	if _, _, p := member.fetchPage("/validate/fixture"); !strings.Contains(p, "Compare the paraphrase with the original query") {
		t.Error("validate page: default instructions missing")
	}
	for name, u := range map[string]*user{"anonymous": e.anon(), "outsider": e.login("outsider")} {
		status, _, page := u.fetchPage("/judge/fixture")
		if status != 200 || !strings.Contains(page, `id="app-wasm-loader"`) {
			t.Errorf("%s: status %d, or no go-app page", name, status)
		}
		if strings.Contains(page, "mark evidence") || strings.Contains(page, "loading-instructions") {
			t.Errorf("%s sees the project's instructions", name)
		}
	}
	// Pages of a project that does not exist are go-app's as they are.
	if _, _, p := member.fetchPage("/judge/nosuch"); strings.Contains(p, "loading-instructions") {
		t.Error("instructions on an unknown project's page")
	}
}

// TestHashedWasm: app.js and the service worker name app.wasm by its
// content hash, served immutable; /web/app.wasm and stale hashes stay
// revalidated.
func TestHashedWasm(t *testing.T) {
	dir := t.TempDir()
	wasm := bytes.Repeat([]byte("\x00asm hashed "), 2048)
	if err := os.WriteFile(filepath.Join(dir, "app.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 1, func(c *config.Config) { c.StaticDir = dir })
	u := e.anon()
	_, _, appJS := u.fetchPage("/app.js")
	hashed := regexp.MustCompile(`/web/app\.[0-9a-f]+\.wasm`).FindString(appJS)
	if hashed == "" {
		t.Fatalf("app.js loads no hashed wasm:\n%s", appJS)
	}
	if _, _, sw := u.fetchPage("/app-worker.js"); !strings.Contains(sw, `"`+hashed+`"`) || strings.Contains(sw, `"/web/app.wasm"`) {
		t.Errorf("service worker does not cache %s (only it):\n%s", hashed, sw)
	}
	status, h, body := u.fetchPage(hashed)
	if status != 200 || h.Get("Cache-Control") != "public, max-age=31536000, immutable" || body != string(wasm) {
		t.Errorf("%s: %d %v (%d bytes)", hashed, status, h, len(body))
	}
	for _, p := range []string{"/web/app.wasm", "/web/app.0123456789abcdef.wasm"} {
		status, h, body := u.fetchPage(p)
		if status != 200 || h.Get("Cache-Control") != "no-cache" || body != string(wasm) {
			t.Errorf("%s: %d %v", p, status, h)
		}
	}
	if status, _, _ := u.fetchPage("/web/app.zz.wasm"); status != 404 {
		t.Errorf("/web/app.zz.wasm: %d, want 404", status)
	}
}

// TestHashedWasmChangesWithContent: a different app.wasm gets a different
// URL (a server started on other bytes).
func TestHashedWasmChangesWithContent(t *testing.T) {
	urls := map[string]bool{}
	for _, content := range []string{"\x00asm one", "\x00asm two"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "app.wasm"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, 1, func(c *config.Config) { c.StaticDir = dir })
		_, _, appJS := e.anon().fetchPage("/app.js")
		urls[regexp.MustCompile(`/web/app\.[0-9a-f]+\.wasm`).FindString(appJS)] = true
	}
	if len(urls) != 2 || urls[""] {
		t.Errorf("hashed URLs %v, want two different ones", urls)
	}
}
