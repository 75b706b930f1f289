// Package embedjob embeds a project's documents and queries with an encoder
// and stores the vectors in PostgreSQL (pgvector): the work behind
// `boolpool encode`.
//
// The rules:
//
//   - Registration. The encoder is registered in the encoders table by name
//     with its model hash (the sha256 of the dense encoder's ONNX file; for
//     the lexical encoder, of its vocabulary and weighting scheme),
//     dimension, pooling and normalisation. If a name is registered with a
//     different hash (or dimension, pooling, normalisation), the model
//     changed: the encoder row is replaced by a new one (a new id), which
//     deletes every stored vector of that encoder in every project and drops
//     its HNSW index (store.RegisterEncoder), so that the run re-embeds
//     everything and vectors of two models never mix. (A process holding
//     the old EncoderInfo, e.g. a running server, must look it up again.)
//     --reset (Options.Reset) forces a full re-embedding of one project.
//   - Incremental. A document is embedded when it has no vector of the
//     encoder or its stored content_hash differs from the document's
//     (documents.content_hash changes exactly when title or body change).
//     Query texts likewise carry a text hash (query_embeddings.text_hash).
//   - Resumable. The ids of the documents to embed are listed once; they
//     are then read in id order, Batch at a time, encoded and written in
//     one transaction per batch (COPY; see store.WriteEmbeddings), the
//     next batch encoded and the one after it read while the previous one
//     is written. An interrupted run loses at most the batches in flight
//     (four); running it again continues with the documents still missing.
//   - Index. After the documents of a dense encoder are stored, the
//     project's cosine HNSW index of the encoder (one partial index per
//     project, half precision; see store.EnsureHNSW) is built if missing,
//     with enough maintenance_work_mem for the graph, and the table
//     analysed. Other projects' indexes are not touched. Building the index
//     after a bulk load is several times faster than maintaining it row by
//     row, so a run that loads at least 1000 documents and at least half as
//     many as the project's index holds drops that index first (kNN queries
//     of the project fall back to exact scans meanwhile); smaller
//     incremental runs update the existing index.
//   - Queries (Options.Queries; `boolpool encode` sets it unless
//     --queries=false). Each query's whole text (atom -1) and each atom
//     text get a vector in query_embeddings; vectors of atoms a query no
//     longer has are deleted.
//   - Text. A document is embedded as title + "\n" + body, the text the
//     retrieval package's in-memory vectors use, so both agree.
//   - Sparse. The lexical encoder stores sparsevec document vectors over the
//     tokenizer vocabulary with log(1 + tf) weights and idf = 1: they depend
//     on the document alone, so incremental updates stay exact. The
//     collection idf of the project goes into the query vectors (BM25 query
//     weights × idf; their text hash includes the corpus fingerprint, so
//     they are recomputed when the corpus changes). The dot product of a
//     query and a document vector is then a BM25-like score with idf
//     counted once.
package embedjob

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"time"

	"boolpool/encoders"
	"boolpool/encoders/tokenizer"
	"boolpool/server/progress"
	"boolpool/server/store"
)

// bulkLoadMin is the smallest load for which the HNSW index is dropped and
// rebuilt afterwards (when the load is at least half the size of the
// index): inserting into an existing index costs a few times more per row
// than building it (measured: ≈ 2.7 ms vs ≈ 0.8 ms per 256-d row here).
const bulkLoadMin = 1000

// DefaultBatch is the number of documents encoded and committed together.
const DefaultBatch = 64

// DenseEncoder is a dense encoder that can describe itself for
// registration (encoders.ONNXEncoder is one).
type DenseEncoder interface {
	encoders.Encoder
	Info() (encoders.ModelInfo, error)
}

// Options configure a run.
type Options struct {
	ProjectID int64
	// Batch is the number of documents (or query texts) encoded and
	// committed per transaction (default DefaultBatch).
	Batch int
	// Queries also embeds every query's whole text and atom texts.
	Queries bool
	// Reset deletes the project's stored vectors of the encoder first, so
	// that everything is embedded again.
	Reset bool
	// Progress receives a progress bar (a terminal) or periodic lines
	// (anything else); nil is silent.
	Progress io.Writer
	// ProgressInterval is the period of the plain progress lines (default 10 s).
	ProgressInterval time.Duration
	// Log receives one line per phase (default: discard).
	Log *slog.Logger
	// AfterBatch, when set, is called after each committed document batch
	// with the documents encoded so far and the number to encode.
	AfterBatch func(done, total int)
	// AfterQueryBatch, when set, is called after each stored batch of query
	// texts with the texts encoded so far and the number to encode.
	AfterQueryBatch func(done, total int)
}

// Report says what a run did.
type Report struct {
	Encoder   store.EncoderInfo
	Reset     bool // the model hash changed: all vectors of the encoder were dropped first
	Documents int  // documents in the project
	Unchanged int  // documents whose vector was already current
	ToEncode  int  // documents without a current vector when the run started
	Encoded   int  // documents embedded and stored by this run

	QueryTexts    int // whole-query and atom texts of the project (with Queries)
	QueryEncoded  int // of them embedded by this run
	AtomsRemoved  int // vectors of atoms that no longer exist, deleted
	DocumentTime  time.Duration
	IndexTime     time.Duration
	QueryTime     time.Duration
	Elapsed       time.Duration
	IndexBuilt    bool // the HNSW index was ensured (dense encoders)
	Interrupted   bool // the context ended before the run finished
	DocumentsLeft int  // documents still to encode when interrupted
}

// DocsPerSecond is the document encoding rate of the run (0 when none).
func (r Report) DocsPerSecond() float64 {
	if r.Encoded == 0 || r.DocumentTime <= 0 {
		return 0
	}
	return float64(r.Encoded) / r.DocumentTime.Seconds()
}

// DocumentText is the text a document is embedded from.
func DocumentText(title, body string) string { return title + "\n" + body }

// vector is one encoder output: dense or sparse.
type vector struct {
	dense  []float32
	sparse store.SparseVector
}

type encodeFunc func(ctx context.Context, texts []string) ([]vector, error)

// source adapts a dense or sparse encoder to the run.
type source struct {
	spec store.EncoderSpec
	docs encodeFunc
	// queries prepares query encoding for a project: the encode function and
	// the hash identifying a query text's vector.
	queries func(ctx context.Context, st *store.Store, projectID int64) (encodeFunc, func(string) []byte, error)
}

// Dense embeds a project's documents (and with Options.Queries its query
// texts) with a dense encoder.
func Dense(ctx context.Context, st *store.Store, enc DenseEncoder, opt Options) (Report, error) {
	info, err := enc.Info()
	if err != nil {
		return Report{}, fmt.Errorf("embedjob: describe encoder %s: %w", enc.Name(), err)
	}
	encode := func(ctx context.Context, texts []string) ([]vector, error) {
		vs, err := enc.Encode(ctx, texts)
		if err != nil {
			return nil, err
		}
		out := make([]vector, len(vs))
		for i, v := range vs {
			out[i].dense = v
		}
		return out, nil
	}
	src := source{
		spec: store.EncoderSpec{Name: enc.Name(), Kind: store.EncoderDense, ModelHash: info.SHA256, Dim: info.Dim,
			Pooling: info.Pooling, Normalized: info.Normalize == "l2"},
		docs: encode,
		queries: func(context.Context, *store.Store, int64) (encodeFunc, func(string) []byte, error) {
			return encode, store.TextHash, nil
		},
	}
	return run(ctx, st, src, opt)
}

// lexicalScheme names the lexical weighting stored by this package; change
// it when the weighting changes, so that the model hash does too.
const lexicalScheme = "boolpool lexical v1: documents log(1+tf), idf=1; queries (k1+1)qtf/(k1+qtf)*idf, k1=1.2, BM25 idf of the project\n"

// LexicalModelHash identifies the lexical encoder over tok: its vocabulary
// and the weighting scheme.
func LexicalModelHash(tok *tokenizer.Tokenizer) string {
	h := sha256.New()
	h.Write([]byte(lexicalScheme))
	for id := range tok.VocabSize() {
		h.Write([]byte(tok.Token(int32(id))))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// Lexical embeds a project's documents (and with Options.Queries its query
// texts) with the lexical sparse encoder over tok's vocabulary, into
// sparse_embeddings (and query_embeddings.sparse). See the package
// documentation for the weighting.
func Lexical(ctx context.Context, st *store.Store, tok *tokenizer.Tokenizer, opt Options) (Report, error) {
	docEnc, err := encoders.NewLexical(tok, nil)
	if err != nil {
		return Report{}, fmt.Errorf("embedjob: %w", err)
	}
	src := source{
		spec: store.EncoderSpec{Name: encoders.LexicalName, Kind: store.EncoderSparse, ModelHash: LexicalModelHash(tok),
			Dim: tok.VocabSize(), Pooling: "sum", Normalized: false},
		docs: sparseFunc(docEnc.EncodeDocuments),
		queries: func(ctx context.Context, st *store.Store, projectID int64) (encodeFunc, func(string) []byte, error) {
			// The query weights depend on the corpus through idf: the text
			// hash includes the corpus fingerprint, and the statistics are
			// collected only when some query text must be encoded.
			fp, _, err := st.CorpusFingerprint(ctx, projectID)
			if err != nil {
				return nil, nil, err
			}
			hash := func(text string) []byte {
				h := sha256.New()
				h.Write([]byte(fp))
				h.Write([]byte{0})
				h.Write([]byte(text))
				return h.Sum(nil)
			}
			var qEnc *encoders.Lexical
			encode := func(ctx context.Context, texts []string) ([]vector, error) {
				if qEnc == nil {
					var docs []string
					err := st.EachDocument(ctx, projectID, func(d store.Document) error {
						docs = append(docs, DocumentText(d.Title, d.Body))
						return nil
					})
					if err != nil {
						return nil, err
					}
					stats := encoders.CollectTermStats(tok, docs)
					if qEnc, err = encoders.NewLexical(tok, &stats); err != nil {
						return nil, err
					}
				}
				return sparseFunc(qEnc.EncodeQueries)(ctx, texts)
			}
			return encode, hash, nil
		},
	}
	return run(ctx, st, src, opt)
}

func sparseFunc(f func(context.Context, []string) ([]encoders.SparseVector, error)) encodeFunc {
	return func(ctx context.Context, texts []string) ([]vector, error) {
		vs, err := f(ctx, texts)
		if err != nil {
			return nil, err
		}
		out := make([]vector, len(vs))
		for i, v := range vs {
			out[i].sparse = store.SparseVector{Indices: v.Indices, Values: v.Values}
		}
		return out, nil
	}
}

// run registers the encoder, embeds the stale documents batch by batch,
// ensures the index and embeds the query texts.
func run(ctx context.Context, st *store.Store, src source, opt Options) (rep Report, err error) {
	start := time.Now()
	defer func() {
		rep.Elapsed = time.Since(start)
		if err != nil && ctx.Err() != nil {
			rep.Interrupted = true
			rep.DocumentsLeft = max(0, rep.ToEncode-rep.Encoded)
		}
	}()
	if opt.Batch <= 0 {
		opt.Batch = DefaultBatch
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	enc, reset, err := st.RegisterEncoder(ctx, src.spec)
	if err != nil {
		return rep, err
	}
	rep.Encoder, rep.Reset = enc, reset
	if reset {
		log.Warn("encoder model changed: dropped all its stored vectors, re-embedding everything",
			"encoder", enc.Name, "model_hash", enc.ModelHash, "dim", enc.Dim)
	}
	if opt.Reset {
		n, err := st.DeleteProjectVectors(ctx, opt.ProjectID, enc)
		if err != nil {
			return rep, err
		}
		log.Info("reset: deleted the project's vectors", "encoder", enc.Name, "documents", n)
	}

	total, staleIDs, err := st.StaleDocumentIDs(ctx, opt.ProjectID, enc)
	if err != nil {
		return rep, err
	}
	stale := len(staleIDs)
	rep.Documents, rep.Unchanged, rep.ToEncode = total, total-stale, stale
	if enc.Kind == store.EncoderDense && stale >= bulkLoadMin {
		indexed, err := st.CountEmbeddings(ctx, opt.ProjectID, enc.ID)
		if err != nil {
			return rep, err
		}
		if 2*stale >= indexed {
			log.Info("bulk load: dropping the project's HNSW index, rebuilt after the load", "encoder", enc.Name, "to_encode", stale, "indexed", indexed)
			if err := st.DropHNSW(ctx, opt.ProjectID, enc); err != nil {
				return rep, err
			}
		}
	}
	if err := embedDocuments(ctx, st, src, enc, staleIDs, opt, log, &rep); err != nil {
		return rep, err
	}

	if enc.Kind == store.EncoderDense {
		t := time.Now()
		if _, err := st.EnsureHNSW(ctx, opt.ProjectID, enc); err != nil {
			return rep, err
		}
		rep.IndexBuilt = true
		if rep.Encoded > 0 || reset {
			if err := st.AnalyzeEmbeddings(ctx); err != nil {
				return rep, err
			}
		}
		rep.IndexTime = time.Since(t)
		log.Info("hnsw index ready", "encoder", enc.Name, "seconds", rep.IndexTime.Seconds())
	} else if rep.Encoded > 0 || reset {
		if err := st.AnalyzeSparseEmbeddings(ctx); err != nil {
			return rep, err
		}
	}

	if opt.Queries {
		if err := embedQueries(ctx, st, src, enc, opt, log, &rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func embedDocuments(ctx context.Context, st *store.Store, src source, enc store.EncoderInfo, ids []int64, opt Options, log *slog.Logger, rep *Report) error {
	stale := len(ids)
	log.Info("encode documents", "encoder", enc.Name, "documents", rep.Documents, "current", rep.Unchanged, "to_encode", stale)
	t := time.Now()
	bar := progress.New(opt.Progress, "encode "+enc.Name, "docs", stale, opt.ProgressInterval)
	defer func() {
		bar.Done()
		rep.DocumentTime = time.Since(t)
	}()
	// fail reports an error, as an interruption when the context ended.
	fail := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("embedjob: interrupted after %d of %d documents: %w", rep.Encoded, stale, ctx.Err())
		}
		return err
	}

	// Three stages overlap: a fetch goroutine reads batch i+2 from
	// Postgres while an encode goroutine encodes batch i+1 and this
	// goroutine writes batch i, so the encoder never waits for the
	// database's read and Postgres's COPY runs beside the encoder on the
	// other core. Batches are written in id order, one transaction each, so
	// an interruption still loses at most the batches in flight (four). The
	// two goroutines are owned here: stopRead ends them and the waits below
	// join them on every return. Each stage's busy time is logged at the
	// end (the slowest stage bounds the run).
	readCtx, stopRead := context.WithCancel(ctx)
	fetched := make(chan []store.DocumentToEmbed, 1)
	batches := make(chan encodedBatch, 1)
	var fetchErr, encodeErr error
	var fetchBusy, encodeBusy, writeBusy time.Duration
	fetchDone, encodeDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(fetchDone)
		defer close(fetched)
		fetchErr = fetchBatches(readCtx, st, enc, ids, opt.Batch, fetched, &fetchBusy)
	}()
	go func() {
		defer close(encodeDone)
		defer close(batches)
		encodeErr = encodeBatches(readCtx, src, enc, fetched, batches, &encodeBusy)
	}()
	defer func() {
		stopRead()
		for range batches { // unblock an encoder waiting to send
		}
		<-encodeDone
		for range fetched { // and a fetcher
		}
		<-fetchDone
	}()

	for b := range batches {
		w := time.Now()
		if _, err := st.WriteEmbeddings(ctx, enc, b.rows); err != nil {
			return fail(err)
		}
		writeBusy += time.Since(w)
		rep.Encoded += len(b.rows)
		bar.Add(len(b.rows))
		if opt.AfterBatch != nil {
			opt.AfterBatch(rep.Encoded, stale)
		}
	}
	<-encodeDone
	stopRead() // the encoder stopped: a fetcher still sending must not block
	for range fetched {
	}
	<-fetchDone
	// The encoder's error first: a fetcher it left waiting was stopped
	// (its context.Canceled says nothing). A fetch error ends the encoder
	// cleanly, so it is reported on its own.
	if encodeErr != nil {
		return fail(encodeErr)
	}
	if fetchErr != nil {
		return fail(fetchErr)
	}
	if ctx.Err() != nil {
		return fail(nil)
	}
	log.Info("documents encoded", "encoder", enc.Name, "documents", rep.Encoded, "seconds", time.Since(t).Seconds(),
		"fetch_busy_s", fetchBusy.Seconds(), "encode_busy_s", encodeBusy.Seconds(), "write_busy_s", writeBusy.Seconds())
	return nil
}

// encodedBatch is one batch of document vectors ready to be written.
type encodedBatch struct {
	rows []store.DocumentVector
}

// fetchBatches reads the documents of ids in id order, batch at a time, and
// sends each non-empty batch on out, until all are sent, ctx ends or an
// error occurs (returned). busy accumulates the time spent reading.
func fetchBatches(ctx context.Context, st *store.Store, enc store.EncoderInfo, ids []int64, batch int, out chan<- []store.DocumentToEmbed, busy *time.Duration) error {
	for start := 0; start < len(ids); start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		t := time.Now()
		docs, err := st.DocumentsToEmbed(ctx, enc, ids[start:min(start+batch, len(ids))])
		if err != nil {
			return err
		}
		*busy += time.Since(t)
		if len(docs) == 0 {
			continue
		}
		select {
		case out <- docs:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// encodeBatches encodes each batch of documents from in and sends the
// vectors on out, until in is closed, ctx ends or an error occurs
// (returned). busy accumulates the time spent encoding.
func encodeBatches(ctx context.Context, src source, enc store.EncoderInfo, in <-chan []store.DocumentToEmbed, out chan<- encodedBatch, busy *time.Duration) error {
	for docs := range in {
		t := time.Now()
		texts := make([]string, len(docs))
		for i, d := range docs {
			texts[i] = DocumentText(d.Title, d.Body)
		}
		vecs, err := src.docs(ctx, texts)
		if err != nil {
			return fmt.Errorf("embedjob: encode documents with %s: %w", enc.Name, err)
		}
		if len(vecs) != len(docs) {
			return fmt.Errorf("embedjob: encoder %s returned %d vectors for %d texts", enc.Name, len(vecs), len(docs))
		}
		rows := make([]store.DocumentVector, len(docs))
		for i, d := range docs {
			rows[i] = store.DocumentVector{DocumentID: d.ID, ProjectID: d.ProjectID, ContentHash: d.ContentHash, Dense: vecs[i].dense, Sparse: vecs[i].sparse, New: !d.Stored}
		}
		*busy += time.Since(t)
		select {
		case out <- encodedBatch{rows: rows}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

func embedQueries(ctx context.Context, st *store.Store, src source, enc store.EncoderInfo, opt Options, log *slog.Logger, rep *Report) error {
	t := time.Now()
	defer func() { rep.QueryTime = time.Since(t) }()
	qs, err := st.ListQueries(ctx, opt.ProjectID, "")
	if err != nil {
		return err
	}
	encode, hash, err := src.queries(ctx, st, opt.ProjectID)
	if err != nil {
		return fmt.Errorf("embedjob: prepare query encoding: %w", err)
	}
	have, err := st.QueryEmbeddingHashes(ctx, opt.ProjectID, enc)
	if err != nil {
		return err
	}
	var todo []store.QueryVector
	var texts []string
	counts := make(map[int64]int, len(qs))
	want := func(k store.QueryAtom, text string) {
		rep.QueryTexts++
		h := hash(text)
		if old, ok := have[k]; ok && bytes.Equal(old, h) {
			return
		}
		todo = append(todo, store.QueryVector{QueryAtom: k, TextHash: h})
		texts = append(texts, text)
	}
	for _, q := range qs {
		counts[q.ID] = len(q.Atoms)
		want(store.QueryAtom{QueryID: q.ID, Atom: store.WholeQuery}, q.Text)
		for i, a := range q.Atoms {
			want(store.QueryAtom{QueryID: q.ID, Atom: i}, a.Text)
		}
	}
	log.Info("encode queries", "encoder", enc.Name, "queries", len(qs), "texts", rep.QueryTexts, "to_encode", len(todo))
	bar := progress.New(opt.Progress, "encode "+enc.Name+" queries", "texts", len(todo), opt.ProgressInterval)
	defer bar.Done()
	for i := 0; i < len(todo); i += opt.Batch {
		j := min(i+opt.Batch, len(todo))
		vecs, err := encode(ctx, texts[i:j])
		if err != nil {
			return fmt.Errorf("embedjob: encode query texts with %s: %w", enc.Name, err)
		}
		if len(vecs) != j-i {
			return fmt.Errorf("embedjob: encoder %s returned %d vectors for %d texts", enc.Name, len(vecs), j-i)
		}
		for k, v := range vecs {
			todo[i+k].Dense, todo[i+k].Sparse = v.dense, v.sparse
		}
		if err := st.WriteQueryEmbeddings(ctx, enc, todo[i:j]); err != nil {
			return err
		}
		rep.QueryEncoded += j - i
		bar.Add(j - i)
		if opt.AfterQueryBatch != nil {
			opt.AfterQueryBatch(rep.QueryEncoded, len(todo))
		}
	}
	n, err := st.DeleteExtraQueryAtoms(ctx, enc, counts)
	if err != nil {
		return err
	}
	rep.AtomsRemoved = n
	return nil
}
