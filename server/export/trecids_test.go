package export_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"boolpool/server/export"
	"boolpool/server/ingest"
	"boolpool/server/metrics"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
	"boolpool/server/trecfmt"
	"boolpool/server/vocab"
)

// questIDsProject is a QUEST-style project whose document ids are
// Wikipedia titles with spaces, including the collision "A b" / "A_b":
// imported qrels, a run and relevance judgments (hence consensus qrels).
func questIDsProject(t *testing.T, st *store.Store) store.Project {
	t.Helper()
	ctx := context.Background()
	p, err := st.EnsureProject(ctx, "questids")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"Merida wren", "A_b", "A b", "Plain", "100% pure\tx"}
	qids := map[string]int64{}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, d := range docs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d, Title: d, Body: d + " is a bird."}); err != nil {
				return err
			}
		}
		for i, q := range []string{"q1", "q2"} {
			id, err := im.Query(ctx, store.QueryIn{ExtID: q, Text: "birds of " + q, Seq: i + 1})
			if err != nil {
				return err
			}
			qids[q] = id
		}
		for _, r := range []struct {
			q, d string
			rel  int
		}{{"q1", "Merida wren", 1}, {"q1", "A b", 1}, {"q1", "A_b", 0}, {"q2", "A_b", 1}, {"q2", "100% pure\tx", 2}} {
			if err := im.Qrel(ctx, qids[r.q], r.d, r.rel, "positive", "qrels"); err != nil {
				return err
			}
		}
		run, err := im.Run(ctx, "bm25 test", "imported", nil)
		if err != nil {
			return err
		}
		for q, ranked := range map[string][]string{"q1": {"A_b", "Merida wren", "Plain", "A b"}, "q2": {"100% pure\tx", "A b", "A_b"}} {
			for i, d := range ranked {
				if err := im.RunResult(ctx, run, qids[q], d, i+1, float64(10-i)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.CreateUser(ctx, store.NewUser{Username: "rater", Role: vocab.RoleAnnotator})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range []struct {
		q, d string
		rel  int16
	}{{"q1", "Merida wren", 2}, {"q1", "A b", 0}, {"q1", "A_b", 3}, {"q2", "A b", 1}} {
		d, err := st.DocumentByExtID(ctx, p.ID, j.d)
		if err != nil {
			t.Fatal(err)
		}
		it, err := st.CreateItem(ctx, store.NewItem{ProjectID: p.ID, Kind: vocab.KindRelevance, QueryID: qids[j.q], DocumentID: &d.ID})
		if err != nil {
			t.Fatal(err)
		}
		rel, ev := j.rel, vocab.EvidenceComplete
		if _, _, err := st.SaveJudgment(ctx, store.NewJudgment{ClientID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), ItemID: it.ID,
			UserID: u.ID, ProjectID: p.ID, Kind: vocab.KindRelevance, Relevance: &rel, Evidence: &ev}); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// TestTRECExportsEncodeIDs (issue 25): every TREC-shaped export of a
// project with spaced ids succeeds, every line splits into the format's
// fields, the tokens decode to distinct ids of the project (the
// collision "A b"/"A_b" included), and the id map lists the changed ids.
func TestTRECExportsEncodeIDs(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := questIDsProject(t, st)
	ids, err := export.ProjectIDMaps(ctx, st, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantTok := map[string]string{"Merida wren": "Merida_wren", "A_b": "A_b", "A b": "A_b~2", "Plain": "Plain", "100% pure\tx": "100%25_pure%09x"}
	for id, tok := range wantTok {
		if got := ids.Docs.Encode(id); got != tok {
			t.Errorf("token of %q = %q, want %q", id, got, tok)
		}
	}
	for _, c := range []struct {
		format string
		opt    export.Options
		fields int // 0: topics
	}{
		{"trec-qrels", export.Options{}, 4},
		{"qrels-consensus", export.Options{}, 4},
		{"qrels-consensus", export.Options{Consensus: "dawid-skene"}, 4},
		{"qrels-consensus", export.Options{Qrels: vocab.QrelsDerived}, 5},
		{"qrels-consensus", export.Options{Qrels: vocab.QrelsBoth}, 5},
		{"qrels-derived", export.Options{}, 5},
		{"trec-run", export.Options{Run: "bm25 test"}, 6},
		{"trec-topics", export.Options{}, 0},
	} {
		name := c.format + "/" + c.opt.Qrels + c.opt.Consensus
		var b bytes.Buffer
		if _, err := export.Write(ctx, st, p.ID, c.format, &b, c.opt); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if c.fields == 0 {
			if _, err := trecfmt.ReadTopics(ctx, &b, name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if c.opt.Qrels != vocab.QrelsDerived && c.format != "qrels-derived" && len(lines) < 3 {
			t.Errorf("%s: %d lines: %q", name, len(lines), b.String())
		}
		for i, l := range lines {
			if l == "" {
				continue
			}
			f := strings.Fields(l)
			if len(f) != c.fields {
				t.Errorf("%s line %d %q: %d fields, want %d", name, i+1, l, len(f), c.fields)
				continue
			}
			if d := ids.Docs.Decode(f[2]); ids.Docs.Encode(d) != f[2] || wantTok[d] != f[2] {
				t.Errorf("%s line %d: docid token %q decodes to %q, not a project id", name, i+1, f[2], d)
			}
		}
		if c.fields == 4 {
			if _, err := trecfmt.ReadQrels(ctx, strings.NewReader(b.String()), name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		if c.fields == 6 {
			if _, err := trecfmt.ReadRun(ctx, strings.NewReader(b.String()), name); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	var m bytes.Buffer
	c, err := export.Write(ctx, st, p.ID, "idmap", &m, export.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "kind\ttoken\tid\ndoc\t100%25_pure%09x\t100% pure\\tx\ndoc\tA_b~2\tA b\ndoc\tMerida_wren\tMerida wren\n"
	if m.String() != want || c.Lines != 3 {
		t.Errorf("idmap (%d lines):\n%s\nwant:\n%s", c.Lines, m.String(), want)
	}
}

// TestTRECExportsEvaluateAndReimport (issue 25): the run and the qrels
// exported from one project evaluate against each other to the numbers of
// the project's own ids, and importing the exported qrels and run back
// changes nothing.
func TestTRECExportsEvaluateAndReimport(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := questIDsProject(t, st)
	dir := t.TempDir()
	write := func(format string, opt export.Options) string {
		t.Helper()
		path := filepath.Join(dir, format)
		var b bytes.Buffer
		if _, err := export.Write(ctx, st, p.ID, format, &b, opt); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	qrelsFile, runFile := write("trec-qrels", export.Options{}), write("trec-run", export.Options{Run: "bm25 test"})

	// In the project: the stored ids.
	storedQrels := func() []trecfmt.Qrel {
		t.Helper()
		var out []trecfmt.Qrel
		if err := st.EachMergedQrel(ctx, p.ID, "positive", func(r store.Qrel) error {
			out = append(out, trecfmt.Qrel{QueryID: r.QueryExtID, DocID: r.DocExtID, Rel: r.Relevance})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	runID, err := st.RunIDByName(ctx, p.ID, "bm25 test")
	if err != nil {
		t.Fatal(err)
	}
	storedRun := func() []trecfmt.RunLine {
		t.Helper()
		var out []trecfmt.RunLine
		if err := st.EachRunRow(ctx, runID, func(r store.RunRow) error {
			out = append(out, trecfmt.RunLine{QueryID: r.QueryExtID, DocID: r.DocExtID, Rank: r.Rank, Score: r.Score})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	projQrels, projRun := storedQrels(), storedRun()
	specs, err := metrics.ParseSpecs("ndcg@10,recall@100,mrr@10,P@2")
	if err != nil {
		t.Fatal(err)
	}
	evaluate := func(q []trecfmt.Qrel, r []trecfmt.RunLine) map[string]float64 {
		t.Helper()
		qr, run := metrics.Qrels{}, metrics.Run{}
		for _, l := range q {
			if qr[l.QueryID] == nil {
				qr[l.QueryID] = map[string]int{}
			}
			qr[l.QueryID][l.DocID] = l.Rel
		}
		for _, l := range r {
			run[l.QueryID] = append(run[l.QueryID], metrics.Scored{DocID: l.DocID, Score: l.Score})
		}
		return metrics.EvaluateRun(qr, run, specs, metrics.Options{MinRel: 1}).Mean
	}
	inProject := evaluate(projQrels, projRun)

	readBoth := func() ([]trecfmt.Qrel, []trecfmt.RunLine) {
		qf, _ := os.Open(qrelsFile)
		defer qf.Close()
		q, err := trecfmt.ReadQrels(ctx, qf, qrelsFile)
		if err != nil {
			t.Fatal(err)
		}
		rf, _ := os.Open(runFile)
		defer rf.Close()
		r, err := trecfmt.ReadRun(ctx, rf, runFile)
		if err != nil {
			t.Fatal(err)
		}
		return q, r
	}
	fq, fr := readBoth()
	fromFiles := evaluate(fq, fr)
	if !reflect.DeepEqual(inProject, fromFiles) {
		t.Errorf("exported files evaluate to %v, the project to %v", fromFiles, inProject)
	}
	// The numbers are not trivial: the collision pair is told apart (A_b
	// ranked first is relevant for q2 only and 0 for q1).
	if v := inProject["ndcg@10"]; v <= 0 || v >= 1 {
		t.Errorf("ndcg@10 %v: the fixture should score between 0 and 1", v)
	}

	// Import back into the same project: the same judgments and run.
	if _, err := ingest.Files(ctx, st, p.ID, "trec-qrels", []string{qrelsFile}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "trec-run", []string{runFile}, ingest.Options{RunName: "bm25 test"}); err != nil {
		t.Fatal(err)
	}
	if again := storedQrels(); !reflect.DeepEqual(again, projQrels) {
		t.Errorf("qrels after re-import:\n%v\nbefore:\n%v", again, projQrels)
	}
	if runAgain := storedRun(); !reflect.DeepEqual(runAgain, projRun) {
		t.Errorf("run after re-import:\n%v\nbefore:\n%v", runAgain, projRun)
	}

	// A file of another tool that wrote "_" for spaces reads as the
	// project's ids where that is unambiguous ("Merida_wren"); "A_b" stays
	// the id "A_b".
	other := filepath.Join(dir, "other.qrels")
	if err := os.WriteFile(other, []byte("q2 0 Merida_wren 1\nq2 0 A_b 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "trec-qrels", []string{other}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, q := range storedQrels() {
		if q.QueryID == "q2" {
			got[q.DocID] = q.Rel
		}
	}
	if want := map[string]int{"Merida wren": 1, "A_b": 1, "100% pure\tx": 2}; !reflect.DeepEqual(got, want) {
		t.Errorf("q2 qrels after the other tool's file: %v, want %v", got, want)
	}
	// An unknown query token is still an error naming file, line and field.
	bad := filepath.Join(dir, "bad.qrels")
	if err := os.WriteFile(bad, []byte("q1 0 Merida_wren 1\nq_9 0 A_b 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Files(ctx, st, p.ID, "trec-qrels", []string{bad}, ingest.Options{}); err == nil || !strings.Contains(err.Error(), bad+":2: field qid") {
		t.Errorf("unknown query: %v", err)
	}
}

// TestDerivedQrelsEncodeIDs (issue 25): labels derived from constraint
// judgments on documents with spaced ids are written as tokens in
// qrels-derived and in qrels-consensus's derived mode (they were written
// with the spaces, so a reader split the docid into two fields).
func TestDerivedQrelsEncodeIDs(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := gamesXlibProject(t, st, "derivedids", nil,
		atomLabel{"games", "Chess game", "yes"}, atomLabel{"games", "X vier", "yes"},
		atomLabel{"xlib", "X vier", "yes"}, atomLabel{"xlib", "Chess game", "no"})
	for _, c := range []struct {
		format string
		opt    export.Options
	}{{"qrels-derived", export.Options{}}, {"qrels-consensus", export.Options{Qrels: vocab.QrelsDerived}}} {
		var b bytes.Buffer
		if _, err := export.Write(ctx, st, pid, c.format, &b, c.opt); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		got := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			f := strings.Fields(l)
			if len(f) != 5 {
				t.Fatalf("%s: line %q has %d fields, want 5", c.format, l, len(f))
			}
			got[f[2]] = f[3]
		}
		if want := map[string]string{"Chess_game": "0", "X_vier": "1"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v:\n%s", c.format, got, want, b.String())
		}
	}
}
