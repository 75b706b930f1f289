package cal

import (
	"context"
	"fmt"
)

// Session is one query's AutoTAR review: ask for a batch, judge it, repeat.
// Batches grow 1, 2, 3, …, B + ceil(B/10). Not safe for concurrent use.
type Session struct {
	e      *Engine
	pseudo []Vec
	cos    []float64 // the query-cosine feature (nil: off)
	prior  []string
	judged map[uint32]bool
	rels   []bool // judgments in review order
	batch  int
	round  int
}

// NewSession starts a review of query (its text is the relevant
// pseudo-document; may be empty) with an optional prior ranking (e.g. the
// fusion of the query's runs), served while nothing relevant is known.
func (e *Engine) NewSession(query string, prior []string) *Session {
	return e.NewSessionVec(query, nil, prior)
}

// NewSessionVec is NewSession with the query's embedding (see
// Request.QueryVec; nil: none).
func (e *Engine) NewSessionVec(query string, qvec []float32, prior []string) *Session {
	return &Session{e: e, prior: prior, judged: map[uint32]bool{}, pseudo: e.pseudoDocs(query, qvec), cos: e.cosines(qvec)}
}

// Next returns the next batch (empty when every document is judged).
// Documents of an earlier batch that were not judged are served again.
func (s *Session) Next(ctx context.Context) ([]string, error) {
	s.batch = NextBatchSize(s.batch)
	docs, err := s.e.next(ctx, s.pseudo, s.cos, s.judged, s.prior, s.batch, s.round)
	if err != nil {
		return nil, err
	}
	s.round++
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = s.e.f.DocID(d)
	}
	return out, nil
}

// Judge records a judgment; judging a document twice keeps the last label
// but counts once.
func (s *Session) Judge(doc string, relevant bool) error {
	d, ok := s.e.f.DocNum(doc)
	if !ok {
		return fmt.Errorf("cal: judgment for unknown document %q", doc)
	}
	if _, again := s.judged[d]; !again {
		s.rels = append(s.rels, relevant)
	}
	s.judged[d] = relevant
	return nil
}

// Judgments returns the judgments in review order (true = relevant).
func (s *Session) Judgments() []bool { return s.rels }
