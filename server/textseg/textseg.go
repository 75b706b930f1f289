// Package textseg splits document text into sentences, giving the byte
// offsets that attributions point at. It is rule based and deterministic:
// a sentence ends at a line break that ends a paragraph or list item, or at
// '.', '!' or '?' (plus closing quotes/brackets) followed by whitespace and
// an upper-case letter, digit or opening punctuation — except after common
// abbreviations and single initials.
package textseg

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "mr": true, "mrs": true, "ms": true, "dr": true,
	"prof": true, "st": true, "jr": true, "sr": true, "no": true, "fig": true, "cf": true, "approx": true,
	"inc": true, "ltd": true, "co": true, "corp": true, "u.s": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
}

// Starts returns the byte offset of each sentence of text. Leading
// whitespace is skipped, so every sentence starts at a non-space rune.
// Empty or all-space text has no sentences.
func Starts(text string) []int32 {
	var starts []int32
	atStart := true
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if atStart {
			if unicode.IsSpace(r) {
				i += size
				continue
			}
			starts = append(starts, int32(i))
			atStart = false
		}
		switch {
		case r == '\n':
			// A blank line or a list item on the next line ends the sentence;
			// a single wrapped line (Debian descriptions wrap at ~72
			// columns) does not.
			rest := text[i+1:]
			trimmed := strings.TrimLeft(rest, " \t")
			if strings.HasPrefix(trimmed, "\n") || startsListItem(trimmed) || endsSentence(text[:i]) {
				atStart = true
			}
		case r == '.' || r == '!' || r == '?':
			j := i + size
			for j < len(text) && strings.ContainsRune("\"')]»”’", rune(text[j])) {
				j++
			}
			if j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				next := strings.TrimLeft(text[j:], " \t")
				if next != "" && opensSentence(next) && !(r == '.' && isAbbreviation(text[:i])) {
					i = j
					atStart = true
					continue
				}
			}
		}
		i += size
	}
	return starts
}

// Split returns the sentences of text (trimmed of trailing space).
func Split(text string) []string {
	starts := Starts(text)
	out := make([]string, len(starts))
	for k, s := range starts {
		end := len(text)
		if k+1 < len(starts) {
			end = int(starts[k+1])
		}
		out[k] = strings.TrimRightFunc(text[s:end], unicode.IsSpace)
	}
	return out
}

func opensSentence(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'([“‘*-•", r)
}

func startsListItem(s string) bool {
	return strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "• ") || strings.HasPrefix(s, "+ ")
}

func endsSentence(before string) bool {
	b := strings.TrimRight(before, " \t")
	return strings.HasSuffix(b, ".") || strings.HasSuffix(b, ":") || strings.HasSuffix(b, "!") || strings.HasSuffix(b, "?")
}

// isAbbreviation reports whether the word ending just before a '.' is a
// known abbreviation or a single letter (an initial).
func isAbbreviation(before string) bool {
	k := strings.LastIndexFunc(before, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	word := strings.ToLower(before[k+1:])
	if utf8.RuneCountInString(word) == 1 {
		return true
	}
	return abbreviations[word]
}

// CountWords is len(strings.Fields(s)): the runs of non-space characters,
// counted without building them, so a long text of many short tokens
// costs no allocation (issue 29: a qrels or run line; a query's length).
func CountWords(s string) int {
	n, in := 0, false
	for _, r := range s {
		sp := unicode.IsSpace(r)
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}
