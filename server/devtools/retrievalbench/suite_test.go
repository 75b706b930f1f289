package retrievalbench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"boolpool/encoders"
	"boolpool/server/devtools/bench"
	"boolpool/server/store/storetest"
)

// TestSuiteQuick runs the suite once in quick mode on the full corpus. It
// takes minutes (longer under -race), so 'make test' leaves it to 'make
// bench', which runs the same suite for real; set BOOLPOOL_BENCH_SMOKE=1
// to run it as a test.
func TestSuiteQuick(t *testing.T) {
	shared := os.Getenv("BOOLPOOL_SHARED_DATA")
	if shared == "" || testing.Short() || os.Getenv("BOOLPOOL_BENCH_SMOKE") == "" {
		t.Skip("needs BOOLPOOL_SHARED_DATA and BOOLPOOL_BENCH_SMOKE=1 (full DebQUEST corpus, minutes); 'make bench' runs this suite")
	}
	runtime, release := bench.SharedRuntime(func() (*encoders.Runtime, error) {
		return encoders.NewRuntime(encoders.Config{CacheDir: encoders.DefaultCacheDir()})
	})
	t.Cleanup(release)
	env := &bench.Env{Store: storetest.New(t), SharedData: shared, Runtime: runtime, Repeats: 1, Quick: true,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Progress: io.Discard}
	rows, err := Suite().Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	bench.Markdown(os.Stdout, rows, bench.MachineInfo(), 0)
	if len(rows) < 20 {
		t.Fatalf("only %d rows", len(rows))
	}
}
