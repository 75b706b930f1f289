package loadgen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestCrashShort kills the real server with SIGKILL ten times while 16
// annotators submit judgments with retries, restarts Postgres once, and
// checks that nothing acknowledged is lost and nothing is duplicated.
func TestCrashShort(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "boolpool")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "boolpool/cmd/boolpool")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build server: %v", err)
	}
	rep, err := Crash(ctx, CrashConfig{Bin: bin, ScriptsDir: "../../../scripts", Annotators: 16, Kills: 10,
		KillEvery: 700 * time.Millisecond, RestartPostgres: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("crash: %+v", rep)
	if rep.Kills != 10 || rep.PGRestarts != 1 {
		t.Fatalf("kills %d, postgres restarts %d", rep.Kills, rep.PGRestarts)
	}
	// The thresholds only prove the load ran through the kills; the machine
	// may be busy, so they are deliberately low.
	if rep.Acked < 16 || rep.Retries == 0 {
		t.Fatalf("%d judgments acknowledged, %d retries: the load did not run through the kills (errors: %v)", rep.Acked, rep.Retries, rep.Errors)
	}
	if rep.Lost != 0 || rep.Duplicates != 0 {
		t.Fatalf("lost %d, duplicates %d (report %+v)", rep.Lost, rep.Duplicates, rep)
	}
	if rep.Stored < rep.Acked {
		t.Fatalf("stored %d < acknowledged %d", rep.Stored, rep.Acked)
	}
}
