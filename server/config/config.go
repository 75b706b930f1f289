// Package config is boolpool's one typed configuration, read from flags with
// environment-variable fallbacks, validated once and passed down.
package config

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Config holds every server setting.
type Config struct {
	DatabaseURL    string
	Addr           string
	PublicURL      string // used for links; empty = http://Addr
	SessionTTL     time.Duration
	SecureCookies  bool // set the Secure flag (serve behind TLS)
	MaxBodyBytes   int64
	MaxUploadBytes int64 // file uploads of the setup page (0 = DefaultMaxUpload)
	LoginPerMinute int
	// AccountLoginPerMinute limits sign-in attempts per account name and
	// address (and per account name, see auth.Service.Login);
	// MaxConcurrentHashes bounds password hashes computed at once.
	AccountLoginPerMinute int
	MaxConcurrentHashes   int
	DBMaxConns            int
	LogLevel              slog.Level
	LogJSON               bool
	StaticDir             string // where app.wasm and CSS live
	DemoProject           string // project shown on the landing page
	DebugAddr             string // loopback address for net/http/pprof; empty = off

	// MaxLineBytes caps one line (and one multi-line record) of an
	// imported file (0 = DefaultMaxLine).
	MaxLineBytes int64
	// MaxImportBytes caps one imported file, counted after
	// decompression (0 = DefaultMaxImportBytes).
	MaxImportBytes int64
	// MaxImportsPerUser bounds the uploads one user has importing at once
	// (0 = DefaultMaxImportsPerUser); one more is answered 429.
	MaxImportsPerUser int
	// UploadDir holds the temporary directories of uploads in progress
	// (empty = DefaultUploadDir()); stale ones are removed at start.
	UploadDir string
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout time.Duration
	// BodyTimeout and BodyMinRate bound reading a request body: after
	// BodyTimeout it must have arrived at BodyMinRate bytes per second
	// on average (a body trickled slower is cut with a 408).
	BodyTimeout time.Duration
	BodyMinRate int64
	// WriteTimeout bounds writing an answer; the live event stream,
	// uploads and export downloads run without it.
	WriteTimeout time.Duration
	// IdleTimeout bounds an idle keep-alive connection.
	IdleTimeout time.Duration

	// MaxStreamsPerUser bounds the live event streams one account holds
	// open on this server (0 = DefaultMaxStreamsPerUser); past it, 429.
	MaxStreamsPerUser int
	// MaxQueuedJobsPerProject bounds the jobs of one project waiting in
	// the queue that people may start (0 = DefaultMaxQueuedJobs); past
	// it, 429.
	MaxQueuedJobsPerProject int
	// AllowedHosts, when not empty, are the only Host header values the
	// server answers (host or host:port, lower case); other requests get
	// 421. Empty: any host.
	AllowedHosts []string
}

// Register adds the server flags to fs, with defaults taken from the
// environment (BOOLPOOL_*, DATABASE_URL) where set.
func (c *Config) Register(fs *flag.FlagSet) {
	fs.StringVar(&c.DatabaseURL, "database-url", os.Getenv("DATABASE_URL"), "PostgreSQL URL (env DATABASE_URL)")
	fs.StringVar(&c.Addr, "addr", envOr("BOOLPOOL_ADDR", "127.0.0.1:8080"), "listen address (env BOOLPOOL_ADDR)")
	fs.StringVar(&c.PublicURL, "public-url", os.Getenv("BOOLPOOL_PUBLIC_URL"), "public base URL (env BOOLPOOL_PUBLIC_URL)")
	fs.DurationVar(&c.SessionTTL, "session-ttl", envDuration("BOOLPOOL_SESSION_TTL", 12*time.Hour), "login session lifetime (env BOOLPOOL_SESSION_TTL)")
	fs.BoolVar(&c.SecureCookies, "secure-cookies", envBool("BOOLPOOL_SECURE_COOKIES", false), "mark cookies Secure; use behind TLS (env BOOLPOOL_SECURE_COOKIES)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body", int64(envInt("BOOLPOOL_MAX_BODY", 1<<20)), "largest accepted request body in bytes (env BOOLPOOL_MAX_BODY)")
	fs.Int64Var(&c.MaxUploadBytes, "max-upload", int64(envInt("BOOLPOOL_MAX_UPLOAD", DefaultMaxUpload)), "largest accepted file upload (all files of one import) in bytes (env BOOLPOOL_MAX_UPLOAD)")
	fs.IntVar(&c.LoginPerMinute, "login-rate", envInt("BOOLPOOL_LOGIN_RATE", 10), "login attempts per minute per client address (env BOOLPOOL_LOGIN_RATE)")
	fs.IntVar(&c.AccountLoginPerMinute, "login-account-rate", envInt("BOOLPOOL_LOGIN_ACCOUNT_RATE", 10), "login attempts per minute per account and address, and per account from any address (past that only addresses without a recent failure on the account are heard, after a 1 s backoff) (env BOOLPOOL_LOGIN_ACCOUNT_RATE)")
	fs.IntVar(&c.MaxConcurrentHashes, "max-password-hashes", envInt("BOOLPOOL_MAX_PASSWORD_HASHES", 0), "password hashes computed at once (19 MiB each); 0 = number of CPUs (env BOOLPOOL_MAX_PASSWORD_HASHES)")
	fs.IntVar(&c.DBMaxConns, "db-max-conns", envInt("BOOLPOOL_DB_MAX_CONNS", 32), "database connection pool size (env BOOLPOOL_DB_MAX_CONNS)")
	fs.Func("log-level", "debug|info|warn|error (env BOOLPOOL_LOG_LEVEL)", func(s string) error { return c.LogLevel.UnmarshalText([]byte(s)) })
	_ = c.LogLevel.UnmarshalText([]byte(envOr("BOOLPOOL_LOG_LEVEL", "info")))
	fs.BoolVar(&c.LogJSON, "log-json", envBool("BOOLPOOL_LOG_JSON", false), "log as JSON lines (env BOOLPOOL_LOG_JSON)")
	fs.StringVar(&c.StaticDir, "static", envOr("BOOLPOOL_STATIC", "static"), "directory with app.wasm, CSS and icons (env BOOLPOOL_STATIC)")
	fs.StringVar(&c.DemoProject, "project", envOr("BOOLPOOL_PROJECT", "demo"), "default project (env BOOLPOOL_PROJECT)")
	c.RegisterMaxLine(fs)
	c.RegisterMaxImportBytes(fs)
	fs.IntVar(&c.MaxImportsPerUser, "max-imports-per-user", envInt("BOOLPOOL_MAX_IMPORTS_PER_USER", DefaultMaxImportsPerUser), "uploads one user may have importing at once; one more is answered 429 (env BOOLPOOL_MAX_IMPORTS_PER_USER)")
	fs.StringVar(&c.UploadDir, "upload-dir", envOr("BOOLPOOL_UPLOAD_DIR", DefaultUploadDir()), "directory for uploads in progress; stale ones are removed at start (env BOOLPOOL_UPLOAD_DIR)")
	fs.DurationVar(&c.ReadHeaderTimeout, "read-header-timeout", envDuration("BOOLPOOL_READ_HEADER_TIMEOUT", DefaultReadHeaderTimeout), "time allowed to read a request's headers (env BOOLPOOL_READ_HEADER_TIMEOUT)")
	fs.DurationVar(&c.BodyTimeout, "body-timeout", envDuration("BOOLPOOL_BODY_TIMEOUT", DefaultBodyTimeout), "time a request body may take before it must keep up with -body-min-rate (env BOOLPOOL_BODY_TIMEOUT)")
	fs.Int64Var(&c.BodyMinRate, "body-min-rate", int64(envInt("BOOLPOOL_BODY_MIN_RATE", DefaultBodyMinRate)), "slowest accepted request body after -body-timeout, in bytes per second (env BOOLPOOL_BODY_MIN_RATE)")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", envDuration("BOOLPOOL_WRITE_TIMEOUT", DefaultWriteTimeout), "time allowed to write an answer; not applied to the live event stream, uploads and export downloads (env BOOLPOOL_WRITE_TIMEOUT)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", envDuration("BOOLPOOL_IDLE_TIMEOUT", DefaultIdleTimeout), "how long an idle keep-alive connection stays open (env BOOLPOOL_IDLE_TIMEOUT)")
	fs.IntVar(&c.MaxStreamsPerUser, "max-streams-per-user", envInt("BOOLPOOL_MAX_STREAMS_PER_USER", DefaultMaxStreamsPerUser), "live dashboard streams one account may hold open on this server; more are refused with 429 (env BOOLPOOL_MAX_STREAMS_PER_USER)")
	fs.IntVar(&c.MaxQueuedJobsPerProject, "max-queued-jobs", envInt("BOOLPOOL_MAX_QUEUED_JOBS", DefaultMaxQueuedJobs), "jobs of one project that may wait in the queue; more are refused with 429 (env BOOLPOOL_MAX_QUEUED_JOBS)")
	c.AllowedHosts = splitHosts(os.Getenv("BOOLPOOL_ALLOWED_HOSTS"))
	fs.Func("allowed-hosts", "comma-separated Host header values (host or host:port) the server answers; others get 421; empty = any (env BOOLPOOL_ALLOWED_HOSTS)", func(s string) error {
		c.AllowedHosts = splitHosts(s)
		return nil
	})
	fs.StringVar(&c.DebugAddr, "debug-addr", os.Getenv("BOOLPOOL_DEBUG_ADDR"), "serve Go profiles (net/http/pprof) on this loopback address, e.g. 127.0.0.1:6060; empty = off (env BOOLPOOL_DEBUG_ADDR)")
}

// RegisterMaxLine adds only the -max-line flag (the import command
// shares it with the server).
func (c *Config) RegisterMaxLine(fs *flag.FlagSet) {
	fs.Int64Var(&c.MaxLineBytes, "max-line", int64(envInt("BOOLPOOL_MAX_LINE", DefaultMaxLine)), "longest accepted line (or multi-line record) of an imported file in bytes (env BOOLPOOL_MAX_LINE)")
}

// RegisterMaxImportBytes adds only the -max-import-bytes flag (the import
// command shares it with the server).
func (c *Config) RegisterMaxImportBytes(fs *flag.FlagSet) {
	fs.Int64Var(&c.MaxImportBytes, "max-import-bytes", int64(envInt("BOOLPOOL_MAX_IMPORT_BYTES", DefaultMaxImportBytes)), "largest imported file in bytes, counted after decompression (env BOOLPOOL_MAX_IMPORT_BYTES)")
}

// Validate reports every invalid setting at once.
func (c *Config) Validate() error {
	var errs []error
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("database-url: required (set DATABASE_URL or run 'make db')"))
	} else if !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, errors.New("database-url: must start with postgres:// or postgresql://"))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr: %w", err))
	}
	if c.DebugAddr != "" {
		if host, _, err := net.SplitHostPort(c.DebugAddr); err != nil {
			errs = append(errs, fmt.Errorf("debug-addr: %w", err))
		} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			errs = append(errs, errors.New("debug-addr: must be a loopback address (profiles expose internals)"))
		}
	}
	if c.SessionTTL < time.Minute {
		errs = append(errs, errors.New("session-ttl: must be at least 1m"))
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, errors.New("max-body: must be at least 1024"))
	}
	if c.MaxUploadBytes < c.MaxBodyBytes {
		errs = append(errs, errors.New("max-upload: must be at least max-body"))
	}
	if c.MaxLineBytes < 1024 {
		errs = append(errs, errors.New("max-line: must be at least 1024"))
	}
	if c.MaxImportBytes < c.MaxLineBytes {
		errs = append(errs, errors.New("max-import-bytes: must be at least max-line"))
	}
	if c.MaxImportsPerUser < 1 {
		errs = append(errs, errors.New("max-imports-per-user: must be at least 1"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-header-timeout", c.ReadHeaderTimeout}, {"body-timeout", c.BodyTimeout}, {"write-timeout", c.WriteTimeout}, {"idle-timeout", c.IdleTimeout}} {
		if d.v < 100*time.Millisecond {
			errs = append(errs, fmt.Errorf("%s: must be at least 100ms", d.name))
		}
	}
	if c.BodyMinRate < 1 {
		errs = append(errs, errors.New("body-min-rate: must be at least 1 byte per second"))
	}
	if c.LoginPerMinute < 1 {
		errs = append(errs, errors.New("login-rate: must be at least 1"))
	}
	if c.MaxStreamsPerUser < 0 {
		errs = append(errs, errors.New("max-streams-per-user: must be at least 1 (0 = the default)"))
	}
	if c.MaxQueuedJobsPerProject < 0 {
		errs = append(errs, errors.New("max-queued-jobs: must be at least 1 (0 = the default)"))
	}
	for _, h := range c.AllowedHosts {
		if strings.ContainsAny(h, "/ @") {
			errs = append(errs, fmt.Errorf("allowed-hosts: %q is not a host or host:port", h))
		}
	}
	if c.DBMaxConns < 2 {
		errs = append(errs, errors.New("db-max-conns: must be at least 2"))
	}
	return errors.Join(errs...)
}

// Defaults of the per-user and per-project bounds.
const (
	DefaultMaxStreamsPerUser = 8
	DefaultMaxQueuedJobs     = 20
)

// StreamsPerUser is MaxStreamsPerUser, or its default when unset.
func (c *Config) StreamsPerUser() int {
	return int(orDefault(int64(c.MaxStreamsPerUser), DefaultMaxStreamsPerUser))
}

// QueuedJobsPerProject is MaxQueuedJobsPerProject, or its default when
// unset.
func (c *Config) QueuedJobsPerProject() int {
	return int(orDefault(int64(c.MaxQueuedJobsPerProject), DefaultMaxQueuedJobs))
}

// splitHosts parses a comma-separated host list (lower-cased, blanks
// dropped).
func splitHosts(s string) []string {
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// DefaultMaxUpload is the default upload limit: 1 GiB, enough for a
// gzipped corpus of a few million passages.
const DefaultMaxUpload = 1 << 30

// UploadLimit is MaxUploadBytes, or DefaultMaxUpload when unset.
func (c *Config) UploadLimit() int64 {
	if c.MaxUploadBytes <= 0 {
		return DefaultMaxUpload
	}
	return c.MaxUploadBytes
}

// Defaults of the limits and timeouts (see Register for their meaning).
const (
	DefaultMaxLine           = 16 << 20
	DefaultMaxImportBytes    = 8 << 30 // as ingest.DefaultMaxImportBytes
	DefaultMaxImportsPerUser = 2
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultBodyMinRate       = 4 << 10
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
)

// DefaultUploadDir is boolpool-uploads in the system temporary directory.
func DefaultUploadDir() string { return filepath.Join(os.TempDir(), "boolpool-uploads") }

// ImportBytesLimit is MaxImportBytes, or DefaultMaxImportBytes when unset.
func (c *Config) ImportBytesLimit() int64 { return orDefault(c.MaxImportBytes, DefaultMaxImportBytes) }

// ImportsPerUser is MaxImportsPerUser, or DefaultMaxImportsPerUser when
// unset.
func (c *Config) ImportsPerUser() int {
	if c.MaxImportsPerUser <= 0 {
		return DefaultMaxImportsPerUser
	}
	return c.MaxImportsPerUser
}

// LineLimit is MaxLineBytes, or DefaultMaxLine when unset.
func (c *Config) LineLimit() int64 { return orDefault(c.MaxLineBytes, DefaultMaxLine) }

// UploadRoot is UploadDir, or DefaultUploadDir() when unset.
func (c *Config) UploadRoot() string {
	if c.UploadDir == "" {
		return DefaultUploadDir()
	}
	return c.UploadDir
}

// Timeouts are the HTTP server's timeouts with defaults for unset ones.
type Timeouts struct {
	ReadHeader, Body, Write, Idle time.Duration
	BodyMinRate                   int64 // bytes per second
}

// HTTPTimeouts returns the timeouts, defaults filled in.
func (c *Config) HTTPTimeouts() Timeouts {
	return Timeouts{
		ReadHeader:  orDefault(c.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		Body:        orDefault(c.BodyTimeout, DefaultBodyTimeout),
		Write:       orDefault(c.WriteTimeout, DefaultWriteTimeout),
		Idle:        orDefault(c.IdleTimeout, DefaultIdleTimeout),
		BodyMinRate: orDefault(c.BodyMinRate, DefaultBodyMinRate),
	}
}

func orDefault[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Logger builds the process logger from the settings.
func (c *Config) Logger() *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.LogLevel}
	if c.LogJSON {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}

func envBool(key string, def bool) bool {
	if v, err := strconv.ParseBool(os.Getenv(key)); err == nil {
		return v
	}
	return def
}

func envDuration(key string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(key)); err == nil {
		return v
	}
	return def
}
