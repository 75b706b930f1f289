package tokenizer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

const goldenDir = "../testdata/tokenizer"

var updateUnicode = flag.Bool("update-unicode", false, "regenerate unicode_compat.go from hf_unicode.json.gz")

// minilmTokenizer loads the MiniLM tokenizer.json fetched by
// scripts/fetch-models.sh, or skips the test.
func minilmTokenizer(tb testing.TB) *Tokenizer {
	tb.Helper()
	cache := os.Getenv("BOOLPOOL_CACHE")
	if cache == "" {
		cache = filepath.Join("..", "..", ".cache")
	}
	path := filepath.Join(cache, "models", "minilm-fp16", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("MiniLM tokenizer.json not found (%v): run scripts/fetch-models.sh", err)
	}
	tok, err := Load(path)
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func readCorpus(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open(filepath.Join(goldenDir, "corpus.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s string
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			tb.Fatal(err)
		}
		texts = append(texts, s)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return texts
}

// TestMatchesHuggingFace compares ids with the Hugging Face tokenizers
// library's output (golden file written by gen_reference.js).
func TestMatchesHuggingFace(t *testing.T) {
	tok := minilmTokenizer(t)
	texts := readCorpus(t)
	data, err := os.ReadFile(filepath.Join(goldenDir, "hf_ids.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) != len(texts) {
		t.Fatalf("golden has %d lines, corpus %d", len(lines), len(texts))
	}
	for i, text := range texts {
		var want struct{ IDs, Full []int32 }
		if err := json.Unmarshal(lines[i], &want); err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(text, 0); !slices.Equal(got, want.IDs) {
			t.Errorf("text %d %q (truncated):\n got %v\nwant %v", i, text, got, want.IDs)
		}
		if got := tok.Encode(text, -1); !slices.Equal(got, want.Full) {
			t.Errorf("text %d %q (full):\n got %v\nwant %v", i, text, got, want.Full)
		}
	}
}

// TestUnicodeTables checks every code point's normalisation and
// punctuation class against the library's.
func TestUnicodeTables(t *testing.T) {
	tok := minilmTokenizer(t)
	f, err := os.Open(filepath.Join(goldenDir, "hf_unicode.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Ranges map[string][][2]rune
		Mapped map[rune]string
	}
	if err := json.NewDecoder(zr).Decode(&ref); err != nil {
		t.Fatal(err)
	}
	class := map[rune]string{}
	for c, rs := range ref.Ranges {
		for _, r := range rs {
			for cp := r[0]; cp <= r[1]; cp++ {
				class[cp] = c
			}
		}
	}
	if *updateUnicode {
		writeCompat(t, tok, class, ref.Mapped)
		return
	}
	bad := 0
	for cp := rune(0); cp <= utf8.MaxRune; cp++ {
		if cp >= 0xD800 && cp <= 0xDFFF {
			continue
		}
		if cp == 0x11938 {
			// Go's NFD decomposes DIVES AKURU VOWEL SIGN O, the library's does not.
			continue
		}
		ch := string(cp)
		n := string(tok.normalize(nil, ch))
		got := ""
		switch {
		case n == "":
			got = "d"
		case n == " ":
			got = "s"
		case n == " "+ch+" ":
			got = "c"
		default:
			if want, ok := ref.Mapped[cp]; ok && n != want || !ok && n != ch {
				if bad++; bad < 60 {
					t.Errorf("U+%04X %q: normalised to %q, want %q", cp, ch, n, ref.Mapped[cp])
				}
				continue
			}
			if words := splitWords("a" + n + "a"); len(words) == 3 && words[1] == n {
				got = "p"
			}
		}
		if got != class[cp] {
			if bad++; bad < 60 {
				t.Errorf("U+%04X %q: class %q, want %q", cp, ch, got, class[cp])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d code points differ", bad)
	}
}

// splitWords is preTokenize returning the words instead of their ids.
func splitWords(s string) []string {
	var words []string
	start := -1
	for i, r := range s {
		switch {
		case isWhitespace(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			words = append(words, string(r))
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

func TestEncodeTable(t *testing.T) {
	tok := minilmTokenizer(t)
	tests := []struct {
		name   string
		text   string
		maxLen int
		want   []string
	}{
		{"empty", "", 0, []string{"[CLS]", "[SEP]"}},
		{"lower and punct", "Hello, World!", 0, []string{"[CLS]", "hello", ",", "world", "!", "[SEP]"}},
		{"accents", "Café", 0, []string{"[CLS]", "cafe", "[SEP]"}},
		{"pieces", "unaffable", 0, []string{"[CLS]", "una", "##ffa", "##ble", "[SEP]"}},
		{"special in text", "a [MASK] b", 0, []string{"[CLS]", "a", "[MASK]", "b", "[SEP]"}},
		{"truncate", "one two three four", 4, []string{"[CLS]", "one", "two", "[SEP]"}},
		{"cjk", "中文", 0, []string{"[CLS]", "中", "文", "[SEP]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := tok.Encode(tc.text, tc.maxLen)
			got := make([]string, len(ids))
			for i, id := range ids {
				got[i] = tok.Token(id)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// writeCompat regenerates unicode_compat.go: the code points where the
// library's (older) Unicode tables disagree with Go's.
func writeCompat(t *testing.T, tok *Tokenizer, class map[rune]string, mapped map[rune]string) {
	var drop, keep, punct, notPunct []rune
	lower := map[rune]rune{}
	for cp := rune(0x80); cp <= utf8.MaxRune; cp++ {
		if cp >= 0xD800 && cp <= 0xDFFF {
			continue
		}
		goDrop := unicode.In(cp, unicode.Cc, unicode.Cf, unicode.Co, unicode.Mn)
		hfDrop := class[cp] == "d"
		switch {
		case hfDrop && !goDrop && !unicode.IsSpace(cp):
			drop = append(drop, cp)
		case !hfDrop && goDrop && class[cp] != "s":
			keep = append(keep, cp)
		}
		if hfDrop || class[cp] == "s" || class[cp] == "c" {
			continue
		}
		// Case mappings newer than Go's tables (Rust's are more recent).
		if want, ok := mapped[cp]; ok && utf8.RuneCountInString(want) == 1 && !unicode.IsLetter(cp) {
			if w, _ := utf8.DecodeRuneInString(want); unicode.ToLower(cp) != w && norm.NFD.String(string(cp)) == string(cp) {
				lower[cp] = w
			}
		}
		goPunct, hfPunct := unicode.IsPunct(cp), class[cp] == "p"
		switch {
		case hfPunct && !goPunct:
			punct = append(punct, cp)
		case !hfPunct && goPunct:
			notPunct = append(notPunct, cp)
		}
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by TestUnicodeTables -update-unicode; DO NOT EDIT.\n\n")
	b.WriteString("package tokenizer\n\nimport \"unicode\"\n\n")
	b.WriteString("// The Hugging Face tokenizers library classifies characters with older\n")
	b.WriteString("// Unicode tables than Go's; these tables record where they disagree.\n")
	b.WriteString("var (\n")
	for _, tab := range []struct {
		name string
		cps  []rune
	}{{"compatDrop", drop}, {"compatKeep", keep}, {"compatPunct", punct}, {"compatNotPunct", notPunct}} {
		fmt.Fprintf(&b, "\t%s = &unicode.RangeTable{", tab.name)
		var r16, r32 []string
		for i := 0; i < len(tab.cps); {
			j := i
			for j+1 < len(tab.cps) && tab.cps[j+1] == tab.cps[j]+1 {
				j++
			}
			e := fmt.Sprintf("{0x%04X, 0x%04X, 1}", tab.cps[i], tab.cps[j])
			if tab.cps[j] <= 0xFFFF {
				r16 = append(r16, e)
			} else {
				r32 = append(r32, e)
			}
			i = j + 1
		}
		if len(r16) > 0 {
			fmt.Fprintf(&b, "R16: []unicode.Range16{%s},", strings.Join(r16, ", "))
		}
		if len(r32) > 0 {
			fmt.Fprintf(&b, "R32: []unicode.Range32{%s},", strings.Join(r32, ", "))
		}
		b.WriteString("}\n")
	}
	b.WriteString(")\n\n// compatLower holds lowercase mappings of characters Go's tables do not know yet.\nvar compatLower = map[rune]rune{\n")
	keys := make([]rune, 0, len(lower))
	for k := range lower {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "0x%04X: 0x%04X,\n", k, lower[k])
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("unicode_compat.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote unicode_compat.go: %d drop, %d keep, %d punct, %d not punct", len(drop), len(keep), len(punct), len(notPunct))
}
