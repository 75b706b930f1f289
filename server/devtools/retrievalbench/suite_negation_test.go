package retrievalbench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"boolpool/encoders"
	"boolpool/server/devtools/bench"
	"boolpool/server/store/storetest"
)

// TestNegationSuite runs the negation suite on the shipped fixtures: every
// comparison row is a share in [0, 1] with its plain method as reference,
// and on the BoolQuestions NOT fixture the strict Boolean method, which
// excludes documents matching the negated atom, puts fewer negative
// passages at or above the positive than plain BM25.
func TestNegationSuite(t *testing.T) {
	runtime, release := bench.SharedRuntime(func() (*encoders.Runtime, error) {
		return encoders.NewRuntime(encoders.Config{CacheDir: encoders.DefaultCacheDir()})
	})
	t.Cleanup(release)
	env := &bench.Env{Store: storetest.New(t), Runtime: runtime, Repeats: 1,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Progress: io.Discard}
	rows, err := NegationSuite().Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	bench.Markdown(os.Stdout, rows, bench.MachineInfo(), 0)
	var nevir, boolq int
	for _, r := range rows {
		if r.Name == "dense methods" {
			t.Logf("dense: %s", r.Note)
			continue
		}
		if r.Value < 0 || r.Value > 1 || r.RefValue < 0 || r.RefValue > 1 || r.Reference == "" {
			t.Errorf("row %+v", r)
		}
		switch {
		case strings.HasPrefix(r.Name, "NevIR pairwise accuracy, 16 fixture pairs"):
			nevir++
		case strings.HasPrefix(r.Name, "BoolQuestions NOT, 16 fixture questions"):
			boolq++
			if strings.HasSuffix(r.Name, ": bm25-strict-boolean") && !(r.Value < r.RefValue) {
				t.Errorf("strict Boolean negabove %v not below bm25's %v", r.Value, r.RefValue)
			}
		}
	}
	if nevir < 1 || boolq < 2 {
		t.Errorf("rows: %d NevIR, %d BoolQuestions", nevir, boolq)
	}
}
