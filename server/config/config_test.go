package config

import (
	"flag"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"ok", []string{"-database-url", "postgres://x@127.0.0.1/db"}, ""},
		{"missing db", []string{"-database-url", ""}, "database-url: required"},
		{"bad scheme", []string{"-database-url", "mysql://x"}, "must start with postgres://"},
		{"bad addr", []string{"-database-url", "postgres://x", "-addr", "nope"}, "addr:"},
		{"short ttl", []string{"-database-url", "postgres://x", "-session-ttl", "1s"}, "session-ttl"},
		{"tiny body", []string{"-database-url", "postgres://x", "-max-body", "10"}, "max-body"},
		{"upload below body", []string{"-database-url", "postgres://x", "-max-body", "4096", "-max-upload", "2048"}, "max-upload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			c.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := c.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}
