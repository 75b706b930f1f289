package lexical

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// genDocs returns n reproducible documents drawn from a small vocabulary
// (stop words, inflections, digits, non-ASCII letters, punctuation), with
// some empty and some stop-word-only documents.
func genDocs(n int) []Doc {
	words := []string{"apple", "Apples", "the", "banana", "cherry", "cherries", "running", "runs", "x1", "ZEBRA",
		"zebras", "and", "dog", "Dogs", "naïve", "café", "Straße", "42", "of", "connection", "connected", "it's"}
	r := rand.New(rand.NewPCG(1, 2))
	docs := make([]Doc, n)
	for i := range docs {
		var title, body []string
		for range r.IntN(4) {
			title = append(title, words[r.IntN(len(words))])
		}
		for range r.IntN(30) {
			body = append(body, words[r.IntN(len(words))])
		}
		if r.IntN(10) == 0 {
			body = append(body, fmt.Sprintf("rare%d", i)) // terms only one document has
		}
		docs[i] = Doc{ExtID: fmt.Sprintf("g%04d", i), Title: strings.Join(title, " "), Body: strings.Join(body, "; ")}
	}
	docs[5] = Doc{ExtID: docs[5].ExtID}
	docs[6].Title, docs[6].Body = "The", "and of the"
	return docs
}

func buildWith(t *testing.T, docs []Doc, workers, batch int) []byte {
	t.Helper()
	b := newBuilder(context.Background(), DefaultParams(), workers, batch)
	defer b.Close()
	for _, d := range docs {
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	data, err := ix.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestBuilderIndependentOfWorkersAndBatch: the encoded index is the same
// byte for byte whatever the number of workers and the batch size, and
// equals Build's; it holds the Analyzer's term frequencies and lengths.
func TestBuilderIndependentOfWorkersAndBatch(t *testing.T) {
	docs := genDocs(300)
	ref, err := Build(context.Background(), docs, DefaultParams(), 2)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		for _, batch := range []int{1, 7, 4096} {
			if got := buildWith(t, docs, workers, batch); !bytes.Equal(got, want) {
				t.Errorf("%d workers, batch %d: encoded index differs from Build's (%d vs %d bytes)", workers, batch, len(got), len(want))
			}
		}
	}
	a := NewAnalyzer()
	for d, doc := range docs {
		counts := map[string]int{}
		terms := append(a.Analyze(doc.Title), a.Analyze(doc.Body)...)
		for _, term := range terms {
			counts[term]++
		}
		if ref.DocLen(uint32(d)) != len(terms) {
			t.Errorf("length of %s = %d, want %d", doc.ExtID, ref.DocLen(uint32(d)), len(terms))
		}
		for term, n := range counts {
			id, ok := ref.Term(term)
			if !ok || ref.TF(id, uint32(d)) != n {
				t.Errorf("tf of %q in %s = %d (known %v), want %d", term, doc.ExtID, ref.TF(id, uint32(d)), ok, n)
			}
		}
	}
}

// waitGoroutines waits until at most n goroutines run.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines still run, want at most %d", runtime.NumGoroutine(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBuilderCancelAndClose: a cancelled build fails with the context's
// error from Add or Finish, and every way of ending a builder (Finish,
// Close after an error, Close without Finish) joins its workers; a used-up
// builder refuses more documents.
func TestBuilderCancelAndClose(t *testing.T) {
	docs := genDocs(200)
	base := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background())
	b := newBuilder(ctx, DefaultParams(), 3, 7)
	var addErr error
	for i, d := range docs {
		if i == 50 {
			cancel()
		}
		if addErr = b.Add(d); addErr != nil {
			break
		}
	}
	if !errors.Is(addErr, context.Canceled) {
		t.Fatalf("Add after cancel: %v, want context.Canceled", addErr)
	}
	b.Close()
	b.Close() // idempotent
	waitGoroutines(t, base)
	if _, err := b.Finish(); err == nil {
		t.Fatal("Finish after Close succeeded")
	}

	// Cancelled after the last Add: Finish reports it.
	ctx, cancel = context.WithCancel(context.Background())
	b = newBuilder(ctx, DefaultParams(), 2, 4096)
	for _, d := range docs {
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if _, err := b.Finish(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Finish after cancel: %v, want context.Canceled", err)
	}
	waitGoroutines(t, base)

	// Abandoned without Finish.
	b = NewBuilder(context.Background(), DefaultParams(), 4)
	if err := b.Add(docs[0]); err != nil {
		t.Fatal(err)
	}
	b.Close()
	waitGoroutines(t, base)
	if err := b.Add(docs[1]); !errors.Is(err, errBuilderClosed) {
		t.Fatalf("Add after Close: %v, want %v", err, errBuilderClosed)
	}

	// Finished: Close is harmless, Add refused.
	b = NewBuilder(context.Background(), DefaultParams(), 2)
	for _, d := range docs {
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	waitGoroutines(t, base)
	if ix.NumDocs() != len(docs) {
		t.Fatalf("%d documents, want %d", ix.NumDocs(), len(docs))
	}
	if err := b.Add(docs[0]); !errors.Is(err, errBuilderClosed) {
		t.Fatalf("Add after Finish: %v, want %v", err, errBuilderClosed)
	}
}

// TestBuilderDuplicateID: Finish reports a repeated external id.
func TestBuilderDuplicateID(t *testing.T) {
	b := NewBuilder(context.Background(), DefaultParams(), 2)
	defer b.Close()
	for _, id := range []string{"a", "b", "a"} {
		if err := b.Add(Doc{ExtID: id, Body: "text"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Finish(); err == nil || !strings.Contains(err.Error(), `duplicate document id "a"`) {
		t.Fatalf("Finish: %v, want a duplicate-id error", err)
	}
}

// bigDoc is document i of the retention test: a 4 KiB body of a few
// common words and one word no other document has, in its own allocation.
func bigDoc(i int) Doc {
	body := strings.Repeat("alpha beta gamma delta epsilon ", 4096/31) + fmt.Sprintf(" unique%dword", i)
	return Doc{ExtID: fmt.Sprintf("b%d", i), Body: body}
}

// TestBuilderDoesNotRetainText: once documents are added (and their
// batches analysed) the builder's live heap is a small fraction of the
// text it was given: text is not kept by the segments nor pinned by the
// workers' surface-word caches (every document has a word of its own
// that enters the cache).
func TestBuilderDoesNotRetainText(t *testing.T) {
	const n = 20000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := newBuilder(context.Background(), DefaultParams(), 2, 64)
	defer b.Close()
	var text int
	for i := range n {
		d := bigDoc(i)
		text += len(d.Body)
		if err := b.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d documents, %.1f MiB of text; live heap after Add: %.1f MiB", n, float64(text)/(1<<20), float64(live)/(1<<20))
	if live > int64(text/4) {
		t.Fatalf("live heap grew by %d bytes for %d bytes of text: the builder keeps the text", live, text)
	}
	ix, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	id, ok := ix.Term(stem("unique19999word"))
	if !ok || ix.DF(id) != 1 {
		t.Fatalf("the last document's own word is not indexed (known %v)", ok)
	}
	if ds, _ := ix.Postings(id); ix.DocID(ds[0]) != "b19999" {
		t.Fatalf("the last document's own word is indexed in %s, want b19999", ix.DocID(ds[0]))
	}
}

// synthDoc is synthetic document i of the memory benchmark: ≈415 bytes of
// text (the scale corpus's mean) over a Zipf-like vocabulary of 50,000
// words, generated afresh each time.
func synthDoc(z *rand.Zipf, i int) Doc {
	var sb strings.Builder
	for sb.Len() < 400 {
		fmt.Fprintf(&sb, "w%dx ", z.Uint64())
	}
	return Doc{ExtID: fmt.Sprintf("s%07d", i), Title: "synthetic title", Body: sb.String()}
}

// BenchmarkBuildMemory builds an index of 100,000 synthetic documents
// (≈42 MB of text) by streaming them into a Builder and by collecting them
// first and calling Build while keeping them (what BuildLexical did), and
// reports the peak HeapInuse above the starting heap, sampled every
// millisecond (garbage included, so it depends on GOGC; GOGC=20 brings it
// closer to the live heap). Run with -benchtime=1x (≈5 s for both).
func BenchmarkBuildMemory(b *testing.B) {
	const n = 100000
	for _, mode := range []string{"stream", "collect"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base := ms.HeapInuse
				var peak atomic.Uint64
				stop := make(chan struct{})
				sampled := make(chan struct{})
				go func() {
					defer close(sampled)
					var ms runtime.MemStats
					tick := time.NewTicker(time.Millisecond)
					defer tick.Stop()
					for {
						runtime.ReadMemStats(&ms)
						if ms.HeapInuse > peak.Load() {
							peak.Store(ms.HeapInuse)
						}
						select {
						case <-stop:
							return
						case <-tick.C:
						}
					}
				}()
				r := rand.New(rand.NewPCG(3, 4))
				z := rand.NewZipf(r, 1.1, 1, 50000)
				var ix *Index
				var err error
				if mode == "stream" {
					bl := NewBuilder(context.Background(), DefaultParams(), runtime.GOMAXPROCS(0))
					for i := range n {
						if err = bl.Add(synthDoc(z, i)); err != nil {
							b.Fatal(err)
						}
					}
					ix, err = bl.Finish()
				} else {
					docs := make([]Doc, 0)
					for i := range n {
						docs = append(docs, synthDoc(z, i))
					}
					ix, err = Build(context.Background(), docs, DefaultParams(), runtime.GOMAXPROCS(0))
					// The old Build read docs[d].ExtID while laying out the
					// postings, so the texts lived until it returned.
					runtime.KeepAlive(docs)
				}
				close(stop)
				<-sampled
				if err != nil {
					b.Fatal(err)
				}
				if ix.NumDocs() != n {
					b.Fatalf("%d documents, want %d", ix.NumDocs(), n)
				}
				b.ReportMetric(float64(peak.Load()-min(base, peak.Load()))/(1<<20), "peak-heap-MiB")
				runtime.KeepAlive(ix)
			}
		})
	}
}
