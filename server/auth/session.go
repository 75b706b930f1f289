package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"boolpool/server/apperr"
	"boolpool/server/store"
)

// Store is what the auth service needs from the database.
type Store interface {
	UserByUsername(ctx context.Context, username string) (store.User, error)
	CreateSession(ctx context.Context, tokenHash []byte, userID int64, csrf string, expires time.Time) error
	SessionByTokenHash(ctx context.Context, tokenHash []byte) (store.Session, error)
	DeleteSession(ctx context.Context, tokenHash []byte) error
	DeleteExpiredSessions(ctx context.Context) (int64, error)
	CrowdSettingsByName(ctx context.Context, name string) (store.CrowdSettings, error)
	EnterCrowd(ctx context.Context, e store.CrowdEntry) (store.User, bool, error)
	UseEntryForm(ctx context.Context, tokenHash []byte) (bool, error)
	RateStore
}

// Options configure the service.
type Options struct {
	SessionTTL    time.Duration
	SecureCookies bool
	// LoginPerMinute limits sign-in attempts per client address;
	// AccountLoginPerMinute per account name and address, and per account
	// name from any address (see Login: past that, only addresses without
	// a recent failure on the account are heard, after AccountBackoff).
	LoginPerMinute        int
	AccountLoginPerMinute int
	// AccountBackoff is the wait of a sign-in to an account whose
	// all-address limit is used up (default 1 s).
	AccountBackoff time.Duration
	// MaxConcurrentHashes bounds the password hashes computed at once
	// (argon2id takes 19 MiB each); 0 means the number of CPUs.
	MaxConcurrentHashes int
	// HashWait is how long a sign-in waits for a hashing slot before it
	// is refused as too many requests (default 10 s).
	HashWait time.Duration
}

// Service logs users in and out and resolves session tokens.
type Service struct {
	st       Store
	opts     Options
	limiter  *RateLimiter  // sign-ins per client address
	pairs    *RateLimiter  // sign-ins per account name and client address
	accounts *RateLimiter  // sign-ins per account name, any address
	entries  *RateLimiter  // crowd entries per client address
	hashes   chan struct{} // one token per password hash being computed
	log      *slog.Logger
	// dummyHash is verified when the username is unknown, so a login
	// attempt takes as long whether or not the account exists.
	dummyHash string
}

// New builds the service.
func New(st Store, opts Options, log *slog.Logger) *Service {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	if opts.AccountLoginPerMinute <= 0 {
		// Unset: the per-address figure (the server's flag defaults to 10).
		opts.AccountLoginPerMinute = opts.LoginPerMinute
	}
	if opts.MaxConcurrentHashes <= 0 {
		opts.MaxConcurrentHashes = max(2, runtime.NumCPU())
	}
	if opts.AccountBackoff <= 0 {
		opts.AccountBackoff = time.Second
	}
	if opts.HashWait <= 0 {
		opts.HashWait = 10 * time.Second
	}
	// crypto/rand does not fail on supported platforms; an empty dummy
	// only makes unknown-user attempts faster.
	dummy, _ := HashPassword("not a real password", DefaultHashParams)
	return &Service{
		st: st, opts: opts, log: log, dummyHash: dummy,
		limiter:  NewRateLimiter(st, "login-address", opts.LoginPerMinute),
		pairs:    NewRateLimiter(st, "login-account-address", opts.AccountLoginPerMinute),
		accounts: NewRateLimiter(st, "login-account", opts.AccountLoginPerMinute),
		entries:  NewRateLimiter(st, "crowd-entry", 3*opts.LoginPerMinute),
		hashes:   make(chan struct{}, opts.MaxConcurrentHashes),
	}
}

// Login is a new session.
type Login struct {
	Token     string // goes into the HttpOnly cookie, never stored
	CSRFToken string
	User      store.User
	ExpiresAt time.Time
}

// failedScope marks (account, address) pairs that sent a wrong password
// within failedFor: while an account's all-address limit is used up,
// only addresses without such a mark are heard.
const (
	failedScope = "login-failed"
	failedFor   = 10 * time.Minute
)

// Login checks credentials and opens a session. Attempts are rate limited
// per client address and per account name and address (429 past either).
// Guesses spread over many addresses use up the account's all-address
// limit; past it the account is not locked (which would let anyone keep
// its owner out): an attempt from an address that has not failed on the
// account in the last 10 minutes still has its password checked, after a
// backoff, and one that has is refused with 429 — so a spread guesser gets
// one guess per fresh address, while the owner signing in from their own
// address gets in. Wrong credentials are ErrUnauthorized with one
// message, and take one password hash whether the account is unknown, has
// no password (crowd accounts) or is disabled, so neither the answer nor
// its timing tells them apart.
func (s *Service) Login(ctx context.Context, username, password, clientKey string) (Login, error) {
	if ok, err := s.limiter.Allow(ctx, clientKey); err != nil {
		return Login{}, err
	} else if !ok {
		return Login{}, fmt.Errorf("auth: login attempts from %s: %w", clientKey, apperr.ErrRateLimited)
	}
	username = strings.TrimSpace(username)
	if username == "" {
		return Login{}, apperr.Invalidf("username", "required")
	}
	if password == "" {
		return Login{}, apperr.Invalidf("password", "required")
	}
	if len(username) > 256 || len(password) > 1024 {
		return Login{}, fmt.Errorf("auth: wrong username or password: %w", apperr.ErrUnauthorized)
	}
	account := strings.ToLower(username)
	// The address first: it has no spaces, so the key names one pair.
	pair := clientKey + " " + account
	tooMany := fmt.Errorf("auth: too many sign-in attempts for this account; wait a minute: %w", apperr.ErrRateLimited)
	if ok, err := s.pairs.Allow(ctx, pair); err != nil {
		return Login{}, err
	} else if !ok {
		return Login{}, tooMany
	}
	if ok, err := s.accounts.Allow(ctx, account); err != nil {
		return Login{}, err
	} else if !ok {
		failed, err := s.st.RateHeld(ctx, failedScope, pair)
		if err != nil {
			return Login{}, err
		}
		if failed {
			return Login{}, tooMany
		}
		select {
		case <-time.After(s.opts.AccountBackoff):
		case <-ctx.Done():
			return Login{}, fmt.Errorf("auth: sign-in: %w", ctx.Err())
		}
	}
	bad := fmt.Errorf("auth: wrong username or password: %w", apperr.ErrUnauthorized)

	u, err := s.st.UserByUsername(ctx, username)
	found := err == nil
	if err != nil && !errors.Is(err, apperr.ErrNotFound) {
		return Login{}, err
	}
	hash := s.dummyHash
	if found && u.PasswordHash != "" {
		hash = u.PasswordHash
	}
	ok, err := s.verify(ctx, hash, password)
	if err != nil && !errors.Is(err, errBadHash) {
		return Login{}, err
	}
	if !found || u.PasswordHash == "" || err != nil || !ok || u.Disabled {
		// Mark the pair (failedScope); a failed mark only lets this
		// address be heard again past the account's limit.
		if _, err := s.st.AllowRate(ctx, failedScope, pair, failedFor, 1); err != nil {
			s.log.Warn("sign-in: record failure", "err", err)
		}
		return Login{}, bad
	}
	return s.open(ctx, u)
}

// verify checks a password holding one of the bounded hashing slots, so
// parallel sign-ins queue instead of each taking 19 MiB at once.
func (s *Service) verify(ctx context.Context, hash, password string) (bool, error) {
	wait, cancel := context.WithTimeout(ctx, s.opts.HashWait)
	defer cancel()
	select {
	case s.hashes <- struct{}{}:
	case <-wait.Done():
		return false, fmt.Errorf("auth: the server is busy with other sign-ins; try again: %w", apperr.ErrRateLimited)
	}
	defer func() { <-s.hashes }()
	return VerifyPassword(hash, password)
}

// ErrNoEntry is the one answer for an unknown project, a project whose
// crowd entry is off and a wrong key, so project names cannot be probed.
var ErrNoEntry = fmt.Errorf("auth: this study link is not valid (it may have been replaced or closed): %w", apperr.ErrNotFound)

// CrowdLink checks a project's entry link (project name and key) and
// returns the project's crowd settings. Rate limited per client address.
func (s *Service) CrowdLink(ctx context.Context, project, key, clientKey string) (store.CrowdSettings, error) {
	if ok, err := s.entries.Allow(ctx, clientKey); err != nil {
		return store.CrowdSettings{}, err
	} else if !ok {
		return store.CrowdSettings{}, fmt.Errorf("auth: entries from %s: %w", clientKey, apperr.ErrRateLimited)
	}
	cs, err := s.st.CrowdSettingsByName(ctx, project)
	if errors.Is(err, apperr.ErrNotFound) {
		cs = store.CrowdSettings{}
	} else if err != nil {
		return cs, err
	}
	// Compare even when the project is unknown, so timing says nothing.
	keyOK := subtle.ConstantTimeCompare([]byte(key), []byte(cs.Key)) == 1
	if err != nil || !cs.Enabled || cs.Key == "" || !keyOK {
		return store.CrowdSettings{}, ErrNoEntry
	}
	return cs, nil
}

// CrowdEntry is a participant's request to start.
type CrowdEntry struct {
	Project, Key, Participant string
	BindToken                 string // the participant-binding cookie, "" if none
	ClientKey                 string
}

// CrowdLogin is a crowd session; BindToken is non-empty when the
// participant was bound now and the caller must set the binding cookie.
type CrowdLogin struct {
	Login
	BindToken string
}

// EnterCrowd opens a session for a crowd-platform participant arriving by
// a project's entry link (e.g. Prolific's PROLIFIC_PID), creating their
// annotator account on first entry and binding the participant id to a
// new token for this browser; a known participant must bring that token.
func (s *Service) EnterCrowd(ctx context.Context, e CrowdEntry) (CrowdLogin, error) {
	cs, err := s.CrowdLink(ctx, e.Project, e.Key, e.ClientKey)
	if err != nil {
		return CrowdLogin{}, err
	}
	if !ValidParticipant(e.Participant) {
		return CrowdLogin{}, apperr.Invalidf("participant", "1-64 letters, digits, '_' or '-'")
	}
	bind, err := randomToken()
	if err != nil {
		return CrowdLogin{}, err
	}
	var presented []byte
	if e.BindToken != "" {
		presented = hashToken(e.BindToken)
	}
	u, bound, err := s.st.EnterCrowd(ctx, store.CrowdEntry{
		ProjectID: cs.ProjectID, Project: cs.Project, Participant: e.Participant,
		PresentedHash: presented, NewHash: hashToken(bind), MaxParticipants: cs.MaxParticipants,
	})
	if err != nil {
		return CrowdLogin{}, err
	}
	if u.Disabled {
		return CrowdLogin{}, fmt.Errorf("auth: participant %s is disabled: %w", e.Participant, apperr.ErrForbidden)
	}
	l, err := s.open(ctx, u)
	if err != nil {
		return CrowdLogin{}, err
	}
	cl := CrowdLogin{Login: l}
	if bound {
		cl.BindToken = bind
	}
	return cl, nil
}

// NewCrowdKey returns a fresh, unguessable entry key.
func NewCrowdKey() (string, error) { return randomToken() }

// ValidParticipant reports whether p is a usable participant id.
func ValidParticipant(p string) bool {
	if len(p) == 0 || len(p) > 64 {
		return false
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// open starts a session for u.
func (s *Service) open(ctx context.Context, u store.User) (Login, error) {
	token, err := randomToken()
	if err != nil {
		return Login{}, err
	}
	csrf, err := randomToken()
	if err != nil {
		return Login{}, err
	}
	exp := time.Now().Add(s.opts.SessionTTL)
	if err := s.st.CreateSession(ctx, hashToken(token), u.ID, csrf, exp); err != nil {
		return Login{}, err
	}
	if n, err := s.st.DeleteExpiredSessions(ctx); err != nil {
		s.log.Warn("expire sessions", "err", err)
	} else if n > 0 {
		s.log.Debug("expired sessions removed", "n", n)
	}
	u.PasswordHash = ""
	return Login{Token: token, CSRFToken: csrf, User: u, ExpiresAt: exp}, nil
}

// Session resolves a session token; an unknown or expired one is
// ErrUnauthorized.
func (s *Service) Session(ctx context.Context, token string) (store.Session, error) {
	if token == "" {
		return store.Session{}, fmt.Errorf("auth: no session: %w", apperr.ErrUnauthorized)
	}
	ss, err := s.st.SessionByTokenHash(ctx, hashToken(token))
	if errors.Is(err, apperr.ErrNotFound) {
		return store.Session{}, fmt.Errorf("auth: session expired or unknown: %w", apperr.ErrUnauthorized)
	}
	return ss, err
}

// Logout ends the session of token.
func (s *Service) Logout(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return s.st.DeleteSession(ctx, hashToken(token))
}

func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("auth: token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
