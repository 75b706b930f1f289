package encoders

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/encoders/tokenizer"
)

// benchTexts makes n texts of exactly tokens tokens each ([CLS] and [SEP]
// included) by cycling through the test sentences word by word.
func benchTexts(tb testing.TB, tok *tokenizer.Tokenizer, n, tokens int) []string {
	words := strings.Fields(strings.Join(readSentences(tb), " "))
	texts := make([]string, n)
	w := 0
	for i := range texts {
		var parts []string
		count := 2
		for {
			word := words[w%len(words)]
			w++
			c := len(tok.Tokenize(word))
			if count+c > tokens {
				if count == tokens {
					break
				}
				continue
			}
			parts = append(parts, word)
			count += c
			if count == tokens {
				break
			}
		}
		texts[i] = strings.Join(parts, " ")
	}
	return texts
}

// BenchmarkEncode reports texts/s per encoder at 32, 128 and 256 tokens
// (batches of 32).
func BenchmarkEncode(b *testing.B) {
	for _, name := range Names() {
		enc := openTest(b, name)
		for _, tokens := range []int{32, 128, 256} {
			texts := benchTexts(b, enc.tok, 32, tokens)
			b.Run(fmt.Sprintf("%s/%d", name, tokens), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					if _, err := enc.Encode(ctx, texts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
			})
		}
	}
}

// BenchmarkAgreement reports, per fast encoder, its agreement with the
// fp32 transformer on the test sentences: mean cosine to the fp32 vector
// (int8 only: the static encoder lives in another space) and the Pearson
// correlation of all pairwise similarities.
func BenchmarkAgreement(b *testing.B) {
	fp32 := openTest(b, MiniLM)
	texts := readSentences(b)
	ctx := context.Background()
	ref, err := fp32.Encode(ctx, texts)
	if err != nil {
		b.Fatal(err)
	}
	refPairs := pairwise(ref)
	for _, name := range []string{MiniLMInt8, MiniLMStatic} {
		enc := openTest(b, name)
		b.Run(name, func(b *testing.B) {
			var got [][]float32
			for b.Loop() {
				if got, err = enc.Encode(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
			if enc.Dim() == fp32.Dim() {
				var s float64
				for i := range got {
					s += Cosine(got[i], ref[i])
				}
				b.ReportMetric(s/float64(len(got)), "mean-cos-to-fp32")
			}
			b.ReportMetric(pearson(refPairs, pairwise(got)), "pairwise-sim-r")
		})
	}
}

// BenchmarkRunOnly times the model alone on the tensors Encode builds for
// the BenchmarkEncode texts (Batches + RunBatch): Encode minus tokenization
// and batch building.
func BenchmarkRunOnly(b *testing.B) {
	for _, name := range Names() {
		enc := openTest(b, name)
		for _, tokens := range []int{32, 128, 256} {
			texts := benchTexts(b, enc.tok, 32, tokens)
			batches := enc.Batches(texts)
			b.Run(fmt.Sprintf("%s/%d", name, tokens), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					for _, bt := range batches {
						if _, err := enc.RunBatch(ctx, bt); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.ReportMetric(float64(b.N*len(texts))/b.Elapsed().Seconds(), "texts/s")
			})
		}
	}
}
