package cal

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"boolpool/encoders"
	"boolpool/server/embedjob"
	"boolpool/server/lexical"
)

// at is v[d], 0 for a nil v.
func at(v []float64, d uint32) float64 {
	if v == nil {
		return 0
	}
	return v[d]
}

// testEncoder embeds texts with the static MiniLM encoder (real ONNX
// Runtime), as `boolpool encode` stores the documents' vectors.
type testEncoder struct {
	rt  *encoders.Runtime
	enc *encoders.ONNXEncoder
}

func newTestEncoder(t testing.TB) *testEncoder {
	t.Helper()
	rt, err := encoders.NewRuntime(encoders.Config{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := rt.Open(context.Background(), encoders.MiniLMStatic)
	if err != nil {
		rt.Close()
		t.Fatal(err)
	}
	e := &testEncoder{rt: rt, enc: enc}
	t.Cleanup(func() { enc.Close(); rt.Close() })
	return e
}

func (e *testEncoder) text(t testing.TB, s string) []float32 {
	t.Helper()
	v, err := e.enc.Encode(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

// corpus embeds every document's title + text (embedjob.DocumentText).
// BOOLPOOL_CAL_DENSE_CACHE=FILE keeps the vectors in FILE (raw
// little-endian float32, documents in order) between runs.
func (e *testEncoder) corpus(t testing.TB, docs []lexical.Doc) [][]float32 {
	t.Helper()
	cache := os.Getenv("BOOLPOOL_CAL_DENSE_CACHE")
	dim := e.enc.Dim()
	if cache != "" {
		if b, err := os.ReadFile(cache); err == nil && len(b) == 4*dim*len(docs) {
			out := make([][]float32, len(docs))
			for i := range out {
				out[i] = make([]float32, dim)
				for j := range out[i] {
					out[i][j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(i*dim+j):]))
				}
			}
			return out
		}
	}
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = embedjob.DocumentText(d.Title, d.Body)
	}
	out, err := e.enc.Encode(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if cache != "" {
		b := make([]byte, 0, 4*dim*len(docs))
		for _, v := range out {
			for _, x := range v {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cache, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
