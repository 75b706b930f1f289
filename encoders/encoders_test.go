package encoders

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

func readSentences(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "sentences.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// pairwise returns the cosine of every pair (i < j).
func pairwise(vecs [][]float32) []float64 {
	var out []float64
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			out = append(out, Cosine(vecs[i], vecs[j]))
		}
	}
	return out
}

func pearson(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestInt8Quality: the int8 graph's vectors stay close to fp32's.
func TestInt8Quality(t *testing.T) {
	fp32 := openTest(t, MiniLM)
	int8 := openTest(t, MiniLMInt8)
	texts := readSentences(t)
	ctx := context.Background()
	a, err := fp32.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := int8.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var sum, worst float64 = 0, 1
	for i := range a {
		c := Cosine(a[i], b[i])
		sum += c
		worst = min(worst, c)
	}
	mean := sum / float64(len(a))
	r := pearson(pairwise(a), pairwise(b))
	t.Logf("int8 vs fp32 over %d sentences: mean cosine %.4f, min %.4f, pairwise-similarity correlation %.4f", len(a), mean, worst, r)
	if mean < 0.99 {
		t.Errorf("mean cosine int8 vs fp32 = %.4f, want >= 0.99", mean)
	}
	if r < 0.99 {
		t.Errorf("correlation of pairwise similarities int8 vs fp32 = %.4f, want >= 0.99", r)
	}
}

// TestStaticAgreement: the static encoder ranks pairs like the transformer.
func TestStaticAgreement(t *testing.T) {
	fp32 := openTest(t, MiniLM)
	static := openTest(t, MiniLMStatic)
	if static.Dim() != 256 {
		t.Errorf("static dim = %d, want 256", static.Dim())
	}
	texts := readSentences(t)
	ctx := context.Background()
	a, err := fp32.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := static.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	r := pearson(pairwise(a), pairwise(b))
	t.Logf("static vs fp32: pairwise-similarity correlation %.4f over %d sentences", r, len(a))
	if r < 0.5 {
		t.Errorf("pairwise-similarity correlation %.4f, want >= 0.5", r)
	}
	s01, s02 := Cosine(b[0], b[1]), Cosine(b[0], b[2])
	t.Logf("static: cos(weather, sunny) = %.4f, cos(weather, stadium) = %.4f", s01, s02)
}

func TestWindows(t *testing.T) {
	tok, err := LoadTokenizer("")
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("word ", 600) // 600 tokens
	tests := []struct {
		name     string
		text     string
		window   int
		specials bool
		lens     []int
	}{
		{"empty", "", 256, true, []int{2}},
		{"empty static", "", 256, false, []int{0}},
		{"short", "hello world", 256, true, []int{4}},
		{"exact fit", strings.Repeat("word ", 254), 256, true, []int{256}},
		{"long", long, 256, true, []int{256, 256, 94}},
		{"long static", long, 4096, false, []int{600}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := Windows(tok, tc.text, tc.window, tc.specials)
			var lens []int
			for _, w := range ws {
				lens = append(lens, len(w))
				if tc.specials && (w[0] != tok.CLS() || w[len(w)-1] != tok.SEP()) {
					t.Errorf("window not wrapped in [CLS] … [SEP]: %v", w)
				}
			}
			if !slices.Equal(lens, tc.lens) {
				t.Errorf("window lengths %v, want %v", lens, tc.lens)
			}
		})
	}
}

// TestLongDocument: a document longer than the window is the renormalised
// mean of its windows, and batching (padding, sorting) changes nothing.
func TestLongDocument(t *testing.T) {
	enc := openTest(t, MiniLM)
	ctx := context.Background()
	sents := readSentences(t)
	doc := strings.Join(sents, " ") // well over 256 tokens
	windows := Windows(enc.tok, doc, enc.window, true)
	if len(windows) < 2 {
		t.Fatalf("document has %d windows, want several", len(windows))
	}
	got, err := enc.Encode(ctx, []string{sents[0], doc, sents[1]})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float32, enc.Dim())
	for _, w := range windows {
		v, err := enc.runBatch(ctx, []piece{{ids: w[1 : len(w)-1]}}, []int{0}) // runBatch adds [CLS]/[SEP]
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range v[0] {
			want[i] += f
		}
	}
	normalize(want)
	if c := Cosine(got[1], want); c < 0.9999 {
		t.Errorf("long document: cosine to mean of windows %.6f", c)
	}
	alone, err := enc.Encode(ctx, sents[:1])
	if err != nil {
		t.Fatal(err)
	}
	if c := Cosine(got[0], alone[0]); c < 0.9999 {
		t.Errorf("padding changed a vector: cosine %.6f", c)
	}
}

func TestCancelledContext(t *testing.T) {
	enc := openTest(t, MiniLMStatic)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := enc.Encode(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestCUDAUnavailable(t *testing.T) {
	rt, err := NewRuntime(Config{Device: DeviceCUDA})
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	enc, err := rt.Open(context.Background(), MiniLMStatic)
	if err == nil {
		enc.Close()
		t.Skip("a CUDA execution provider is available here")
	}
	if !strings.Contains(err.Error(), "CUDA execution provider unavailable") {
		t.Errorf("error %q does not explain that CUDA is unavailable", err)
	}
}

func TestInfo(t *testing.T) {
	enc := openTest(t, MiniLMStatic)
	info, err := enc.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != MiniLMStatic || info.Dim != 256 || len(info.SHA256) != 64 || info.Pooling != "mean" || info.Normalize != "l2" {
		t.Errorf("info = %+v", info)
	}
}

func TestSetReusesEncoders(t *testing.T) {
	rt, err := NewRuntime(Config{})
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	set := NewSet(rt)
	defer set.Close()
	ctx := context.Background()
	a, err := set.Dense(ctx, MiniLMStatic)
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := set.Dense(ctx, MiniLMStatic)
	if err != nil || a != b {
		t.Errorf("second Dense: %p %v, want the same encoder %p", b, err, a)
	}
	if _, err := set.Dense(ctx, "nope"); err == nil {
		t.Error("unknown encoder accepted")
	}
	if sp, err := set.Sparse(LexicalName); err != nil || sp.Dim() != 30522 {
		t.Errorf("lexical: %v", err)
	}
}

// TestBatchesMatchEncode: the tensors Batches hands to benchmarks are the
// ones Encode runs (every row's vector is one of Encode's vectors), and
// parallel tokenization keeps texts in order.
func TestBatchesMatchEncode(t *testing.T) {
	ctx := context.Background()
	sents := readSentences(t)
	var texts []string
	for size := 0; size < 2*parallelBytes; { // enough text to tokenize on several goroutines
		for _, s := range sents {
			texts = append(texts, s)
			size += len(s)
		}
	}
	for _, name := range []string{MiniLMStatic, MiniLM} {
		enc := openTest(t, name)
		in := texts
		if name == MiniLM {
			in = sents[:40]
		}
		want, err := enc.Encode(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range in[:10] {
			one, err := enc.Encode(ctx, []string{s})
			if err != nil {
				t.Fatal(err)
			}
			if c := Cosine(one[0], want[i]); c < 0.9999 {
				t.Errorf("%s: text %d alone vs in a batch: cosine %.6f", name, i, c)
			}
		}
		rows := 0
		for _, b := range enc.Batches(in) {
			if len(b.Names) != len(b.Inputs) || b.Rows > enc.batch {
				t.Fatalf("%s: batch %d rows, %d names, %d inputs", name, b.Rows, len(b.Names), len(b.Inputs))
			}
			vecs, err := enc.RunBatch(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vecs {
				best := -1.0
				for _, w := range want[:min(len(want), len(sents))] { // the rest repeat these texts
					best = max(best, Cosine(v, w))
				}
				if best < 0.9999 {
					t.Errorf("%s: batch row matches no Encode vector (best cosine %.6f)", name, best)
				}
			}
			rows += b.Rows
		}
		if rows != len(in) {
			t.Errorf("%s: batches hold %d rows, want %d (one window per text)", name, rows, len(in))
		}
	}
}

// TestBatchSizeDefaults: without Config.BatchSize the static encoder runs
// StaticBatchSize sequences per call and the transformers DefaultBatchSize;
// a configured size applies to both.
func TestBatchSizeDefaults(t *testing.T) {
	if b := openTest(t, MiniLMStatic).batch; b != StaticBatchSize {
		t.Errorf("static: batch %d, want %d", b, StaticBatchSize)
	}
	if b := openTest(t, MiniLMInt8).batch; b != DefaultBatchSize {
		t.Errorf("minilm-int8: batch %d, want %d", b, DefaultBatchSize)
	}
	rt, err := NewRuntime(Config{BatchSize: 5})
	if errors.Is(err, ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, name := range []string{MiniLMStatic, MiniLMInt8} {
		enc, err := rt.Open(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		if enc.batch != 5 {
			t.Errorf("%s with BatchSize 5: batch %d", name, enc.batch)
		}
		enc.Close()
	}
}
