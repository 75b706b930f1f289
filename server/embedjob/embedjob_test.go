package embedjob

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"boolpool/encoders"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// corpus is a small set of documents on distinct topics.
var corpus = []struct{ title, body string }{
	{"Apt", "Advanced package tool: installs, upgrades and removes Debian packages and their dependencies."},
	{"Nginx", "A small, fast HTTP server and reverse proxy with load balancing and TLS termination."},
	{"PostgreSQL", "An object-relational SQL database server with transactions, indexes and replication."},
	{"GIMP", "The GNU image manipulation program for photo retouching, painting and image composition."},
	{"Vim", "A highly configurable modal text editor for programmers, with syntax highlighting."},
	{"Python", "An interpreted, interactive, object-oriented programming language with a large standard library."},
	{"Birds of the Andes", "Condors, hummingbirds and tanagers live in the high mountain forests of Venezuela and Colombia."},
	{"Liver disease", "Hepatitis and cirrhosis damage the liver and can cause pain in the upper right abdomen."},
	{"Chess engine", "Stockfish evaluates chess positions with alpha-beta search and a neural network."},
	{"Weather", "A forecast of rain, wind and sunshine for the coming week in coastal towns."},
	{"Espresso", "Coffee brewed by forcing hot water through finely ground beans under high pressure."},
	{"Volcanoes", "Magma rises through the crust and erupts as lava, ash and volcanic gases."},
	{"Rsync", "Fast incremental file transfer that copies only the differences between files over the network."},
	{"Football", "Two teams of eleven players try to kick the ball into the opposing goal at the stadium."},
	{"Tax law", "Income tax rules, deductions and filing deadlines for self-employed workers."},
	{"Ocean tides", "The gravitational pull of the moon and the sun raises and lowers the sea level twice a day."},
	{"Medieval castles", "Stone fortresses with moats, towers and drawbridges defended noble families."},
	{"Photosynthesis", "Plants convert sunlight, water and carbon dioxide into sugar and oxygen in their leaves."},
	{"Jazz", "Improvised music with swing rhythms, blue notes and saxophone solos born in New Orleans."},
	{"Marathon", "A long-distance running race of 42 kilometres that needs months of endurance training."},
}

// fixture is a migrated database with one project holding the corpus.
type fixture struct {
	st      *store.Store
	project store.Project
}

func newFixture(t *testing.T, nDocs int) fixture {
	t.Helper()
	ctx := context.Background()
	st := storetest.New(t)
	p, err := st.EnsureProject(ctx, "enc")
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{st: st, project: p}
	for i := range nDocs {
		f.putDocument(t, i, corpus[i].title, corpus[i].body)
	}
	return f
}

func docID(i int) string { return fmt.Sprintf("d%02d", i) }

// putDocument imports (inserts or updates) document i.
func (f fixture) putDocument(t *testing.T, i int, title, body string) {
	t.Helper()
	_, err := f.st.Import(context.Background(), f.project.ID, func(im *store.Importer) error {
		return im.Document(context.Background(), store.DocumentIn{ExtID: docID(i), Title: title, Body: body})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// putQuery imports a query with its atoms (spans are not needed here).
func (f fixture) putQuery(t *testing.T, ext, text string, atoms ...string) int64 {
	t.Helper()
	var id int64
	_, err := f.st.Import(context.Background(), f.project.ID, func(im *store.Importer) error {
		as := make([]store.Atom, len(atoms))
		for i, a := range atoms {
			as[i] = store.Atom{Text: a}
		}
		var err error
		id, err = im.Query(context.Background(), store.QueryIn{ExtID: ext, Text: text, Atoms: as})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (f fixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.st.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// recorder wraps a dense encoder and records the texts it encoded.
type recorder struct {
	DenseEncoder
	mu    sync.Mutex
	texts []string
}

func (r *recorder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	r.texts = append(r.texts, texts...)
	r.mu.Unlock()
	return r.DenseEncoder.Encode(ctx, texts)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.texts
	r.texts = nil
	return out
}

// openStatic opens the real minilm-static encoder on ONNX Runtime.
func openStatic(t *testing.T) *encoders.ONNXEncoder {
	t.Helper()
	rt, err := encoders.NewRuntime(encoders.Config{IntraOpThreads: 1})
	if errors.Is(err, encoders.ErrNotInstalled) {
		t.Skipf("skipping: ONNX Runtime is not installed (run scripts/install-onnxruntime.sh or make test): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	if _, err := os.Stat(rt.ModelPath(encoders.MiniLMStatic)); err != nil {
		t.Skipf("skipping: the %s model is not prepared (run scripts/fetch-models.sh and 'boolpool model prepare', or make test): %v", encoders.MiniLMStatic, err)
	}
	enc, err := rt.Open(context.Background(), encoders.MiniLMStatic)
	if errors.Is(err, encoders.ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { enc.Close() })
	return enc
}

func TestEncodeStoresIncrementallyAndRetrievesOwnText(t *testing.T) {
	ctx := context.Background()
	static := openStatic(t)
	enc := &recorder{DenseEncoder: static}
	f := newFixture(t, len(corpus))
	q1 := f.putQuery(t, "q1", "birds of the Andes but not of Colombia", "birds of the Andes", "birds of Colombia")
	q2 := f.putQuery(t, "q2", "upper abdomen pain unrelated to liver issues", "upper abdomen pain", "liver issues")
	opt := Options{ProjectID: f.project.ID, Batch: 6, Queries: true}

	// First run: everything is encoded, the encoder registered, the index built.
	rep, err := Dense(ctx, f.st, enc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Documents != len(corpus) || rep.Encoded != len(corpus) || rep.Unchanged != 0 || rep.Reset {
		t.Fatalf("first run: %+v", rep)
	}
	if got := len(enc.take()); got != len(corpus)+6 {
		t.Fatalf("first run encoded %d texts, want %d documents + 6 query texts", got, len(corpus))
	}
	info, err := static.Info()
	if err != nil {
		t.Fatal(err)
	}
	row, err := f.st.EncoderByName(ctx, encoders.MiniLMStatic)
	if err != nil {
		t.Fatal(err)
	}
	want := store.EncoderInfo{ID: row.ID, Name: encoders.MiniLMStatic, Kind: "dense", ModelHash: info.SHA256, Dim: 256, Pooling: "mean", Normalized: true}
	if row != want || info.Dim != 256 || len(info.SHA256) != 64 {
		t.Fatalf("encoder row %+v, want %+v (info %+v)", row, want, info)
	}
	if n, err := f.st.CountEmbeddings(ctx, f.project.ID, row.ID); err != nil || n != len(corpus) {
		t.Fatalf("stored %d embeddings (%v), want %d", n, err, len(corpus))
	}
	if n := f.count(t, `SELECT count(*) FROM pg_indexes WHERE tablename = 'embeddings' AND indexname = $1`, fmt.Sprintf("embeddings_hnsw_e%d_p%d", row.ID, f.project.ID)); n != 1 {
		t.Fatalf("HNSW index missing after the load")
	}
	if n := f.count(t, `SELECT count(*) FROM query_embeddings WHERE encoder_id = $1 AND embedding IS NOT NULL AND text_hash IS NOT NULL`, row.ID); n != 6 {
		t.Fatalf("stored %d query vectors, want 6 (2 whole queries + 4 atoms)", n)
	}

	// Second run: nothing changed, nothing encoded.
	rep, err = Dense(ctx, f.st, enc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Encoded != 0 || rep.Unchanged != len(corpus) || rep.QueryEncoded != 0 || rep.QueryTexts != 6 {
		t.Fatalf("second run: %+v", rep)
	}
	if got := enc.take(); len(got) != 0 {
		t.Fatalf("second run encoded %q", got)
	}

	// One document's text changes, one query loses an atom and another
	// changes one: exactly those are encoded again.
	f.putDocument(t, 7, corpus[7].title, corpus[7].body+" Jaundice is another sign.")
	f.putQuery(t, "q1", "birds of the Andes", "birds of the Andes")
	f.putQuery(t, "q2", "upper abdomen pain unrelated to liver issues", "upper abdomen pain", "liver problems")
	rep, err = Dense(ctx, f.st, enc, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := enc.take()
	wantTexts := []string{DocumentText(corpus[7].title, corpus[7].body+" Jaundice is another sign."), "birds of the Andes", "liver problems"}
	if rep.Encoded != 1 || rep.Unchanged != len(corpus)-1 || rep.QueryEncoded != 2 || rep.AtomsRemoved != 1 || strings.Join(got, "|") != strings.Join(wantTexts, "|") {
		t.Fatalf("after the edits: report %+v, encoded %q, want %q", rep, got, wantTexts)
	}
	if n := f.count(t, `SELECT count(*) FROM query_embeddings WHERE encoder_id = $1 AND query_id = $2`, row.ID, q1); n != 2 {
		t.Fatalf("q1 has %d vectors, want 2 (whole query + 1 atom)", n)
	}
	if n := f.count(t, `SELECT count(*) FROM query_embeddings WHERE encoder_id = $1 AND query_id = $2`, row.ID, q2); n != 3 {
		t.Fatalf("q2 has %d vectors, want 3", n)
	}

	// Acceptance: kNN over pgvector returns each document first when
	// queried with the document's own text.
	texts := make([]string, len(corpus))
	for i, d := range corpus {
		texts[i] = DocumentText(d.title, d.body)
	}
	texts[7] = wantTexts[0]
	vecs, err := static.Encode(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		res, err := f.st.NearestDocuments(ctx, f.project.ID, row, v, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].ExtID != docID(i) || res[0].Score < 0.999 {
			t.Errorf("kNN of %s's own text: %+v", docID(i), res)
		}
	}
}

func TestEncodeResumesAfterInterruption(t *testing.T) {
	ctx := context.Background()
	enc := &recorder{DenseEncoder: openStatic(t)}
	f := newFixture(t, len(corpus))

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt := Options{ProjectID: f.project.ID, Batch: 5, AfterBatch: func(done, total int) {
		if done == 5 {
			cancel() // "Ctrl-C" once the first batch is committed
		}
	}}
	rep, err := Dense(runCtx, f.st, enc, opt)
	if !errors.Is(err, context.Canceled) || !rep.Interrupted || rep.Encoded != 5 || rep.DocumentsLeft != len(corpus)-5 {
		t.Fatalf("interrupted run: err %v, report %+v", err, rep)
	}
	row, err := f.st.EncoderByName(ctx, encoders.MiniLMStatic)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := f.st.CountEmbeddings(ctx, f.project.ID, row.ID); n != 5 {
		t.Fatalf("%d embeddings stored by the interrupted run, want 5", n)
	}
	first := enc.take()

	opt.AfterBatch = nil
	rep, err = Dense(ctx, f.st, enc, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Encoded != len(corpus)-5 || rep.Unchanged != 5 {
		t.Fatalf("resumed run: %+v", rep)
	}
	if n, _ := f.st.CountEmbeddings(ctx, f.project.ID, row.ID); n != len(corpus) {
		t.Fatalf("%d embeddings after resuming, want %d", n, len(corpus))
	}
	// Only the batches in flight when the run stopped (read ahead, not
	// committed) are encoded again: at most two batches, and never a
	// committed document.
	committed := map[string]bool{}
	for _, s := range first[:5] {
		committed[s] = true
	}
	inFirst := map[string]bool{}
	for _, s := range first {
		inFirst[s] = true
	}
	again := 0
	for _, s := range enc.take() {
		if committed[s] {
			t.Errorf("committed document encoded again: %q", s)
		}
		if inFirst[s] {
			again++
		}
	}
	if again > 2*opt.Batch {
		t.Errorf("%d documents encoded again after resuming, want at most the %d read ahead", again, 2*opt.Batch)
	}
}

// fakeEncoder is a deterministic dense encoder whose model hash and
// dimension the test controls.
type fakeEncoder struct {
	dim  int
	hash string
}

func (e fakeEncoder) Name() string { return "fake" }
func (e fakeEncoder) Dim() int     { return e.dim }
func (e fakeEncoder) Info() (encoders.ModelInfo, error) {
	return encoders.ModelInfo{Name: "fake", Dim: e.dim, Pooling: "mean", Normalize: "l2", SHA256: e.hash}, nil
}

func (e fakeEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		v := make([]float32, e.dim)
		var norm float64
		for j := range v {
			h := fnv.New32a()
			fmt.Fprintf(h, "%s|%d|%s", e.hash, j, s)
			v[j] = float32(h.Sum32()%1000)/500 - 1
			norm += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out, ctx.Err()
}

func TestModelChangeReembedsEverything(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, 8)
	f.putQuery(t, "q", "pain but not liver", "pain", "liver")
	opt := Options{ProjectID: f.project.ID, Batch: 3, Queries: true}

	steps := []struct {
		name      string
		enc       fakeEncoder
		force     bool // Options.Reset
		wantReset bool
		wantDocs  int
	}{
		{"first model", fakeEncoder{dim: 8, hash: "aaa"}, false, false, 8},
		{"same model", fakeEncoder{dim: 8, hash: "aaa"}, false, false, 0},
		{"new weights", fakeEncoder{dim: 8, hash: "bbb"}, false, true, 8},
		{"new dimension", fakeEncoder{dim: 4, hash: "ccc"}, false, true, 8},
		{"unchanged again", fakeEncoder{dim: 4, hash: "ccc"}, false, false, 0},
		{"forced re-embedding", fakeEncoder{dim: 4, hash: "ccc"}, true, false, 8},
	}
	// An open snapshot elsewhere keeps deleted vectors "recently dead": an
	// index build still reads them, which must not break a dimension change.
	snap, err := f.st.Pool().BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Rollback(ctx) //nolint:errcheck // read-only
	if _, err := snap.Exec(ctx, `SELECT count(*) FROM projects`); err != nil {
		t.Fatal(err)
	}
	prevID := 0
	for _, s := range steps {
		opt.Reset = s.force
		rep, err := Dense(ctx, f.st, s.enc, opt)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if rep.Reset != s.wantReset || rep.Encoded != s.wantDocs {
			t.Fatalf("%s: report %+v, want reset %v and %d documents encoded", s.name, rep, s.wantReset, s.wantDocs)
		}
		if rep.Encoder.ModelHash != s.enc.hash || rep.Encoder.Dim != s.enc.dim {
			t.Fatalf("%s: encoder row %+v", s.name, rep.Encoder)
		}
		if (rep.Encoder.ID != prevID) != (s.wantReset || prevID == 0) {
			t.Fatalf("%s: encoder id %d after %d: a changed model gets a new row, an unchanged one keeps it", s.name, rep.Encoder.ID, prevID)
		}
		prevID = rep.Encoder.ID
		if n := f.count(t, `SELECT count(*) FROM embeddings WHERE encoder_id = $1 AND vector_dims(embedding) = $2`, rep.Encoder.ID, s.enc.dim); n != 8 {
			t.Fatalf("%s: %d vectors of dimension %d, want 8", s.name, n, s.enc.dim)
		}
		if n := f.count(t, `SELECT count(*) FROM query_embeddings WHERE encoder_id = $1 AND vector_dims(embedding) = $2`, rep.Encoder.ID, s.enc.dim); n != 3 {
			t.Fatalf("%s: %d query vectors of dimension %d, want 3", s.name, n, s.enc.dim)
		}
		// The index follows the dimension: kNN with the current model works.
		v, _ := s.enc.Encode(ctx, []string{DocumentText(corpus[2].title, corpus[2].body)})
		res, err := f.st.NearestDocuments(ctx, f.project.ID, rep.Encoder, v[0], 1)
		if err != nil || len(res) != 1 || res[0].ExtID != docID(2) {
			t.Fatalf("%s: kNN %+v, %v", s.name, res, err)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM encoders`); n != 1 {
		t.Fatalf("%d encoder rows, want 1", n)
	}
}

func TestLexicalSparseVectors(t *testing.T) {
	ctx := context.Background()
	tok, err := encoders.LoadTokenizer("")
	if errors.Is(err, encoders.ErrNotInstalled) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, len(corpus))
	q := f.putQuery(t, "q", "espresso coffee beans", "espresso", "coffee beans")
	opt := Options{ProjectID: f.project.ID, Batch: 7, Queries: true}
	rep, err := Lexical(ctx, f.st, tok, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Encoded != len(corpus) || rep.Encoder.Kind != "sparse" || rep.Encoder.Dim != tok.VocabSize() || rep.QueryEncoded != 3 || rep.IndexBuilt {
		t.Fatalf("lexical run: %+v", rep)
	}
	if n := f.count(t, `SELECT count(*) FROM sparse_embeddings WHERE encoder_id = $1`, rep.Encoder.ID); n != len(corpus) {
		t.Fatalf("%d sparse vectors, want %d", n, len(corpus))
	}
	// The query's best match by inner product is the espresso document.
	var best string
	err = f.st.Pool().QueryRow(ctx, `SELECT d.ext_id FROM sparse_embeddings e JOIN documents d ON d.id = e.document_id,
			query_embeddings q
		WHERE e.encoder_id = $1 AND q.encoder_id = $1 AND q.query_id = $2 AND q.atom = -1
		ORDER BY e.embedding <#> q.sparse, d.ext_id LIMIT 1`, rep.Encoder.ID, q).Scan(&best)
	if err != nil || best != docID(10) {
		t.Fatalf("best lexical match %q (%v), want %s", best, err, docID(10))
	}

	rep, err = Lexical(ctx, f.st, tok, opt)
	if err != nil || rep.Encoded != 0 || rep.QueryEncoded != 0 {
		t.Fatalf("second lexical run: %+v, %v", rep, err)
	}
	// A changed document changes the collection statistics: its vector and
	// every query vector (whose idf moved) are recomputed.
	f.putDocument(t, 3, corpus[3].title, "Coffee beans roasted dark.")
	rep, err = Lexical(ctx, f.st, tok, opt)
	if err != nil || rep.Encoded != 1 || rep.QueryEncoded != 3 {
		t.Fatalf("lexical run after an edit: %+v, %v", rep, err)
	}
}

// failingEncoder fails on its call number failAt (1-based).
type failingEncoder struct {
	fakeEncoder
	mu     sync.Mutex
	calls  int
	failAt int
}

var errEncoderBroke = errors.New("encoder broke")

func (e *failingEncoder) Encode(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	if n == e.failAt {
		return nil, errEncoderBroke
	}
	return e.fakeEncoder.Encode(ctx, texts)
}

// TestEncoderErrorStopsThePipeline: an encoder failing mid-run ends the run
// with its error (not as an interruption), every stage goroutine joined,
// and only whole batches committed before the failure are stored.
func TestEncoderErrorStopsThePipeline(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, len(corpus))
	enc := &failingEncoder{fakeEncoder: fakeEncoder{dim: 8, hash: "h1"}, failAt: 3}
	rep, err := Dense(ctx, f.st, enc, Options{ProjectID: f.project.ID, Batch: 2})
	if !errors.Is(err, errEncoderBroke) || errors.Is(err, context.Canceled) || rep.Interrupted {
		t.Fatalf("err %v, interrupted %v; want the encoder's error alone (not the stopped fetcher's cancellation)", err, rep.Interrupted)
	}
	row, err := f.st.EncoderByName(ctx, "fake")
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.st.CountEmbeddings(ctx, f.project.ID, row.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n != rep.Encoded || n > 4 || n%2 != 0 {
		t.Fatalf("%d embeddings stored, report says %d; want the whole batches before the third (at most 4)", n, rep.Encoded)
	}
	// The run can be resumed: the rest is encoded by a working encoder.
	enc.failAt = 0
	rep, err = Dense(ctx, f.st, enc, Options{ProjectID: f.project.ID, Batch: 2})
	if err != nil || rep.Encoded != len(corpus)-n {
		t.Fatalf("resumed: err %v, encoded %d, want %d", err, rep.Encoded, len(corpus)-n)
	}
}
