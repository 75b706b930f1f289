package scalebench

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// Source is what synthetic documents are resampled from: the sentences
// (lines) of a real corpus and its documents' lengths in sentences.
type Source struct {
	Sentences []string
	Lengths   []int // sentences per document, one entry per real document
}

// ReadSource reads a QUEST-format documents file (JSON lines with title
// and text, gzip-compressed) into its sentences and document lengths.
func ReadSource(path string) (Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return Source{}, fmt.Errorf("scalebench: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return Source{}, fmt.Errorf("scalebench: %s: %w", path, err)
	}
	var src Source
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		var d struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return Source{}, fmt.Errorf("scalebench: %s:%d: %w", path, line, err)
		}
		n := 0
		for _, s := range strings.Split(d.Text, "\n") {
			if s = strings.TrimSpace(s); s != "" {
				src.Sentences = append(src.Sentences, s)
				n++
			}
		}
		src.Lengths = append(src.Lengths, max(n, 1))
	}
	if err := sc.Err(); err != nil {
		return Source{}, fmt.Errorf("scalebench: %s: %w", path, err)
	}
	if len(src.Sentences) == 0 {
		return Source{}, fmt.Errorf("scalebench: %s: no sentences", path)
	}
	return src, nil
}

// Corpus parameters: a share of the resampled sentences' words is replaced
// by words drawn from a Zipfian vocabulary whose size grows with the corpus
// (Heaps' law, V = heapsK·n^heapsBeta words), so that a larger corpus has
// a larger vocabulary with a long tail, as real ones do, rather than the
// 60k-document corpus's words repeated.
const (
	replaceShare = 0.25
	zipfS        = 1.07
	heapsK       = 40.0
	heapsBeta    = 0.6
)

// VocabularySize is the synthetic vocabulary's size for n documents.
func VocabularySize(n int) int { return int(heapsK * math.Pow(float64(n), heapsBeta)) }

// Generate writes n synthetic documents in QUEST format (JSON lines with
// title and text; ext ids are the titles "syn-0000001"…) to w. The same
// source, n and seed give the same bytes: each document's length in
// sentences is a real document's, each sentence a real sentence with about
// a quarter of its words replaced by Zipf-distributed synthetic words.
func Generate(w io.Writer, src Source, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	zipf := rand.NewZipf(rng, zipfS, 1, uint64(VocabularySize(n)-1))
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	var sb strings.Builder
	for i := range n {
		sb.Reset()
		sentences := src.Lengths[rng.IntN(len(src.Lengths))]
		for k := range sentences {
			if k > 0 {
				sb.WriteByte('\n')
			}
			words := strings.Fields(src.Sentences[rng.IntN(len(src.Sentences))])
			for j, word := range words {
				if j > 0 {
					sb.WriteByte(' ')
				}
				if rng.Float64() < replaceShare {
					word = synthWord(zipf.Uint64())
				}
				sb.WriteString(word)
			}
		}
		doc := struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		}{fmt.Sprintf("syn-%07d", i+1), sb.String()}
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("scalebench: write document %d: %w", i+1, err)
		}
	}
	return bw.Flush()
}

// synthWord spells vocabulary rank r as pronounceable syllables: rank 0 is
// "ba", and every rank has its own word.
func synthWord(r uint64) string {
	const cons, vow = "bdfgklmnprstvz", "aeiou"
	var b []byte
	for {
		b = append(b, cons[r%uint64(len(cons))], vow[(r/uint64(len(cons)))%uint64(len(vow))])
		r /= uint64(len(cons) * len(vow))
		if r == 0 {
			break
		}
		r--
	}
	return string(b)
}
