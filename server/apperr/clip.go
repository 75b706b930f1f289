package apperr

import "unicode/utf8"

// Clip shortens s to at most n bytes, cut at a rune boundary, with an
// ellipsis where it was cut: user text quoted in an error or a note must
// not grow with the input.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
