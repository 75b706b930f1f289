package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchCorpus is the encoders test sentences, each also as part of a long
// paragraph, repeated to n texts.
func benchCorpus(tb testing.TB, n int) ([]string, int) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "sentences.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	texts := make([]string, n)
	bytes := 0
	for i := range texts {
		texts[i] = lines[i%len(lines)]
		if i%10 == 9 { // every tenth text is a paragraph of ten sentences
			texts[i] = strings.Join(lines[i%len(lines):min(len(lines), i%len(lines)+10)], " ")
		}
		bytes += len(texts[i])
	}
	return texts, bytes
}

func BenchmarkTokenizer(b *testing.B) {
	tok := minilmTokenizer(b)
	texts, size := benchCorpus(b, 10000)
	for _, bc := range []struct {
		name    string
		workers int
	}{{"serial", 1}, {"parallel", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				tok.EncodeBatch(texts, -1, bc.workers)
			}
			b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
		})
	}
}
