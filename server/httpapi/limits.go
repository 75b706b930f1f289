package httpapi

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"

	"boolpool/server/config"
)

// Request limits and timeouts: the body of a request must keep arriving
// at a minimum rate, answers have a write deadline except where they are
// long by nature (the live event stream, uploads, export downloads), and
// uploads live in per-process directories that a later start removes if
// the process that made them is gone.

// httpServer is the net/http server Run serves: header, write and idle
// timeouts from the configuration. It sets no ReadTimeout, which would
// bound an upload's total time: request bodies are bounded by
// minRateBody instead.
func (s *Server) httpServer() *http.Server {
	t := s.cfg.HTTPTimeouts()
	return &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s.echo,
		ReadHeaderTimeout: t.ReadHeader,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
	}
}

// bodyDeadline bounds how long reading a request body may take: after
// t.Body it must have arrived at t.BodyMinRate bytes per second on
// average. A slower body fails its reads; the answer is a 408 and the
// connection is closed.
func bodyDeadline(t config.Timeouts, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0 {
				return next(c)
			}
			rc := http.NewResponseController(c.Response())
			b := &minRateBody{body: req.Body, rc: rc, start: time.Now(), grace: t.Body, rate: t.BodyMinRate}
			// A copy of the request carries the wrapped body: net/http
			// looks at the type of the original's body when the handler
			// answers without reading it (to discard a small rest or close
			// the connection after a large one).
			wrapped := req.WithContext(req.Context())
			wrapped.Body = b
			c.SetRequest(wrapped)
			err := next(c)
			// Whatever was left unread, the deadline must not outlive the
			// request: net/http reads on from the same connection.
			_ = rc.SetReadDeadline(time.Time{})
			if b.slow {
				log.Info("request body too slow", "method", req.Method, "path", c.Path(), "read", b.n, "remote", req.RemoteAddr)
				c.Response().Header().Set("Connection", "close")
				return echo.NewHTTPError(http.StatusRequestTimeout,
					fmt.Sprintf("the request body arrived too slowly (slower than %d bytes per second after %s)", t.BodyMinRate, t.Body))
			}
			return err
		}
	}
}

// minRateBody is a request body whose reads fail once it falls behind
// start + grace + n/rate, n the bytes read so far. The deadline is set on
// the connection, so a read blocked on a silent client ends too.
type minRateBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	n     int64
	slow  bool
	unset bool // the connection takes no deadline (then only the rate check applies)
}

// errBodyTooSlow is what a read of a too slow body returns.
var errBodyTooSlow = errors.New("request body arrived too slowly")

func (b *minRateBody) Read(p []byte) (int, error) {
	if b.slow {
		return 0, errBodyTooSlow
	}
	deadline := b.start.Add(b.grace + time.Duration(float64(b.n)/float64(b.rate)*float64(time.Second)))
	if time.Now().After(deadline) {
		b.slow = true
		return 0, errBodyTooSlow
	}
	if !b.unset {
		if err := b.rc.SetReadDeadline(deadline); err != nil {
			b.unset = true
		}
	}
	n, err := b.body.Read(p)
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF):
		// The body is complete: the server's background read of the
		// connection must not inherit the deadline.
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err)):
		b.slow = true
		return n, errBodyTooSlow
	}
	return n, err
}

func (b *minRateBody) Close() error { return b.body.Close() }

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

// noWriteDeadline lifts the server's write timeout for answers that are
// long by nature: the live event stream, uploads (the import runs before
// the answer) and export downloads.
func noWriteDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
		return next(c)
	}
}

// Upload directories are named upload-<pid>-<random> under the upload
// root, so that a later start can tell the ones of a process that is gone.
const uploadDirPrefix = "upload-"

// staleUploadAge is the age after which an upload directory is removed
// even if its process seems alive (its id may have been reused).
const staleUploadAge = 24 * time.Hour

// newUploadDir makes a fresh directory for one upload under root.
func newUploadDir(root string) (string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("httpapi: upload dir: %w", err)
	}
	dir, err := os.MkdirTemp(root, fmt.Sprintf("%s%d-", uploadDirPrefix, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("httpapi: upload dir: %w", err)
	}
	return dir, nil
}

// sweepUploads removes the upload directories under root left by a
// process that is no longer running (a killed server), and any older than
// staleUploadAge. It returns how many it removed.
func sweepUploads(root string, now time.Time, log *slog.Logger) (int, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("httpapi: sweep uploads: %w", err)
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		pidText, _, ok := strings.Cut(strings.TrimPrefix(name, uploadDirPrefix), "-")
		pid, perr := strconv.Atoi(pidText)
		if !e.IsDir() || !strings.HasPrefix(name, uploadDirPrefix) || !ok || perr != nil || pid == os.Getpid() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if processAlive(pid) && now.Sub(info.ModTime()) < staleUploadAge {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil {
			log.Warn("removing a stale upload", "dir", name, "err", err)
			continue
		}
		removed++
	}
	return removed, nil
}

// processAlive reports whether a process with this id exists (one of
// another user counts).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
