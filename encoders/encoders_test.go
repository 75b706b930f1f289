package encoders

import (
	"context"
	"errors"
	"math"
	"testing"
)

// openTest opens a registered encoder, skipping when the ONNX Runtime
// library or the model weights are not installed.
func openTest(tb testing.TB, name string) *ONNXEncoder {
	tb.Helper()
	rt, err := NewRuntime(Config{})
	if errors.Is(err, ErrNotInstalled) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { rt.Close() })
	enc, err := rt.Open(context.Background(), name)
	if errors.Is(err, ErrNotInstalled) {
		tb.Skipf("skipping: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { enc.Close() })
	return enc
}

var referenceSentences = []string{"The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."}

func TestReferenceCosines(t *testing.T) {
	enc := openTest(t, MiniLM)
	vecs, err := enc.Encode(context.Background(), referenceSentences)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		a, b int
		want float64
	}{{0, 1, 0.6660}, {0, 2, 0.1046}, {1, 2, 0.1411}}
	for _, tc := range tests {
		got := Cosine(vecs[tc.a], vecs[tc.b])
		t.Logf("cos(%q, %q) = %.4f", referenceSentences[tc.a], referenceSentences[tc.b], got)
		if math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("cos(%q, %q) = %.4f, want %.4f", referenceSentences[tc.a], referenceSentences[tc.b], got, tc.want)
		}
	}
}
