package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	cmds := map[string]Command{
		"ok":   {Summary: "succeeds", Run: func(context.Context, []string, io.Writer, io.Writer) error { return nil }},
		"bad":  {Summary: "bad usage", Run: func(context.Context, []string, io.Writer, io.Writer) error { return fmt.Errorf("%w: --x", ErrUsage) }},
		"fail": {Summary: "fails", Run: func(context.Context, []string, io.Writer, io.Writer) error { return errors.New("boom") }},
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage: prog <command>"},
		{[]string{"help"}, 0, "  bad        bad usage"},
		{[]string{"nope"}, 2, `prog: unknown command "nope"`},
		{[]string{"ok"}, 0, ""},
		{[]string{"bad"}, 2, "prog bad: usage: --x"},
		{[]string{"fail"}, 1, "prog fail: boom"},
	}
	for _, tc := range tests {
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), "prog", cmds, tc.args, &out, &errOut); code != tc.code {
			t.Errorf("Run(%v) = %d, want %d", tc.args, code, tc.code)
		}
		if !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("Run(%v) stderr %q, want %q in it", tc.args, errOut.String(), tc.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	fs := NewFlagSet("x", io.Discard, "")
	fs.Int("n", 1, "")
	if err := ParseFlags(fs, []string{"-n", "z"}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad value: %v, want ErrUsage", err)
	}
	if err := ParseFlags(fs, []string{"-h"}); !errors.Is(err, ErrUsage) {
		t.Errorf("-h: %v, want ErrUsage", err)
	}
}

func TestVersionCommand(t *testing.T) {
	cmds := map[string]Command{"version": VersionCommand("prog", "v1.2")}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), "prog", cmds, []string{"version"}, &out, &errOut); code != 0 || out.String() != "prog v1.2\n" {
		t.Errorf("version: code %d, stdout %q, stderr %q; want 0 and %q", code, out.String(), errOut.String(), "prog v1.2\n")
	}
}
