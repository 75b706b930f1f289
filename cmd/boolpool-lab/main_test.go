package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunUsage: the lab binary lists its commands, refuses an unknown one
// with exit code 2, and bench refuses bad flags naming them before it
// touches a database.
func TestRunUsage(t *testing.T) {
	ctx := context.Background()
	missing := filepath.Join(t.TempDir(), "no-such-boolpool")
	tests := []struct {
		name string
		args []string
		code int
		want string // in stderr
	}{
		{"no command", nil, 2, "bench "},
		{"help", []string{"help"}, 0, "usage: boolpool-lab <command>"},
		{"unknown command", []string{"serve"}, 2, `unknown command "serve"`},
		{"bad scale size", []string{"bench", "--database-url", "postgres://x", "--scale-sizes", "10"}, 2, "--scale-sizes"},
		{"no database", []string{"bench", "--database-url", ""}, 2, "no database"},
		{"missing server binary", []string{"bench", "--database-url", "postgres://x", "--server-bin", missing}, 2, "--server-bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(ctx, tt.args, &stdout, &stderr); code != tt.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.want)
			}
		})
	}
}

// TestDefaultServerBin: the default --server-bin is the boolpool binary
// beside this one, and empty when there is none (the test binary's
// directory holds no boolpool).
func TestDefaultServerBin(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(filepath.Dir(self), "boolpool")
	if _, err := os.Stat(beside); err == nil {
		t.Skipf("%s exists", beside)
	}
	if got := defaultServerBin(); got != "" {
		t.Errorf("defaultServerBin() = %q with no boolpool beside %s", got, self)
	}
	if err := os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Skipf("cannot write beside the test binary: %v", err)
	}
	defer os.Remove(beside)
	if got := defaultServerBin(); got != beside {
		t.Errorf("defaultServerBin() = %q, want %q", got, beside)
	}
}
