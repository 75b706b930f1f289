// Package export writes a project's data in the conventional formats:
// QUEST jsonl (queries, or documents), BEIR (a directory), TREC topics,
// qrels and runs, and CSV of raw judgments. Everything streams from the
// database straight to the writer.
package export

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"boolpool/server/consensus"
	"boolpool/server/store"
	"boolpool/server/trecfmt"
	"boolpool/server/vocab"
)

// Formats lists the accepted --format names. beir writes a directory.
func Formats() []string {
	return []string{"quest", "quest-documents", "beir", "trec-topics", "trec-qrels", "trec-run", "csv", "qrels-consensus", "quest-judged", "boolq", "nevir", "qrels-derived", "quest-variants", "idmap"}
}

// Options select what to export.
type Options struct {
	Run string // trec-run: the run's name
	// Consensus is how qrels-consensus and quest-judged turn votes into
	// labels: "majority" (the default, the stored consensus) or
	// "dawid-skene" (reliability-weighted, consensus.DawidSkeneDecisions).
	Consensus string
	// Qrels is which labels qrels-consensus, quest-judged and beir
	// export: direct ("" too), derived or both (derived_mode.go,
	// beir_derived.go).
	Qrels string
	// ZipRoot is the directory inside the zip of a multi-file format
	// (WriteSnapshot), e.g. "birds-beir".
	ZipRoot string
}

// Counts says how much was written.
type Counts struct {
	Queries   int `json:"queries"`
	Documents int `json:"documents"`
	Qrels     int `json:"qrels"`
	Lines     int `json:"lines"`
	Judgments int `json:"judgments,omitempty"` // quest-judged: judgments behind the ratings
}

// MultiFile reports whether a format writes a directory.
func MultiFile(format string) bool { return format == "beir" }

// Write exports one single-file format to w.
func Write(ctx context.Context, st *store.Store, projectID int64, format string, w io.Writer, opt Options) (Counts, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	var c Counts
	var err error
	if err := CheckOptions(opt); err != nil {
		return c, err
	}
	switch format {
	case "quest":
		c, err = questQueries(ctx, st, projectID, bw)
	case "quest-documents":
		c, err = questDocuments(ctx, st, projectID, bw)
	case "trec-topics":
		c, err = trecTopics(ctx, st, projectID, bw)
	case "trec-qrels":
		c, err = trecQrels(ctx, st, projectID, bw)
	case "trec-run":
		c, err = trecRun(ctx, st, projectID, opt.Run, bw)
	case "csv":
		c, err = judgmentsCSV(ctx, st, projectID, bw)
	case "qrels-consensus":
		if opt.Qrels == vocab.QrelsDerived || opt.Qrels == vocab.QrelsBoth {
			c, err = consensusQrelsMode(ctx, st, projectID, opt.Consensus, opt.Qrels, bw)
		} else {
			c, err = consensusQrels(ctx, st, projectID, opt.Consensus, bw)
		}
	case "quest-judged":
		c, err = questJudged(ctx, st, projectID, opt.Consensus, opt.Qrels, bw)
	case "boolq":
		c, err = boolqQueries(ctx, st, projectID, bw)
	case "nevir":
		c, err = nevirPairs(ctx, st, projectID, bw)
	case "qrels-derived": // issue 13, derived.go
		c, err = derivedQrels(ctx, st, projectID, opt.Consensus, bw)
	case "quest-variants": // issue 13, derived.go
		c, err = questVariants(ctx, st, projectID, bw)
	case "idmap": // issue 25, trecids.go
		c, err = idMapFile(ctx, st, projectID, bw)
	case "beir":
		return c, fmt.Errorf("export: beir writes a directory: pass --out DIR")
	default:
		return c, fmt.Errorf("export: unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))
	}
	if err != nil {
		return c, err
	}
	if err := bw.Flush(); err != nil {
		return c, fmt.Errorf("export: %w", err)
	}
	return c, nil
}

// consensusGrades are the consensus labels by method (eachConsensusQrel)
// as query ext id → document ext id → grade.
func consensusGrades(ctx context.Context, st *store.Store, projectID int64, method string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	err := eachConsensusQrel(ctx, st, projectID, method, func(r store.ConsensusQrel) error {
		if out[r.QueryExtID] == nil {
			out[r.QueryExtID] = map[string]int{}
		}
		out[r.QueryExtID][r.DocExtID] = r.Relevance
		return nil
	})
	return out, err
}

// eachConsensusQrel streams the consensus labels by method: the stored
// (majority) consensus, or with method dawid-skene the same items in the
// same order, each labelled by consensus.DawidSkeneDecisions.
func eachConsensusQrel(ctx context.Context, st *store.Store, projectID int64, method string, fn func(store.ConsensusQrel) error) error {
	if method != consensus.MethodDawidSkene {
		return st.EachConsensusQrel(ctx, projectID, fn)
	}
	ds, _, err := consensus.DawidSkeneDecisions(ctx, st, projectID)
	if err != nil {
		return err
	}
	return st.EachConsensusQrel(ctx, projectID, func(r store.ConsensusQrel) error {
		if d, ok := ds[r.ItemID]; ok {
			r.Relevance = d.Relevance
		}
		return fn(r)
	})
}

// consensusQrels writes qrels-consensus (the end of a judgment's trace,
// ARCHITECTURE.md): consensus.Current first brings the stored consensus up
// to date with every stored judgment, then the labels stream from it.
func consensusQrels(ctx context.Context, st *store.Store, projectID int64, method string, w *bufio.Writer) (Counts, error) {
	if err := consensus.Current(ctx, st, projectID); err != nil {
		return Counts{}, err
	}
	return writeQrels(ctx, st, projectID, w, func(put func(query, doc string, rel int) error) error {
		return eachConsensusQrel(ctx, st, projectID, method, func(r store.ConsensusQrel) error {
			return put(r.QueryExtID, r.DocExtID, r.Relevance)
		})
	})
}

// countingHash counts and hashes what passes through to w.
type countingHash struct {
	w io.Writer
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.h.Write(p[:n])
	c.n += int64(n)
	return n, err
}

// WriteSnapshot exports a format to w like Write (a multi-file format as
// a zip, WriteZip, under the directory opt.ZipRoot) and records
// the export in export_snapshots under id (a new UUID when ""), with its
// counts, size and SHA-256, so that a paper can cite the exact version.
// userID 0 = the command line.
func WriteSnapshot(ctx context.Context, st *store.Store, projectID int64, format string, w io.Writer, opt Options, id string, userID int64) (Snapshot, error) {
	if id == "" {
		id = vocab.NewUUID()
	}
	ch := &countingHash{w: w, h: sha256.New()}
	var c Counts
	var err error
	if MultiFile(format) {
		c, err = WriteZip(ctx, st, projectID, format, opt, ch)
	} else {
		c, err = Write(ctx, st, projectID, format, ch, opt)
	}
	if err != nil {
		// Recorded with its reason, so the admin's export list shows it
		// (a download the client abandoned is recorded too: its context
		// is cancelled, the record's is not).
		if rerr := st.RecordExportFailure(context.WithoutCancel(ctx), id, projectID, format, err.Error(), userID); rerr != nil {
			return Snapshot{}, errors.Join(err, rerr)
		}
		return Snapshot{}, err
	}
	snap := Snapshot{ID: id, Format: format, Counts: c, Bytes: ch.n, SHA256: hex.EncodeToString(ch.h.Sum(nil))}
	rec, err := st.RecordExportSnapshot(ctx, id, projectID, format, map[string]any{
		"queries": c.Queries, "documents": c.Documents, "qrels": c.Qrels, "lines": c.Lines, "judgments": c.Judgments,
		"bytes": snap.Bytes, "sha256": snap.SHA256, "run": opt.Run, "consensus": opt.Consensus, "qrels_mode": opt.Qrels,
	}, userID)
	if err != nil {
		return snap, err
	}
	snap.CreatedAt = rec.CreatedAt
	return snap, nil
}

// WriteDir exports a multi-file format into dir (created if needed).
// opt.Qrels chooses BEIR's qrels (beir_derived.go); opt.Consensus the
// direct labels' method when derived labels are combined with them.
func WriteDir(ctx context.Context, st *store.Store, projectID int64, format, dir string, opt Options) (Counts, error) {
	if format != "beir" {
		return Counts{}, fmt.Errorf("export: %s is a single-file format", format)
	}
	files, err := beirFiles(opt)
	if err != nil {
		return Counts{}, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "qrels"), 0o755); err != nil {
		return Counts{}, fmt.Errorf("export: %w", err)
	}
	var total Counts
	for _, f := range files {
		c, err := writeFile(filepath.Join(dir, filepath.FromSlash(f.path)), func(w *bufio.Writer) (Counts, error) { return f.fn(ctx, st, projectID, w) })
		if err != nil {
			return total, err
		}
		total.add(c)
	}
	return total, nil
}

// add sums the counts of one file of a multi-file export into c.
func (c *Counts) add(o Counts) {
	c.Documents += o.Documents
	c.Queries += o.Queries
	c.Qrels += o.Qrels
	c.Lines += o.Lines
}

// beirFile is one file of a BEIR export, its path slash-separated.
type beirFile struct {
	path string
	fn   func(context.Context, *store.Store, int64, *bufio.Writer) (Counts, error)
}

// beirFiles are the files of a BEIR export: corpus, queries and the test
// split's qrels; with qrels derived or both, the qrels come from
// beirQrelsMode and a sidecar qrels/test.source.tsv says each qrel's
// source (BEIR's qrels TSV has fixed columns).
func beirFiles(opt Options) ([]beirFile, error) {
	if err := CheckOptions(opt); err != nil {
		return nil, err
	}
	files := []beirFile{{"corpus.jsonl", beirCorpus}, {"queries.jsonl", beirQueries}}
	if opt.Qrels == "" || opt.Qrels == vocab.QrelsDirect {
		return append(files, beirFile{"qrels/test.tsv", beirQrels}), nil
	}
	// The qrels and their sources are computed once and written as two
	// files; the sidecar's lines follow the qrels file's, one for one.
	var rows []beirQrel
	qrels := func(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
		var err error
		if rows, err = beirQrelsMode(ctx, st, projectID, opt.Consensus, opt.Qrels); err != nil {
			return Counts{}, err
		}
		return writeBEIRQrels(w, rows, false)
	}
	sources := func(_ context.Context, _ *store.Store, _ int64, w *bufio.Writer) (Counts, error) {
		c, err := writeBEIRQrels(w, rows, true)
		c.Qrels = 0 // the same qrels, counted once
		return c, err
	}
	return append(files, beirFile{"qrels/test.tsv", qrels}, beirFile{"qrels/" + BEIRSourceSidecar("test"), sources}), nil
}

// writeFile writes to a temporary file and renames it into place, so a
// failed export never leaves a truncated file behind.
func writeFile(path string, fn func(*bufio.Writer) (Counts, error)) (Counts, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return Counts{}, fmt.Errorf("export: %w", err)
	}
	defer os.Remove(tmp.Name())
	bw := bufio.NewWriterSize(tmp, 1<<16)
	c, err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c, fmt.Errorf("export %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return c, fmt.Errorf("export: %w", err)
	}
	return c, nil
}

// jsonString encodes s as JSON without HTML escaping (QUEST's <mark> tags
// stay readable).
func jsonValue(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// member is one key and its raw JSON value.
type member struct {
	key string
	raw []byte
}

// writeObject writes one JSON object, members in order, as a line.
func writeObject(w io.Writer, ms ...member) error {
	b := []byte{'{'}
	for i, m := range ms {
		b = field(b, i == 0, m.key, m.raw)
	}
	b = append(b, "}\n"...)
	_, err := w.Write(b)
	return err
}

// field appends `"key": value` to an object under construction.
func field(b []byte, first bool, key string, raw []byte) []byte {
	if !first {
		b = append(b, ", "...)
	}
	b = append(b, jsonValue(key)...)
	b = append(b, ": "...)
	return append(b, raw...)
}

func questQueries(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	err := st.EachQuery(ctx, projectID, func(q store.Query) error {
		q, qerr := withStoredExpression(q)
		if qerr != nil {
			return qerr
		}
		return writeQuestLine(w, &c, q, q.AnswerDocs, q.Metadata)
	})
	return c, err
}

// decodeOrdered reads a flat JSON object keeping its key order.
func decodeOrdered(raw []byte, keys *[]string, vals map[string]json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*keys = append(*keys, k)
		vals[k] = v
	}
	return nil
}

func questDocuments(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	err := st.EachDocument(ctx, projectID, func(d store.Document) error {
		c.Documents++
		c.Lines++
		return writeObject(w, member{"title", jsonValue(d.ExtID)}, member{"text", jsonValue(d.Body)})
	})
	return c, err
}

func beirCorpus(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	err := st.EachDocument(ctx, projectID, func(d store.Document) error {
		md := d.Metadata
		if len(md) == 0 {
			md = json.RawMessage(`{}`)
		}
		c.Documents++
		c.Lines++
		return writeObject(w, member{"_id", jsonValue(d.ExtID)}, member{"title", jsonValue(d.Title)},
			member{"text", jsonValue(d.Body)}, member{"metadata", md})
	})
	return c, err
}

func beirQueries(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	err := st.EachQuery(ctx, projectID, func(q store.Query) error {
		md := map[string]any{}
		if q.Template != "" {
			md["template"] = q.Template
		}
		if q.Domain != "" {
			md["domain"] = q.Domain
		}
		if q.Split != "" {
			md["split"] = q.Split
		}
		if q.OriginalQuery != "" {
			md["original_query"] = q.OriginalQuery
		}
		if len(q.Expression) > 0 {
			md["expression"] = json.RawMessage(q.Expression)
		}
		c.Queries++
		c.Lines++
		return writeObject(w, member{"_id", jsonValue(q.ExtID)}, member{"text", jsonValue(q.Text)}, member{"metadata", jsonValue(md)})
	})
	return c, err
}

func beirQrels(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	if _, err := w.WriteString("query-id\tcorpus-id\tscore\n"); err != nil {
		return c, err
	}
	err := st.EachMergedQrel(ctx, projectID, "positive", func(r store.Qrel) error {
		c.Qrels++
		c.Lines++
		_, err := fmt.Fprintf(w, "%s\t%s\t%d\n", r.QueryExtID, r.DocExtID, r.Relevance)
		return err
	})
	return c, err
}

func trecTopics(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	ids, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return c, err
	}
	tw := trecfmt.NewTopicsWriter(w)
	err = st.EachQuery(ctx, projectID, func(q store.Query) error {
		c.Queries++
		c.Lines++
		return tw.Write(trecfmt.Topic{ID: ids.Queries.Encode(q.ExtID), Title: oneLine(q.Text)})
	})
	if err != nil {
		return c, err
	}
	return c, tw.Flush()
}

func trecQrels(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	return writeQrels(ctx, st, projectID, w, func(put func(query, doc string, rel int) error) error {
		return st.EachMergedQrel(ctx, projectID, "positive", func(r store.Qrel) error {
			return put(r.QueryExtID, r.DocExtID, r.Relevance)
		})
	})
}

func trecRun(ctx context.Context, st *store.Store, projectID int64, name string, w *bufio.Writer) (Counts, error) {
	var c Counts
	if name == "" {
		return c, errors.New("export: trec-run needs --run NAME")
	}
	runID, err := st.RunIDByName(ctx, projectID, name)
	if err != nil {
		return c, err
	}
	ids, err := ProjectIDMaps(ctx, st, projectID)
	if err != nil {
		return c, err
	}
	tag := trecfmt.EncodeID(name)
	rw := trecfmt.NewRunWriter(w)
	err = st.EachRunRow(ctx, runID, func(r store.RunRow) error {
		c.Lines++
		return rw.Write(trecfmt.RunLine{QueryID: ids.Queries.Encode(r.QueryExtID), Iter: "Q0", DocID: ids.Docs.Encode(r.DocExtID), Rank: r.Rank, Score: r.Score, Tag: tag})
	})
	if err != nil {
		return c, err
	}
	return c, rw.Flush()
}

func judgmentsCSV(ctx context.Context, st *store.Store, projectID int64, w *bufio.Writer) (Counts, error) {
	var c Counts
	cw := csv.NewWriter(w)
	header := []string{"judgment_id", "client_id", "kind", "query_id", "doc_id", "annotator", "relevance", "evidence",
		"attributions", "payload", "contradiction", "comment", "skip_reason", "time_spent_ms", "supersedes", "is_gold", "created_at"}
	if err := cw.Write(header); err != nil {
		return c, err
	}
	err := st.EachJudgment(ctx, projectID, func(j store.JudgmentRow) error {
		rel, ev, sup := "", "", ""
		if j.Relevance != nil {
			rel = strconv.Itoa(int(*j.Relevance))
		}
		if j.Evidence != nil {
			ev = *j.Evidence
		}
		if j.Supersedes != nil {
			sup = strconv.FormatInt(*j.Supersedes, 10)
		}
		c.Lines++
		return cw.Write(csvSafe([]string{strconv.FormatInt(j.JudgmentID, 10), j.ClientID, j.Kind, j.QueryExtID, j.DocExtID, j.Username,
			rel, ev, string(j.Attributions), string(j.Payload), strconv.FormatBool(j.Contradiction), j.Comment, j.SkipReason,
			strconv.Itoa(j.TimeSpentMS), sup, strconv.FormatBool(j.IsGold), j.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z")}))
	})
	if err != nil {
		return c, err
	}
	cw.Flush()
	return c, cw.Error()
}

// csvSafe neutralises cells a spreadsheet would run as a formula (OWASP
// CSV injection): a cell starting with =, +, -, @, a tab or a carriage
// return gets a leading single quote, unless it is a plain number (a
// negative grade stays a number). It changes cells in place and returns
// them. Only CSV exports, which are opened in spreadsheets, use it; the
// TSV and TREC formats are read by programs and stay exact.
func csvSafe(cells []string) []string {
	for i, s := range cells {
		if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
			continue
		}
		if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "\t\r") {
			continue
		}
		cells[i] = "'" + s
	}
	return cells
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
