package web

import (
	"errors"
	"testing"
)

// TestUserMessage: package prefixes and status words go, but a missing
// thing still says it is missing (the admin page read `project "x".`).
func TestUserMessage(t *testing.T) {
	tests := []struct{ err, want string }{
		{`store: project "x": not found`, `project "x" not found.`},
		{`auth: username "bo" is taken: conflict`, `username "bo" is taken.`},
		{`judging: item 4 not found: not found`, `item 4 not found.`},
		{`conflict`, `The server refused the change.`},
	}
	for _, tc := range tests {
		if got := userMessage(errors.New(tc.err)); got != tc.want {
			t.Errorf("userMessage(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
