package config

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// parsed is a Config with its flags registered on a new flag set (also
// returned) and args parsed.
func parsed(t *testing.T, args ...string) (*Config, *flag.FlagSet) {
	t.Helper()
	c := new(Config)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c, fs
}

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
		{"tiny line", []string{"-database-url", "postgres://x", "-max-line", "10"}, "max-line"},
		{"import below line", []string{"-database-url", "postgres://x", "-max-import-bytes", "4096"}, "max-import-bytes"},
		{"no imports", []string{"-database-url", "postgres://x", "-max-imports-per-user", "0"}, "max-imports-per-user"},
		{"zero body timeout", []string{"-database-url", "postgres://x", "-body-timeout", "0s"}, "body-timeout"},
		{"zero body rate", []string{"-database-url", "postgres://x", "-body-min-rate", "0"}, "body-min-rate"},
		{"tiny write timeout", []string{"-database-url", "postgres://x", "-write-timeout", "1ms"}, "write-timeout"},
		{"negative streams", []string{"-database-url", "postgres://x", "-max-streams-per-user", "-1"}, "max-streams-per-user"},
		{"negative queued jobs", []string{"-database-url", "postgres://x", "-max-queued-jobs", "-1"}, "max-queued-jobs"},
		{"bad allowed host", []string{"-database-url", "postgres://x", "-allowed-hosts", "https://example.org/"}, "allowed-hosts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := parsed(t, tt.args...)
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

// TestLimitDefaults: the limits and timeouts default as documented, from
// the environment where set; a zero Config (tests) gets the defaults too.
func TestLimitDefaults(t *testing.T) {
	t.Setenv("BOOLPOOL_MAX_LINE", "2048")
	t.Setenv("BOOLPOOL_BODY_TIMEOUT", "5s")
	t.Setenv("BOOLPOOL_MAX_IMPORT_BYTES", "1048576")
	c, _ := parsed(t)
	if c.MaxLineBytes != 2048 || c.MaxImportBytes != 1<<20 || c.MaxImportsPerUser != DefaultMaxImportsPerUser || c.BodyTimeout != 5*time.Second || c.BodyMinRate != DefaultBodyMinRate ||
		c.WriteTimeout != DefaultWriteTimeout || c.UploadDir != DefaultUploadDir() {
		t.Fatalf("config %+v", c)
	}
	var zero Config
	if zero.LineLimit() != DefaultMaxLine || zero.ImportBytesLimit() != DefaultMaxImportBytes || zero.ImportsPerUser() != DefaultMaxImportsPerUser || zero.UploadRoot() != DefaultUploadDir() ||
		zero.HTTPTimeouts() != (Timeouts{ReadHeader: DefaultReadHeaderTimeout, Body: DefaultBodyTimeout, Write: DefaultWriteTimeout,
			Idle: DefaultIdleTimeout, BodyMinRate: DefaultBodyMinRate}) {
		t.Fatalf("zero config defaults: %d %s %+v", zero.LineLimit(), zero.UploadRoot(), zero.HTTPTimeouts())
	}
}

// TestBoundsFlags: the per-user and per-project bounds and the Host
// allow-list come from flags, else the environment, else the defaults.
func TestBoundsFlags(t *testing.T) {
	t.Setenv("BOOLPOOL_ALLOWED_HOSTS", "Judge.Example.org, 10.0.0.5:8080")
	t.Setenv("BOOLPOOL_MAX_QUEUED_JOBS", "7")
	c, fs := parsed(t)
	if strings.Join(c.AllowedHosts, "|") != "judge.example.org|10.0.0.5:8080" || c.QueuedJobsPerProject() != 7 ||
		c.StreamsPerUser() != DefaultMaxStreamsPerUser {
		t.Fatalf("from the environment: hosts %q, queued %d, streams %d", c.AllowedHosts, c.QueuedJobsPerProject(), c.StreamsPerUser())
	}
	if err := fs.Parse([]string{"-allowed-hosts", "a.example", "-max-streams-per-user", "3"}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.AllowedHosts, "|") != "a.example" || c.StreamsPerUser() != 3 {
		t.Fatalf("from flags: hosts %q, streams %d", c.AllowedHosts, c.StreamsPerUser())
	}
	var zero Config
	if zero.StreamsPerUser() != DefaultMaxStreamsPerUser || zero.QueuedJobsPerProject() != DefaultMaxQueuedJobs || zero.AllowedHosts != nil {
		t.Fatalf("zero config: %d %d %q", zero.StreamsPerUser(), zero.QueuedJobsPerProject(), zero.AllowedHosts)
	}
}
