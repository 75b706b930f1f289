package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// serveUntilReady runs `boolpool serve args…` until /readyz answers 200,
// then stops it and returns its error.
func serveUntilReady(t *testing.T, args ...string) {
	t.Helper()
	addr := freeAddr(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	errc := make(chan error, 1)
	go func() {
		errc <- runServe(ctx, append([]string{"--addr", addr, "--static", t.TempDir(), "--log-level", "warn"}, args...), io.Discard, io.Discard)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-errc:
			t.Fatalf("serve %v ended: %v", args, err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve %v: not ready", args)
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	if err := <-errc; err != nil {
		t.Fatalf("serve %v: %v", args, err)
	}
}

// TestServeWorkers: serve runs an in-process job worker by default (River's
// client starts and registers its queues) and none with --workers 0; bad
// job flags are usage errors.
func TestServeWorkers(t *testing.T) {
	ctx := context.Background()
	url, st := migratedDB(t)
	serveUntilReady(t, "--database-url", url, "--workers", "0")
	// A River worker registers its queues in river_queue when it starts.
	var queues int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM river_queue`).Scan(&queues); err != nil || queues != 0 {
		t.Fatalf("serve --workers 0 started a job worker: %d queues, %v", queues, err)
	}
	serveUntilReady(t, "--database-url", url, "--workers", "1")
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM river_queue`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("serve with a worker registered no River queue")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, args := range [][]string{{"--workers", "-1"}, {"--device", "tpu"}, {"--rescue-after", "10ms"}} {
		err := runServe(ctx, append([]string{"--database-url", url}, args...), io.Discard, io.Discard)
		if !errors.Is(err, errUsage) {
			t.Errorf("serve %v: %v, want a usage error", args, err)
		}
	}
}
