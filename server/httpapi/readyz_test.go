package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"boolpool/server/config"
	"boolpool/server/httpapi"
	"boolpool/server/store"
)

// TestReadyzHidesDatabaseDetails: an unreachable database is a 503 that
// names no user, database, host or port (the connection error, which
// names all four, goes to the log).
func TestReadyzHidesDatabaseDetails(t *testing.T) {
	ctx := context.Background()
	// A port nothing listens on: take one and free it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	st, err := store.Open(ctx, "postgres://secretuser:secretpw@127.0.0.1:"+port+"/secretdb?connect_timeout=2", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs bytes.Buffer
	cfg := config.Config{SessionTTL: time.Hour, MaxBodyBytes: 64 << 10, LoginPerMinute: 10, StaticDir: t.TempDir()}
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := httpapi.New(cfg, newServices(t, cfg, st, log, 0), log)
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	body := rec.Body.String()
	if rec.Code != http.StatusServiceUnavailable || strings.TrimSpace(body) != `{"status":"database unavailable"}` {
		t.Fatalf("status %d body %s", rec.Code, body)
	}
	for _, secret := range []string{"secretuser", "secretpw", "secretdb", "127.0.0.1", port} {
		if strings.Contains(body, secret) {
			t.Errorf("body %s names %q", body, secret)
		}
	}
	if !strings.Contains(logs.String(), "secretdb") {
		t.Errorf("the log lacks the details: %s", logs.String())
	}
	if strings.Contains(logs.String(), "secretpw") {
		t.Errorf("the log holds the password: %s", logs.String())
	}
}
