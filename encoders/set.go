package encoders

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Set keeps one open encoder per name so that a long-running process (the
// server, an encoding job) loads each model once and reuses its session.
// It is safe for concurrent use.
type Set struct {
	rt     *Runtime
	mu     sync.Mutex
	dense  map[string]*ONNXEncoder
	sparse map[string]SparseEncoder
}

// NewSet wraps a runtime; closing the set closes its encoders, not the runtime.
func NewSet(rt *Runtime) *Set {
	return &Set{rt: rt, dense: map[string]*ONNXEncoder{}, sparse: map[string]SparseEncoder{}}
}

// Dense returns the named dense encoder, opening (and if needed preparing)
// it on first use.
func (s *Set) Dense(ctx context.Context, name string) (*ONNXEncoder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.dense[name]; ok {
		return e, nil
	}
	e, err := s.rt.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	s.dense[name] = e
	return e, nil
}

// Sparse returns the named sparse encoder ("lexical", without collection
// statistics; build one with NewLexical for IDF weights).
func (s *Set) Sparse(name string) (SparseEncoder, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.sparse[name]; ok {
		return e, nil
	}
	if name != LexicalName {
		return nil, fmt.Errorf("encoders: unknown sparse encoder %q (known: %s)", name, LexicalName)
	}
	tok, err := LoadTokenizer(s.rt.cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	e, err := NewLexical(tok, nil)
	if err != nil {
		return nil, err
	}
	s.sparse[name] = e
	return e, nil
}

// Close closes every open dense encoder.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for name, e := range s.dense {
		if err := e.Close(); err != nil {
			errs = append(errs, err)
		}
		delete(s.dense, name)
	}
	return errors.Join(errs...)
}
