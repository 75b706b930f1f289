package loadgen

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// FreePort returns a loopback port nobody listens on right now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Server is a 'boolpool serve' child process.
type Server struct {
	bin, dbURL, addr string
	args             []string
	cmd              *exec.Cmd
	log              *bytes.Buffer
}

// StartServer runs bin serve on addr against dbURL and waits for /readyz.
func StartServer(ctx context.Context, bin, dbURL, addr string, args ...string) (*Server, error) {
	s := &Server{bin: bin, dbURL: dbURL, addr: addr, args: args}
	return s, s.Start(ctx)
}

// Log returns what the server wrote to stdout and stderr so far (its
// last run's, after a restart), at most the last max bytes.
func (s *Server) Log(max int) string {
	b := s.log.Bytes()
	if len(b) > max {
		b = b[len(b)-max:]
	}
	return string(b)
}

// PID is the running process's id (0 when it is not running).
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.addr }

// Start (re)starts the process and waits until it is ready.
func (s *Server) Start(ctx context.Context) error {
	// No static directory: the API is under test, and a server that found
	// a fresh app.wasm would spend a core compressing it in the background.
	args := append([]string{"serve", "-addr", s.addr, "-database-url", s.dbURL, "-login-rate", "1000000", "-login-account-rate", "1000000", "-log-level", "warn",
		"-static", filepath.Join(os.TempDir(), "boolpool-loadtest-no-static")}, s.args...)
	s.cmd = exec.Command(s.bin, args...)
	s.log = &bytes.Buffer{}
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("loadgen: start server: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.URL() + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return fmt.Errorf("loadgen: server not ready after 30s: %s", s.log.String())
}

// Kill sends SIGKILL and reaps the process.
func (s *Server) Kill() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
	s.cmd = nil
	return nil
}

// Cluster is a private, throwaway PostgreSQL cluster started with the
// repository's scripts/db.sh, so a test may restart it without disturbing
// the shared one.
type Cluster struct {
	script string
	env    []string
	URL    string
}

// StartCluster creates and starts a cluster; scriptsDir holds db.sh.
func StartCluster(ctx context.Context, scriptsDir string) (*Cluster, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	c := &Cluster{script: filepath.Join(scriptsDir, "db.sh")}
	c.env = append(os.Environ(), "DATABASE_URL=", fmt.Sprintf("BOOLPOOL_PGPORT=%d", port),
		"BOOLPOOL_PGDIR=/var/tmp/boolpool-loadtest-"+hex.EncodeToString(b[:]), "BOOLPOOL_DBNAME=loadtest")
	out, err := c.run(ctx, "start")
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(out, "\n") {
		if u, ok := strings.CutPrefix(l, "DATABASE_URL="); ok {
			c.URL = u
		}
	}
	if c.URL == "" {
		return nil, fmt.Errorf("loadgen: db.sh printed no DATABASE_URL: %q", out)
	}
	return c, nil
}

func (c *Cluster) run(ctx context.Context, verb string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", c.script, verb)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("loadgen: db.sh %s: %w: %s", verb, err, stderr.String())
	}
	return stdout.String(), nil
}

// Restart stops the cluster with a fast shutdown and starts it again.
func (c *Cluster) Restart(ctx context.Context) error {
	if _, err := c.run(ctx, "stop"); err != nil {
		return err
	}
	_, err := c.run(ctx, "start")
	return err
}

// Remove stops the cluster and deletes its data.
func (c *Cluster) Remove(ctx context.Context) error {
	_, err := c.run(ctx, "clean")
	return err
}
