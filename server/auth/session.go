package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
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
	EnsureCrowdUser(ctx context.Context, projectName, participant string) (store.User, error)
}

// Options configure the service.
type Options struct {
	SessionTTL     time.Duration
	SecureCookies  bool
	LoginPerMinute int
}

// Service logs users in and out and resolves session tokens.
type Service struct {
	st      Store
	opts    Options
	limiter *RateLimiter
	log     *slog.Logger
	// dummyHash is verified when the username is unknown, so a login
	// attempt takes as long whether or not the account exists.
	dummyHash string
}

// New builds the service.
func New(st Store, opts Options, log *slog.Logger) *Service {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = 12 * time.Hour
	}
	// crypto/rand does not fail on supported platforms; an empty dummy
	// only makes unknown-user attempts faster.
	dummy, _ := HashPassword("not a real password", DefaultHashParams)
	return &Service{st: st, opts: opts, limiter: NewRateLimiter(opts.LoginPerMinute), log: log, dummyHash: dummy}
}

// Login is a new session.
type Login struct {
	Token     string // goes into the HttpOnly cookie, never stored
	CSRFToken string
	User      store.User
	ExpiresAt time.Time
}

// Login checks credentials and opens a session. clientKey (the client
// address) is rate limited; wrong credentials are ErrUnauthorized with one
// message for unknown user and wrong password.
func (s *Service) Login(ctx context.Context, username, password, clientKey string) (Login, error) {
	if !s.limiter.Allow(clientKey) {
		return Login{}, fmt.Errorf("auth: login attempts from %s: %w", clientKey, apperr.ErrRateLimited)
	}
	username = strings.TrimSpace(username)
	if username == "" {
		return Login{}, apperr.Invalidf("username", "required")
	}
	if password == "" {
		return Login{}, apperr.Invalidf("password", "required")
	}
	bad := fmt.Errorf("auth: wrong username or password: %w", apperr.ErrUnauthorized)
	u, err := s.st.UserByUsername(ctx, username)
	if errors.Is(err, apperr.ErrNotFound) {
		_, _ = VerifyPassword(s.dummyHash, password)
		return Login{}, bad
	}
	if err != nil {
		return Login{}, err
	}
	ok, err := VerifyPassword(u.PasswordHash, password)
	if err != nil || !ok || u.Disabled {
		return Login{}, bad
	}
	return s.open(ctx, u)
}

// EnterCrowd opens a session for a crowd-platform participant arriving by
// a project's entry link (e.g. Prolific's PROLIFIC_PID), creating their
// annotator account on first entry. Rate limited like Login.
func (s *Service) EnterCrowd(ctx context.Context, project, participant, clientKey string) (Login, error) {
	if !s.limiter.Allow(clientKey) {
		return Login{}, fmt.Errorf("auth: entries from %s: %w", clientKey, apperr.ErrRateLimited)
	}
	if !validParticipant(participant) {
		return Login{}, apperr.Invalidf("participant", "1-64 letters, digits, '_' or '-'")
	}
	u, err := s.st.EnsureCrowdUser(ctx, project, participant)
	if err != nil {
		return Login{}, err
	}
	if u.Disabled {
		return Login{}, fmt.Errorf("auth: participant %s is disabled: %w", participant, apperr.ErrForbidden)
	}
	return s.open(ctx, u)
}

func validParticipant(p string) bool {
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
