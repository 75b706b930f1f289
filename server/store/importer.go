package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ImportCounts says what one import wrote: rows, each counted once
// however often the file gave it.
type ImportCounts struct {
	Documents  int `json:"documents"`
	Queries    int `json:"queries"`
	Qrels      int `json:"qrels"`
	RunResults int `json:"run_results"`
	// Duplicates counts the records that gave a row the file had given
	// before (a document, query or qrel with the same key): the last one
	// wins, and the row is written once.
	Duplicates int `json:"duplicates"`
}

// MaxDuplicateLines is how many lines of repeated records an import
// reports (Importer.DuplicateLines).
const MaxDuplicateLines = 5

// Importer writes the content of one input file inside one transaction, so
// that a bad line leaves nothing behind. Rows are upserted by external id,
// which makes re-importing the same file idempotent.
//
// A file that gives the same row many times (the same document, query or
// qrel) costs what a file giving it once does: the last record wins and the
// row is written at most twice, never once per record (issue 29: each
// ON CONFLICT … DO UPDATE of a row updated before in the same transaction
// walks a longer version chain, so per-record upserts were quadratic).
// Documents are collapsed in memory per batch, and a document met again
// after its batch was written is staged and written once at the end;
// queries written before keep their id and their last version is written
// at the end; qrels are staged with COPY and written once at the end.
type Importer struct {
	tx        pgx.Tx
	projectID int64
	batch     *pgx.Batch
	docs      []DocumentIn
	docLines  []int          // the line of each of docs
	docIndex  map[string]int // ext id -> position in docs (last one wins)
	staged    bool           // the COPY staging table exists
	queryIDs  map[string]int64
	written   map[string]int64   // queries written by this import: ext id -> id
	pending   map[string]QueryIn // repeated queries: the last version, written at the end
	runIDs    map[string]int64
	runLines  *stage // RunResult lines
	qrels     *stage // Qrel calls
	replaced  map[qrelGroup]int64
	seq       int64 // orders staged qrels and qrel replacements
	line      int   // the input line of the record being written (At)
	dupLines  []int
	Counts    ImportCounts
}

// qrelGroup is the qrels ReplaceQrels deletes: one query's of one source.
type qrelGroup struct {
	queryID int64
	source  string
}

// At tells the importer the input line of the record it is about to be
// given, for the duplicates report (0 = unknown).
func (im *Importer) At(line int) { im.line = line }

// Repeated counts n records the caller collapsed itself (e.g. passages
// repeated within one record) as duplicates at the line given to At.
func (im *Importer) Repeated(n int) {
	if n > 0 {
		im.Counts.Duplicates += n
		im.addDupLines(im.line)
	}
}

// duplicate counts a repeated record at line.
func (im *Importer) duplicate(line int) {
	im.Counts.Duplicates++
	im.addDupLines(line)
}

// addDupLines keeps the smallest MaxDuplicateLines distinct lines.
func (im *Importer) addDupLines(lines ...int) {
	for _, l := range lines {
		if l <= 0 || slices.Contains(im.dupLines, l) {
			continue
		}
		im.dupLines = append(im.dupLines, l)
		slices.Sort(im.dupLines)
		if len(im.dupLines) > MaxDuplicateLines {
			im.dupLines = im.dupLines[:MaxDuplicateLines]
		}
	}
}

// DuplicateLines returns the first lines (at most MaxDuplicateLines, in
// order) of records that repeated an earlier one; see Counts.Duplicates.
func (im *Importer) DuplicateLines() []int { return slices.Clone(im.dupLines) }

const importBatchSize = 1000

// Import runs fn with an Importer in one transaction and commits only if
// fn (and the final flush) succeed.
func (s *Store) Import(ctx context.Context, projectID int64, fn func(im *Importer) error) (ImportCounts, error) {
	counts, _, err := s.ImportReport(ctx, projectID, fn)
	return counts, err
}

// ImportReport is Import that also returns the first lines of repeated
// records (Importer.DuplicateLines), as given to Importer.At.
func (s *Store) ImportReport(ctx context.Context, projectID int64, fn func(im *Importer) error) (ImportCounts, []int, error) {
	var counts ImportCounts
	var dupLines []int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		im := &Importer{tx: tx, projectID: projectID, batch: &pgx.Batch{}, runIDs: map[string]int64{}, docIndex: map[string]int{},
			written: map[string]int64{}, pending: map[string]QueryIn{}, replaced: map[qrelGroup]int64{},
			runLines: newStage("run results", "import_run_results",
				"run_id bigint", "query_id bigint", "doc_ext_id text", "rank int", "score double precision", "seq bigint"),
			qrels: newStage("qrels", "import_qrels",
				"query_id bigint", "doc_ext_id text", "relevance int", "kind text", "source text", "line int", "seq bigint")}
		if err := fn(im); err != nil {
			return err
		}
		if err := im.flush(ctx); err != nil {
			return err
		}
		if err := im.finishDocuments(ctx); err != nil {
			return err
		}
		if err := im.finishQueries(ctx); err != nil {
			return err
		}
		if err := im.finishQrels(ctx); err != nil {
			return err
		}
		if err := im.finishRunResults(ctx); err != nil {
			return err
		}
		counts, dupLines = im.Counts, im.DuplicateLines()
		return nil
	})
	return counts, dupLines, err
}

func (im *Importer) queue(ctx context.Context, sql string, args ...any) error {
	im.batch.Queue(sql, args...)
	if im.batch.Len() >= importBatchSize {
		return im.flush(ctx)
	}
	return nil
}

func (im *Importer) flush(ctx context.Context) error {
	if err := im.flushDocuments(ctx); err != nil {
		return err
	}
	return im.flushBatch(ctx)
}

// flushBatch sends the queued statements.
func (im *Importer) flushBatch(ctx context.Context) error {
	if im.batch.Len() == 0 {
		return nil
	}
	b := im.batch
	im.batch = &pgx.Batch{}
	if err := im.tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("store: import batch: %w", err)
	}
	return nil
}

// DocumentIn is a document to import.
type DocumentIn struct {
	ExtID          string
	Title          string
	Body           string
	SentenceStarts []int32
	Metadata       json.RawMessage // nil = {}
}

// Document upserts a document; its content hash changes only when the
// title or body changes, so encoders can skip unchanged documents.
// Documents are buffered and written with COPY into a staging table, then
// merged with one INSERT … ON CONFLICT per batch: an order of magnitude
// faster than row-by-row upserts on a 60k-document corpus.
func (im *Importer) Document(ctx context.Context, d DocumentIn) error {
	if i, ok := im.docIndex[d.ExtID]; ok {
		im.docs[i] = d // a repeated id within one batch: the last one wins
		im.docLines[i] = im.line
		im.duplicate(im.line)
		return nil
	}
	im.Counts.Documents++
	im.docIndex[d.ExtID] = len(im.docs)
	im.docs = append(im.docs, d)
	im.docLines = append(im.docLines, im.line)
	if len(im.docs) >= 5000 {
		return im.flushDocuments(ctx)
	}
	return nil
}

// documentsUpsert writes the staged documents of src ($1 the project).
// Rows this transaction has written before (xmin is its own id: a
// document met again after its batch was written) are left alone and
// returned, so that each is written at most once more, at the end.
const documentsUpsert = `INSERT INTO documents (project_id, ext_id, title, body, sentence_starts, metadata, content_hash)
		SELECT $1, ext_id, title, body, sentence_starts, metadata, content_hash FROM %s
		ON CONFLICT (project_id, ext_id) DO UPDATE SET
			title = EXCLUDED.title, body = EXCLUDED.body, sentence_starts = EXCLUDED.sentence_starts,
			metadata = EXCLUDED.metadata, content_hash = EXCLUDED.content_hash,
			updated_at = CASE WHEN documents.content_hash = EXCLUDED.content_hash THEN documents.updated_at ELSE now() END
		%s`

func (im *Importer) flushDocuments(ctx context.Context) error {
	if len(im.docs) == 0 {
		return nil
	}
	if !im.staged {
		if _, err := im.tx.Exec(ctx, `CREATE TEMP TABLE import_documents
			(ext_id text, title text, body text, sentence_starts int[], metadata jsonb, content_hash bytea, line int, seq bigint) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("store: import staging: %w", err)
		}
		if _, err := im.tx.Exec(ctx, `CREATE TEMP TABLE import_documents_again (LIKE import_documents) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("store: import staging: %w", err)
		}
		im.staged = true
	}
	docs, lines := im.docs, im.docLines
	im.docs, im.docLines = nil, nil
	im.docIndex = map[string]int{}
	k := 0
	_, err := im.tx.CopyFrom(ctx, pgx.Identifier{"import_documents"},
		[]string{"ext_id", "title", "body", "sentence_starts", "metadata", "content_hash", "line", "seq"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if k >= len(docs) {
				return nil, nil
			}
			d := docs[k]
			k++
			im.seq++
			md := objectOrEmpty(d.Metadata)
			starts := nonNil(d.SentenceStarts)
			return []any{d.ExtID, d.Title, d.Body, starts, md, ContentHash(d.Title, d.Body), int32(lines[k-1]), im.seq}, nil
		}))
	if err != nil {
		return fmt.Errorf("store: import documents: %w", err)
	}
	_, err = im.tx.Exec(ctx, `WITH up AS (`+fmt.Sprintf(documentsUpsert, "import_documents",
		`WHERE documents.xmin <> pg_current_xact_id()::xid RETURNING ext_id`)+`)
		INSERT INTO import_documents_again SELECT s.* FROM import_documents s WHERE NOT EXISTS (SELECT 1 FROM up WHERE up.ext_id = s.ext_id)`,
		im.projectID)
	if err != nil {
		return fmt.Errorf("store: import documents: %w", err)
	}
	if _, err := im.tx.Exec(ctx, `TRUNCATE import_documents`); err != nil {
		return fmt.Errorf("store: import documents: %w", err)
	}
	return nil
}

// finishDocuments writes the last version of each document met again
// after its batch was written, once, and counts those records as
// duplicates.
func (im *Importer) finishDocuments(ctx context.Context) error {
	if !im.staged {
		return nil
	}
	var n int
	var lines []int32
	if err := im.tx.QueryRow(ctx, `SELECT count(*), coalesce((array_agg(line ORDER BY line))[1:$1], '{}') FROM import_documents_again`,
		MaxDuplicateLines).Scan(&n, &lines); err != nil {
		return fmt.Errorf("store: import documents: %w", err)
	}
	if n == 0 {
		return nil
	}
	im.Counts.Documents -= n
	im.Counts.Duplicates += n
	for _, l := range lines {
		im.addDupLines(int(l))
	}
	if _, err := im.tx.Exec(ctx, fmt.Sprintf(documentsUpsert,
		`(SELECT DISTINCT ON (ext_id) * FROM import_documents_again ORDER BY ext_id, seq DESC) last`, ""), im.projectID); err != nil {
		return fmt.Errorf("store: import documents: %w", err)
	}
	return nil
}

// QueryIn is a query to import.
type QueryIn struct {
	ExtID         string
	Text          string
	OriginalQuery string
	Template      string
	Domain        string
	Split         string
	Atoms         []Atom
	Expression    json.RawMessage // nil = unknown
	AnswerDocs    []string
	ScoresRaw     *string
	Metadata      json.RawMessage // nil = {}
	Extra         json.RawMessage // nil = {}
	Seq           int
}

// Query upserts a query and returns its id. A query this import wrote
// before keeps its id; its last version is written when the import ends.
func (im *Importer) Query(ctx context.Context, q QueryIn) (int64, error) {
	if id, ok := im.written[q.ExtID]; ok {
		im.pending[q.ExtID] = q
		im.duplicate(im.line)
		return id, nil
	}
	if err := im.flushBatch(ctx); err != nil {
		return 0, err
	}
	id, err := im.writeQuery(ctx, q)
	if err != nil {
		return 0, err
	}
	im.written[q.ExtID] = id
	if im.queryIDs != nil {
		im.queryIDs[q.ExtID] = id
	}
	im.Counts.Queries++
	return id, nil
}

// finishQueries writes the last version of each repeated query.
func (im *Importer) finishQueries(ctx context.Context) error {
	for _, q := range im.pending {
		if _, err := im.writeQuery(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (im *Importer) writeQuery(ctx context.Context, q QueryIn) (int64, error) {
	md := objectOrEmpty(q.Metadata)
	extra := objectOrEmpty(q.Extra)
	atoms := nonNil(q.Atoms)
	answers := nonNil(q.AnswerDocs)
	var expr any
	if q.Expression != nil {
		expr = q.Expression
	}
	var id int64
	err := im.tx.QueryRow(ctx, `INSERT INTO queries (project_id, ext_id, text, original_query, template, domain, split,
			atoms, expression, answer_docs, scores_raw, metadata, extra, seq)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT (project_id, ext_id) DO UPDATE SET
			text = EXCLUDED.text, original_query = EXCLUDED.original_query, template = EXCLUDED.template,
			domain = EXCLUDED.domain, split = EXCLUDED.split, atoms = EXCLUDED.atoms, expression = EXCLUDED.expression,
			answer_docs = EXCLUDED.answer_docs, scores_raw = EXCLUDED.scores_raw, metadata = EXCLUDED.metadata, extra = EXCLUDED.extra,
			seq = EXCLUDED.seq, updated_at = now()
		RETURNING id`,
		im.projectID, q.ExtID, q.Text, q.OriginalQuery, q.Template, q.Domain, q.Split,
		atoms, expr, answers, q.ScoresRaw, md, extra, q.Seq).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: import query %q: %w", q.ExtID, err)
	}
	return id, nil
}

// QueryID resolves a query's external id within the project (including
// queries written earlier in this transaction).
func (im *Importer) QueryID(ctx context.Context, extID string) (int64, bool, error) {
	if im.queryIDs == nil {
		if err := im.flush(ctx); err != nil {
			return 0, false, err
		}
		im.queryIDs = map[string]int64{}
		rows, _ := im.tx.Query(ctx, `SELECT ext_id, id FROM queries WHERE project_id = $1`, im.projectID)
		var e string
		var id int64
		if err := forEach(rows, "query ids", func() error { im.queryIDs[e] = id; return nil }, &e, &id); err != nil {
			return 0, false, err
		}
	}
	id, ok := im.queryIDs[extID]
	return id, ok, nil
}

// ReplaceQrels deletes the qrels of one source for a query, so that a
// re-import replaces rather than accumulates them; called again for the
// same query and source (a repeated record), it also drops the qrels the
// import was given for them so far.
func (im *Importer) ReplaceQrels(ctx context.Context, queryID int64, source string) error {
	g := qrelGroup{queryID, source}
	im.seq++
	_, again := im.replaced[g]
	im.replaced[g] = im.seq
	if again {
		return nil
	}
	return im.queue(ctx, `DELETE FROM qrels WHERE query_id = $1 AND source = $2`, queryID, source)
}

// Qrel adds one relevance label; kind is "positive" or "negative". Labels
// are staged and written when the import ends, once per (query, document,
// kind, source): the last one wins.
func (im *Importer) Qrel(ctx context.Context, queryID int64, docExtID string, relevance int, kind, source string) error {
	im.seq++
	return im.qrels.add(ctx, im.tx, queryID, docExtID, int32(relevance), kind, source, int32(im.line), im.seq)
}

// finishQrels writes the staged qrels: those given after the last
// ReplaceQrels of their query and source, the last of each key. Repeats
// among them count as duplicates.
func (im *Importer) finishQrels(ctx context.Context) error {
	if err := im.qrels.flush(ctx, im.tx); err != nil {
		return err
	}
	if !im.qrels.created {
		return nil
	}
	// Groups replaced more than once drop what came before their last
	// replacement (the first replacement precedes all their rows anyway).
	var cutQuery []int64
	var cutSource []string
	var cutSeq []int64
	for g, seq := range im.replaced {
		cutQuery, cutSource, cutSeq = append(cutQuery, g.queryID), append(cutSource, g.source), append(cutSeq, seq)
	}
	// nth counts a key's rows from the first (the repeats are nth > 1),
	// last from the last (the one written is last = 1).
	const kept = `SELECT s.*,
			row_number() OVER (PARTITION BY s.query_id, s.doc_ext_id, s.kind, s.source ORDER BY s.seq) AS nth,
			row_number() OVER (PARTITION BY s.query_id, s.doc_ext_id, s.kind, s.source ORDER BY s.seq DESC) AS last
		FROM import_qrels s LEFT JOIN unnest($1::bigint[], $2::text[], $3::bigint[]) c(query_id, source, seq)
			ON c.query_id = s.query_id AND c.source = s.source
		WHERE c.seq IS NULL OR s.seq > c.seq`
	var n int
	var lines []int32
	if err := im.tx.QueryRow(ctx, `SELECT count(*), coalesce((array_agg(line ORDER BY line))[1:$4], '{}') FROM (`+kept+`) k WHERE nth > 1`,
		cutQuery, cutSource, cutSeq, MaxDuplicateLines).Scan(&n, &lines); err != nil {
		return fmt.Errorf("store: import qrels: %w", err)
	}
	im.Counts.Duplicates += n
	for _, l := range lines {
		im.addDupLines(int(l))
	}
	tag, err := im.tx.Exec(ctx, `INSERT INTO qrels (project_id, query_id, doc_ext_id, relevance, kind, source)
		SELECT $4, query_id, doc_ext_id, relevance, kind, source FROM (`+kept+`) k WHERE last = 1
		ON CONFLICT (query_id, doc_ext_id, kind, source) DO UPDATE SET relevance = EXCLUDED.relevance`,
		cutQuery, cutSource, cutSeq, im.projectID)
	if err != nil {
		return fmt.Errorf("store: import qrels: %w", err)
	}
	im.Counts.Qrels += int(tag.RowsAffected())
	return nil
}

// Run creates (or empties, when re-imported) the run called name.
func (im *Importer) Run(ctx context.Context, name, method string, params json.RawMessage) (int64, error) {
	if id, ok := im.runIDs[name]; ok {
		return id, nil
	}
	if err := im.flush(ctx); err != nil {
		return 0, err
	}
	params = objectOrEmpty(params)
	var id int64
	err := im.tx.QueryRow(ctx, `INSERT INTO runs (project_id, name, method, params) VALUES ($1, $2, $3, $4)
		ON CONFLICT (project_id, name) DO UPDATE SET method = EXCLUDED.method, params = EXCLUDED.params, created_at = now()
		RETURNING id`, im.projectID, name, method, params).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: import run %q: %w", name, err)
	}
	if _, err := im.tx.Exec(ctx, `DELETE FROM run_rankings WHERE run_id = $1`, id); err != nil {
		return 0, fmt.Errorf("store: import run %q: %w", name, err)
	}
	im.runIDs[name] = id
	return id, nil
}

// RunResult adds one ranked line of a run. Lines are staged with COPY and
// become one ranking row per (run, query) when the import ends; a document
// given twice for a query keeps its last line.
func (im *Importer) RunResult(ctx context.Context, runID, queryID int64, docExtID string, rank int, score float64) error {
	im.Counts.RunResults++
	return im.runLines.add(ctx, im.tx, runID, queryID, docExtID, int32(rank), score, int64(im.Counts.RunResults))
}

// finishRunResults turns the staged run lines into rankings.
func (im *Importer) finishRunResults(ctx context.Context) error {
	if err := im.runLines.flush(ctx, im.tx); err != nil {
		return err
	}
	if !im.runLines.created {
		return nil
	}
	_, err := im.tx.Exec(ctx, `INSERT INTO run_rankings (run_id, query_id, doc_ext_ids, ranks, scores)
		SELECT run_id, query_id, array_agg(doc_ext_id ORDER BY rank, doc_ext_id),
			array_agg(rank ORDER BY rank, doc_ext_id), array_agg(score ORDER BY rank, doc_ext_id)
		FROM (SELECT DISTINCT ON (run_id, query_id, doc_ext_id) run_id, query_id, doc_ext_id, rank, score
			FROM import_run_results ORDER BY run_id, query_id, doc_ext_id, seq DESC) last
		GROUP BY run_id, query_id
		ON CONFLICT (run_id, query_id) DO UPDATE SET
			doc_ext_ids = EXCLUDED.doc_ext_ids, ranks = EXCLUDED.ranks, scores = EXCLUDED.scores`)
	if err != nil {
		return fmt.Errorf("store: import run results: %w", err)
	}
	if _, err := im.tx.Exec(ctx, `TRUNCATE import_run_results`); err != nil {
		return fmt.Errorf("store: import run results: %w", err)
	}
	return nil
}

// stage is a temporary table (dropped at commit) that an import copies
// rows into, 50,000 at a time, to write them from once when it ends.
type stage struct {
	what    string // names the rows in errors
	table   string
	columns []string // the column names, in the order of a row
	defs    string   // the columns' definitions
	rows    [][]any  // not copied yet
	created bool     // the table exists
}

// newStage describes a stage table; defs are "name type" column
// definitions.
func newStage(what, table string, defs ...string) *stage {
	s := &stage{what: what, table: table, defs: strings.Join(defs, ", ")}
	for _, d := range defs {
		name, _, _ := strings.Cut(d, " ")
		s.columns = append(s.columns, name)
	}
	return s
}

// add queues one row, copying the queued rows when there are 50,000.
func (s *stage) add(ctx context.Context, tx pgx.Tx, row ...any) error {
	s.rows = append(s.rows, row)
	if len(s.rows) >= 50000 {
		return s.flush(ctx, tx)
	}
	return nil
}

// flush copies the queued rows, creating the table first if needed.
func (s *stage) flush(ctx context.Context, tx pgx.Tx) error {
	if len(s.rows) == 0 {
		return nil
	}
	if !s.created {
		if _, err := tx.Exec(ctx, `CREATE TEMP TABLE `+s.table+` (`+s.defs+`) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("store: import %s staging: %w", s.what, err)
		}
		s.created = true
	}
	rows := s.rows
	s.rows = nil
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{s.table}, s.columns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("store: import %s: %w", s.what, err)
	}
	return nil
}
