package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"
)

// TestEmbedReferenceCosines is the acceptance check of the MiniLM encoder
// through the CLI: the reference cosines of DESIGN §9 within 1e-3.
func TestEmbedReferenceCosines(t *testing.T) {
	needEncoders(t, "run scripts/install-onnxruntime.sh and scripts/fetch-models.sh",
		"onnxruntime/libonnxruntime.so.1", "models/minilm-fp16/config.json")
	var stdout, stderr bytes.Buffer
	args := []string{"embed", "--encoder", "minilm", "--json", "The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var vecs [][]float64
	if err := json.Unmarshal(stdout.Bytes(), &vecs); err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 384 {
		t.Fatalf("got %d vectors", len(vecs))
	}
	cos := func(a, b []float64) float64 {
		var d, na, nb float64
		for i := range a {
			d += a[i] * b[i]
			na += a[i] * a[i]
			nb += b[i] * b[i]
		}
		return d / math.Sqrt(na*nb)
	}
	for _, tc := range []struct {
		a, b int
		want float64
	}{{0, 1, 0.6660}, {0, 2, 0.1046}, {1, 2, 0.1411}} {
		if got := cos(vecs[tc.a], vecs[tc.b]); math.Abs(got-tc.want) > 1e-3 {
			t.Errorf("cos(%d, %d) = %.4f, want %.4f", tc.a, tc.b, got, tc.want)
		}
	}
}
