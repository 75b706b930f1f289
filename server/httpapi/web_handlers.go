package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"
)

// wasmAsset is static/app.wasm held in memory with its gzip and brotli
// encodings. Precompressed files (app.wasm.gz, app.wasm.br) newer than
// app.wasm are used as they are; otherwise the server compresses in the
// background after start-up, serving the best encoding ready so far, and
// writes the results back for the next start (best effort).
type wasmAsset struct {
	ready chan struct{} // closed once raw is loaded (or failed)
	mu    sync.Mutex
	raw   []byte
	gz    []byte
	br    []byte
	etag  string // of the raw bytes; encodings add a suffix
	err   error
}

// loadWasm starts loading dir/app.wasm in the background.
func loadWasm(dir string, log *slog.Logger) *wasmAsset {
	w := &wasmAsset{ready: make(chan struct{})}
	go w.load(dir, log)
	return w
}

func (w *wasmAsset) load(dir string, log *slog.Logger) {
	path := filepath.Join(dir, "app.wasm")
	st, err := os.Stat(path)
	var raw []byte
	if err == nil {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		w.err = fmt.Errorf("httpapi: %w", err)
		close(w.ready)
		log.Warn("app.wasm not available; build it with 'make build'", "err", err)
		return
	}
	sum := sha256.Sum256(raw)
	w.raw, w.etag = raw, hex.EncodeToString(sum[:12])
	close(w.ready)

	sizes := []any{"raw", len(raw)}
	for _, enc := range []struct {
		name, ext string
		compress  func([]byte) ([]byte, error)
		dst       *[]byte
	}{{"gzip", ".gz", GzipBytes, &w.gz}, {"brotli", ".br", BrotliBytes, &w.br}} {
		b, err := compressedCopy(path+enc.ext, st.ModTime(), raw, enc.compress, log)
		if err != nil {
			log.Error(enc.name+" app.wasm", "err", err)
			return
		}
		w.mu.Lock()
		*enc.dst = b
		w.mu.Unlock()
		sizes = append(sizes, enc.name, len(b))
	}
	log.Info("app.wasm ready", sizes...)
}

func precompressed(path string, notBefore time.Time) []byte {
	st, err := os.Stat(path)
	if err != nil || st.ModTime().Before(notBefore) {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b
}

func writeBestEffort(path string, b []byte, log *slog.Logger) {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		log.Debug("cannot cache compressed wasm", "path", path, "err", err)
	}
}

// GzipBytes compresses b at the best gzip level.
func GzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("httpapi: gzip: %w", err)
	}
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("httpapi: gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("httpapi: gzip: %w", err)
	}
	return buf.Bytes(), nil
}

// BrotliBytes compresses b with brotli at quality 9 (close to 11's size at a
// fraction of its time on a 10 MB wasm).
func BrotliBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	bw := brotli.NewWriterLevel(&buf, 9)
	if _, err := bw.Write(b); err != nil {
		return nil, fmt.Errorf("httpapi: brotli: %w", err)
	}
	if err := bw.Close(); err != nil {
		return nil, fmt.Errorf("httpapi: brotli: %w", err)
	}
	return buf.Bytes(), nil
}

// hashedURL is the wasm's content-hashed URL, /web/app.<hash>.wasm, which
// go-app's app.js loads and the service worker caches (it waits for the
// file to be read; "" if there is none). A rebuilt wasm gets a new URL, so
// the bytes at one URL never change and browsers may keep them a year.
func (w *wasmAsset) hashedURL() string {
	<-w.ready
	if w.err != nil {
		return ""
	}
	return "/web/app." + w.etag + ".wasm"
}

// immutableCache is the Cache-Control of the content-hashed wasm.
const immutableCache = "public, max-age=31536000, immutable"

// serve writes the wasm in the best encoding the client accepts and the
// server has ready. At its hashed URL (immutable true) browsers keep it a
// year without asking; at /web/app.wasm, or at a hash that is no longer the
// current one (a page loaded before a deploy), it is the current wasm,
// revalidated on every load (no-cache + ETag).
func (w *wasmAsset) serve(c echo.Context, immutable bool) error {
	<-w.ready
	if w.err != nil {
		return echo.NewHTTPError(http.StatusNotFound, "app.wasm is not built: run 'make build'")
	}
	w.mu.Lock()
	gz, br := w.gz, w.br
	w.mu.Unlock()
	h := c.Response().Header()
	h.Set("Content-Type", "application/wasm")
	if immutable {
		h.Set("Cache-Control", immutableCache)
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Wasm-Content-Length", strconv.Itoa(len(w.raw)))
	// Every encoding of the same bytes revalidates as unchanged.
	if match := c.Request().Header.Get("If-None-Match"); match != "" && strings.Contains(match, w.etag) {
		h.Set("ETag", `"`+w.etag+`"`)
		return c.NoContent(http.StatusNotModified)
	}
	body, etag := w.raw, `"`+w.etag+`"`
	switch enc := acceptEncoding(c.Request().Header.Get("Accept-Encoding")); {
	case enc["br"] && br != nil:
		body, etag = br, `"`+w.etag+`-br"`
		h.Set("Content-Encoding", "br")
	case enc["gzip"] && gz != nil:
		body, etag = gz, `"`+w.etag+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if c.Request().Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	return c.Blob(http.StatusOK, "application/wasm", body)
}

// acceptEncoding returns the codings an Accept-Encoding header allows
// (q=0 excludes one).
func acceptEncoding(header string) map[string]bool {
	ok := map[string]bool{}
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if q, found := strings.CutPrefix(strings.TrimSpace(params), "q="); found {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				continue
			}
		}
		ok[strings.ToLower(strings.TrimSpace(name))] = true
	}
	return ok
}

// staticFiles serves /web/* from the static directory (CSS, icons,
// manifest); app.wasm goes through wasmAsset.
type staticFiles struct {
	wasm  *wasmAsset
	files http.Handler
}

func newStaticFiles(dir string, wasm *wasmAsset) *staticFiles {
	return &staticFiles{wasm: wasm, files: http.StripPrefix("/web/", http.FileServer(http.Dir(dir)))}
}

func (s *staticFiles) serve(c echo.Context) error {
	p := c.Request().URL.Path
	if p == "/web/app.wasm" {
		return s.wasm.serve(c, false)
	}
	if hashedWasmPath(p) {
		return s.wasm.serve(c, p == s.wasm.hashedURL())
	}
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".br") {
		return echo.NewHTTPError(http.StatusNotFound)
	}
	c.Response().Header().Set("Cache-Control", "no-cache")
	s.files.ServeHTTP(c.Response(), c.Request())
	return nil
}

// hashedWasmPath reports whether p has the form of a content-hashed wasm
// URL, /web/app.<hex>.wasm (the current one or an older one).
func hashedWasmPath(p string) bool {
	name, ok := strings.CutPrefix(p, "/web/app.")
	if !ok {
		return false
	}
	hash, ok := strings.CutSuffix(name, ".wasm")
	if !ok || hash == "" || len(hash) > 64 {
		return false
	}
	for _, r := range hash {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// appVersion identifies this server binary together with the app.wasm it
// serves (sizes and modification times), so browsers keep their cached app
// across restarts and fetch a new one after a rebuild of either. It is ""
// (a fresh version per start) when either cannot be read.
func appVersion(staticDir string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	h := sha256.New()
	for _, p := range []string{exe, filepath.Join(staticDir, "app.wasm"), filepath.Join(staticDir, "boolpool.css")} {
		st, err := os.Stat(p)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s %d %d\n", p, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// compressedCopy is the precompressed file at path when it is not older
// than modTime, else raw compressed with compress and written there (best
// effort) for the next start.
func compressedCopy(path string, modTime time.Time, raw []byte, compress func([]byte) ([]byte, error), log *slog.Logger) ([]byte, error) {
	if b := precompressed(path, modTime); b != nil {
		return b, nil
	}
	b, err := compress(raw)
	if err != nil {
		return nil, err
	}
	writeBestEffort(path, b, log)
	return b, nil
}
