// Package tokenizer implements the BERT WordPiece tokenizer described by a
// Hugging Face tokenizer.json (BertNormalizer, BertPreTokenizer, WordPiece
// model, [CLS]/[SEP] template post-processor), producing the same ids as the
// Hugging Face tokenizers library for the same file.
//
// The pipeline, in the library's order:
//
//  1. added tokens whose "normalized" flag is false ([CLS], [MASK] …) are
//     matched on the raw text (leftmost, longest first) and emitted as is;
//  2. the rest is normalised: control characters dropped, white space mapped
//     to ' ', CJK ideographs surrounded by spaces, NFD + removal of non-spacing
//     marks (accents), lowercasing;
//  3. pre-tokenised: split on white space, every punctuation character
//     (Unicode P* or ASCII symbol) isolated as its own word;
//  4. WordPiece: greedy longest-match-first with the "##" continuation prefix;
//     a word with no complete segmentation, or longer than
//     max_input_chars_per_word characters, becomes [UNK];
//  5. post-processing: [CLS] ids [SEP], truncated to the maximum length by
//     dropping content tokens from the end.
package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenizer is an immutable BERT WordPiece tokenizer; it is safe for
// concurrent use.
type Tokenizer struct {
	vocab map[string]int32 // whole-word pieces
	cont  map[string]int32 // continuation pieces, keyed without the prefix
	// vocab7 and cont7 hold the pieces of at most 7 bytes again, keyed by
	// pack: most lookups are short words, and an integer key needs no
	// string comparison.
	vocab7   map[uint64]int32
	cont7    map[uint64]int32
	tokens   []string // id → token
	unk      int32
	cls      int32
	sep      int32
	pad      int32
	maxChars int
	maxLen   int // truncation length from tokenizer.json (0: none)

	lowercase    bool
	stripAccents bool
	cleanText    bool
	chineseChars bool
	// ascii is the normaliser as a table over ASCII bytes: the output byte,
	// or asciiDrop.
	ascii [utf8.RuneSelf]byte

	rawAdded  []addedToken // matched on the raw text
	normAdded []addedToken // matched on normalised text
}

type addedToken struct {
	content string
	id      int32
}

// tokenizerJSON is the subset of tokenizer.json this package reads.
type tokenizerJSON struct {
	Truncation *struct {
		MaxLength int    `json:"max_length"`
		Strategy  string `json:"strategy"`
	} `json:"truncation"`
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		SingleWord bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor *struct {
		Type string `json:"type"`
	} `json:"post_processor"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %s: %w", path, err)
	}
	return t, nil
}

// Parse builds a tokenizer from the contents of a tokenizer.json. Only the
// BERT family of components is supported; anything else is an error rather
// than a silently different tokenisation.
func Parse(data []byte) (*Tokenizer, error) {
	var j tokenizerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("parse tokenizer.json: %w", err)
	}
	if j.Model.Type != "WordPiece" {
		return nil, fmt.Errorf("model type %q: only WordPiece is supported", j.Model.Type)
	}
	if j.Normalizer != nil && j.Normalizer.Type != "BertNormalizer" {
		return nil, fmt.Errorf("normalizer %q: only BertNormalizer is supported", j.Normalizer.Type)
	}
	if j.PreTokenizer != nil && j.PreTokenizer.Type != "BertPreTokenizer" {
		return nil, fmt.Errorf("pre_tokenizer %q: only BertPreTokenizer is supported", j.PreTokenizer.Type)
	}
	if j.PostProcessor != nil && j.PostProcessor.Type != "TemplateProcessing" && j.PostProcessor.Type != "BertProcessing" {
		return nil, fmt.Errorf("post_processor %q: only [CLS] A [SEP] templates are supported", j.PostProcessor.Type)
	}
	prefix := j.Model.ContinuingSubwordPrefix
	if prefix == "" {
		prefix = "##"
	}
	t := &Tokenizer{
		vocab:    make(map[string]int32, len(j.Model.Vocab)),
		cont:     make(map[string]int32, len(j.Model.Vocab)/4),
		vocab7:   make(map[uint64]int32, len(j.Model.Vocab)/2),
		cont7:    make(map[uint64]int32, len(j.Model.Vocab)/4),
		maxChars: j.Model.MaxInputCharsPerWord,
	}
	if t.maxChars <= 0 {
		t.maxChars = 100
	}
	maxID := int32(-1)
	for tok, id := range j.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("negative id %d for %q", id, tok)
		}
		maxID = max(maxID, id)
	}
	for _, a := range j.AddedTokens {
		maxID = max(maxID, a.ID)
	}
	t.tokens = make([]string, maxID+1)
	for tok, id := range j.Model.Vocab {
		t.tokens[id] = tok
		if rest, ok := strings.CutPrefix(tok, prefix); ok {
			t.cont[rest] = id
			if len(rest) <= 7 {
				t.cont7[pack([]byte(rest))] = id
			}
		} else {
			t.vocab[tok] = id
			if len(tok) <= 7 {
				t.vocab7[pack([]byte(tok))] = id
			}
		}
	}
	for _, a := range j.AddedTokens {
		if a.Lstrip || a.Rstrip || a.SingleWord {
			return nil, fmt.Errorf("added token %q: lstrip/rstrip/single_word are not supported", a.Content)
		}
		t.tokens[a.ID] = a.Content
		at := addedToken{content: a.Content, id: a.ID}
		if a.Normalized {
			t.normAdded = append(t.normAdded, at)
		} else {
			t.rawAdded = append(t.rawAdded, at)
		}
	}
	// Longest first, so that at one position the longest token wins.
	for _, l := range [][]addedToken{t.rawAdded, t.normAdded} {
		sort.SliceStable(l, func(a, b int) bool { return len(l[a].content) > len(l[b].content) })
	}
	var ok bool
	unk := j.Model.UnkToken
	if unk == "" {
		unk = "[UNK]"
	}
	if t.unk, ok = t.lookupSpecial(unk); !ok {
		return nil, fmt.Errorf("unknown token %q not in vocabulary", unk)
	}
	if t.cls, ok = t.lookupSpecial("[CLS]"); !ok {
		return nil, fmt.Errorf("[CLS] not in vocabulary")
	}
	if t.sep, ok = t.lookupSpecial("[SEP]"); !ok {
		return nil, fmt.Errorf("[SEP] not in vocabulary")
	}
	if t.pad, ok = t.lookupSpecial("[PAD]"); !ok {
		t.pad = 0
	}
	if n := j.Normalizer; n != nil {
		t.cleanText = n.CleanText
		t.chineseChars = n.HandleChineseChars
		t.lowercase = n.Lowercase
		t.stripAccents = n.Lowercase
		if n.StripAccents != nil {
			t.stripAccents = *n.StripAccents
		}
	}
	if j.Truncation != nil {
		t.maxLen = j.Truncation.MaxLength
	}
	for c := range t.ascii {
		t.ascii[c] = t.normalizeASCII(byte(c))
	}
	return t, nil
}

// pack turns a piece of at most 7 bytes into a vocab7/cont7 key (its
// length in the top byte, so trailing zero bytes stay distinct).
func pack(b []byte) uint64 {
	v := uint64(len(b)) << 56
	for i, c := range b {
		v |= uint64(c) << (8 * i)
	}
	return v
}

// piece looks up a whole-word piece (cont false) or a continuation piece.
func (t *Tokenizer) piece(b []byte, cont bool) (int32, bool) {
	var id int32
	var ok bool
	switch {
	case len(b) <= 7 && cont:
		id, ok = t.cont7[pack(b)]
	case len(b) <= 7:
		id, ok = t.vocab7[pack(b)]
	case cont:
		id, ok = t.cont[string(b)]
	default:
		id, ok = t.vocab[string(b)]
	}
	return id, ok
}

// ASCII byte classes for preTokenize.
const (
	asciiWord = iota
	asciiSpace
	asciiPunct
)

// asciiClass classifies the ASCII bytes as preTokenize's general case does.
var asciiClass = func() (cl [utf8.RuneSelf]uint8) {
	for c := range cl {
		switch r := rune(c); {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			cl[c] = asciiSpace
		case isPunct(r):
			cl[c] = asciiPunct
		}
	}
	return cl
}()

// asciiDrop marks an ASCII byte the normaliser removes.
const asciiDrop = 0xff

// normalizeASCII is the BertNormalizer on one ASCII byte (asciiDrop: removed).
func (t *Tokenizer) normalizeASCII(c byte) byte {
	switch {
	case c == '\t' || c == '\n' || c == '\r':
		if t.cleanText {
			return ' '
		}
	case c < 0x20 || c == 0x7f:
		if t.cleanText {
			return asciiDrop
		}
	case 'A' <= c && c <= 'Z':
		if t.lowercase {
			return c + 'a' - 'A'
		}
	}
	return c
}

func (t *Tokenizer) lookupSpecial(tok string) (int32, bool) {
	for _, a := range t.rawAdded {
		if a.content == tok {
			return a.id, true
		}
	}
	for _, a := range t.normAdded {
		if a.content == tok {
			return a.id, true
		}
	}
	id, ok := t.vocab[tok]
	return id, ok
}

// VocabSize is the number of ids (the largest id + 1).
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// Token returns the string of an id ("" when out of range).
func (t *Tokenizer) Token(id int32) string {
	if id < 0 || int(id) >= len(t.tokens) {
		return ""
	}
	return t.tokens[id]
}

// MaxLength is the truncation length configured in tokenizer.json (0: none).
func (t *Tokenizer) MaxLength() int { return t.maxLen }

// Special token ids.
func (t *Tokenizer) CLS() int32 { return t.cls }
func (t *Tokenizer) SEP() int32 { return t.sep }
func (t *Tokenizer) PAD() int32 { return t.pad }
func (t *Tokenizer) UNK() int32 { return t.unk }

// IsSpecial reports whether id is one of the added (special) tokens.
func (t *Tokenizer) IsSpecial(id int32) bool {
	for _, a := range t.rawAdded {
		if a.id == id {
			return true
		}
	}
	for _, a := range t.normAdded {
		if a.id == id {
			return true
		}
	}
	return false
}

// Tokenize returns the WordPiece ids of text without special tokens and
// without truncation.
func (t *Tokenizer) Tokenize(text string) []int32 {
	return t.AppendTokens(nil, text)
}

// Encode returns [CLS] ids [SEP] truncated to maxLen tokens in all
// (maxLen == 0: the tokenizer.json setting; maxLen < 0: no truncation).
func (t *Tokenizer) Encode(text string, maxLen int) []int32 {
	ids := make([]int32, 1, 16)
	ids[0] = t.cls
	ids = t.AppendTokens(ids, text)
	if maxLen == 0 {
		maxLen = t.maxLen
	}
	if maxLen > 0 && len(ids)+1 > maxLen {
		ids = ids[:max(maxLen-1, 1)]
	}
	return append(ids, t.sep)
}

// AppendTokens appends the WordPiece ids of text (no special tokens, no
// truncation) to dst.
func (t *Tokenizer) AppendTokens(dst []int32, text string) []int32 {
	var buf []byte
	for len(text) > 0 {
		pos, tok := findAdded(text, t.rawAdded)
		seg := text
		if pos >= 0 {
			seg = text[:pos]
		}
		if seg != "" {
			buf = t.normalize(buf[:0], seg)
			dst = t.tokenizeNormalized(dst, buf)
		}
		if pos < 0 {
			break
		}
		dst = append(dst, tok.id)
		text = text[pos+len(tok.content):]
	}
	return dst
}

// findAdded returns the leftmost position of any token in list (longest
// first at equal positions), or -1.
func findAdded(s string, list []addedToken) (int, addedToken) {
	best, bestTok := -1, addedToken{}
	for _, a := range list {
		limit := s
		if best >= 0 {
			// Only an earlier match, or a longer one at best, can win.
			limit = s[:min(len(s), best+len(a.content))]
		}
		if i := strings.Index(limit, a.content); i >= 0 && (best < 0 || i < best) {
			best, bestTok = i, a
		}
	}
	return best, bestTok
}

func (t *Tokenizer) tokenizeNormalized(dst []int32, s []byte) []int32 {
	if len(t.normAdded) == 0 {
		return t.preTokenize(dst, s)
	}
	for len(s) > 0 {
		pos, tok := findAdded(string(s), t.normAdded)
		seg := s
		if pos >= 0 {
			seg = s[:pos]
		}
		dst = t.preTokenize(dst, seg)
		if pos < 0 {
			break
		}
		dst = append(dst, tok.id)
		s = s[pos+len(tok.content):]
	}
	return dst
}

// normalize appends the BertNormalizer output of s to dst.
func (t *Tokenizer) normalize(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		n := len(dst)
		dst = slices.Grow(dst, len(s))[:n+len(s)]
		for i := 0; i < len(s); i++ {
			if c := t.ascii[s[i]]; c != asciiDrop {
				dst[n] = c
				n++
			}
		}
		return dst[:n]
	}
	// General path: clean text and CJK spacing rune by rune, then NFD over the
	// whole string (canonical reordering needs it), then drop marks and lowercase.
	start := len(dst)
	for _, r := range s {
		if t.cleanText {
			if r == 0 || r == utf8.RuneError || isControl(r) {
				continue
			}
			if isWhitespace(r) {
				r = ' '
			}
		}
		if t.chineseChars && isChinese(r) {
			dst = append(dst, ' ')
			dst = utf8.AppendRune(dst, r)
			dst = append(dst, ' ')
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	if !t.stripAccents && !t.lowercase {
		return dst
	}
	tmp := dst[start:]
	if t.stripAccents {
		tmp = norm.NFD.Bytes(tmp)
	} else {
		tmp = append([]byte(nil), tmp...)
	}
	dst = dst[:start]
	for _, r := range string(tmp) {
		if t.stripAccents && isMark(r) {
			continue
		}
		if t.lowercase {
			dst = appendLower(dst, r)
			continue
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// appendLower appends the full (not simple) lowercase mapping of r, as
// Rust's char::to_lowercase does.
func appendLower(dst []byte, r rune) []byte {
	if r == 'İ' { // the one unconditional multi-rune lowercase mapping
		return append(dst, "i\u0307"...)
	}
	if r >= utf8.RuneSelf && !unicode.IsLetter(r) {
		if l, ok := compatLower[r]; ok {
			return utf8.AppendRune(dst, l)
		}
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// isWhitespace follows the tokenizers library: \t \n \r and Unicode White_Space.
func isWhitespace(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || unicode.Is(unicode.White_Space, r)
}

// isControl is the library's "other" category (Cc, Cf, Co, Cs) minus \t \n \r.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	if unicode.Is(compatKeep, r) {
		return false
	}
	return unicode.Is(compatDrop, r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isMark reports a non-spacing mark (Mn), removed when stripping accents.
func isMark(r rune) bool {
	if r < 0x300 {
		return false
	}
	if unicode.Is(compatKeep, r) {
		return false
	}
	return unicode.Is(compatDrop, r) || unicode.Is(unicode.Mn, r)
}

// isChinese uses the code point ranges of the tokenizers library (which
// differ from the original BERT in the Extension D–E boundary).
func isChinese(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

// isPunct is BERT's punctuation: ASCII punctuation/symbols or Unicode P*.
func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= 33 && r <= 47) || (r >= 58 && r <= 64) || (r >= 91 && r <= 96) || (r >= 123 && r <= 126)
	}
	if unicode.Is(compatPunct, r) {
		return true
	}
	return !unicode.Is(compatNotPunct, r) && unicode.IsPunct(r)
}

// preTokenize splits normalised text on white space and punctuation and runs
// WordPiece on every word.
func (t *Tokenizer) preTokenize(dst []int32, s []byte) []int32 {
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch asciiClass[c] {
			case asciiSpace:
				if start >= 0 {
					dst = t.wordPiece(dst, s[start:i])
					start = -1
				}
			case asciiPunct:
				if start >= 0 {
					dst = t.wordPiece(dst, s[start:i])
					start = -1
				}
				dst = t.wordPiece(dst, s[i:i+1])
			default:
				if start < 0 {
					start = i
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case isWhitespace(r):
			if start >= 0 {
				dst = t.wordPiece(dst, s[start:i])
				start = -1
			}
		case isPunct(r):
			if start >= 0 {
				dst = t.wordPiece(dst, s[start:i])
				start = -1
			}
			dst = t.wordPiece(dst, s[i:i+size])
		default:
			if start < 0 {
				start = i
			}
		}
		i += size
	}
	if start >= 0 {
		dst = t.wordPiece(dst, s[start:])
	}
	return dst
}

// wordPiece appends the greedy longest-match-first segmentation of word.
func (t *Tokenizer) wordPiece(dst []int32, word []byte) []int32 {
	if id, ok := t.piece(word, false); ok {
		return append(dst, id)
	}
	if utf8.RuneCount(word) > t.maxChars {
		return append(dst, t.unk)
	}
	mark := len(dst)
	for start := 0; start < len(word); {
		end := len(word)
		found := false
		var id int32
		for end > start {
			id, found = t.piece(word[start:end], start > 0)
			if found {
				break
			}
			// Step back one whole rune.
			end--
			for end > start && !utf8.RuneStart(word[end]) {
				end--
			}
		}
		if !found {
			return append(dst[:mark], t.unk)
		}
		dst = append(dst, id)
		start = end
	}
	return dst
}

// EncodeBatch encodes texts like Encode, spread over workers goroutines
// (workers <= 0: runtime.GOMAXPROCS).
func (t *Tokenizer) EncodeBatch(texts []string, maxLen, workers int) [][]int32 {
	out := make([][]int32, len(texts))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(texts))
	if workers <= 1 {
		for i, s := range texts {
			out[i] = t.Encode(s, maxLen)
		}
		return out
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	const chunk = 64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= len(texts) {
					return
				}
				for i := start; i < min(start+chunk, len(texts)); i++ {
					out[i] = t.Encode(texts[i], maxLen)
				}
			}
		}()
	}
	wg.Wait()
	return out
}
