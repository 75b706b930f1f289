package retrievalbench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"boolpool/server/bench"
	"boolpool/server/store/storetest"
)

// TestSuiteQuick runs the suite once in quick mode on the full corpus.
func TestSuiteQuick(t *testing.T) {
	shared := os.Getenv("BOOLPOOL_SHARED_DATA")
	if shared == "" || testing.Short() {
		t.Skip("needs BOOLPOOL_SHARED_DATA (full DebQUEST corpus)")
	}
	env := &bench.Env{Store: storetest.New(t), SharedData: shared, Repeats: 1, Quick: true,
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
