package retrieval

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"boolpool/server/lexical"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// storedCorpus imports n generated documents into a new project and
// returns the store, the project and the documents in import order.
func storedCorpus(t *testing.T, name string, n int) (*store.Store, int64, []lexical.Doc) {
	t.Helper()
	ctx := context.Background()
	st := storetest.New(t)
	p, err := st.EnsureProject(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"apple", "Apples", "the", "banana", "cherry", "running", "runs", "zebra", "and", "fruit", "green"}
	docs := make([]lexical.Doc, n)
	for i := range docs {
		body := fmt.Sprintf("%s %s %s doc%d", words[i%len(words)], words[(i*7)%len(words)], words[(i*3+1)%len(words)], i%97)
		docs[i] = lexical.Doc{ExtID: fmt.Sprintf("d%05d", i), Title: words[(i*5)%len(words)], Body: body}
	}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, d := range docs {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d.ExtID, Title: d.Title, Body: d.Body}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, p.ID, docs
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestBuildLexicalStreamsSameIndex: BuildLexical, which streams the
// documents from Postgres into a lexical.Builder (more than one batch
// here), gives byte for byte the index lexical.Build gives over the same
// documents collected in the store's order, and stores it.
func TestBuildLexicalStreamsSameIndex(t *testing.T) {
	ctx := context.Background()
	st, project, docs := storedCorpus(t, "stream", 5000)
	ix, err := BuildLexical(ctx, st, project, lexical.DefaultParams(), discardLog())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := lexical.Build(ctx, docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("BuildLexical's index (%d bytes) differs from lexical.Build's (%d bytes)", len(got), len(want))
	}
	if info, err := st.LexicalIndexInfo(ctx, project); err != nil || info.NumDocs != len(docs) {
		t.Fatalf("stored index info %+v, %v", info, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := BuildLexical(cctx, st, project, lexical.DefaultParams(), discardLog()); err == nil {
		t.Fatal("BuildLexical with a cancelled context succeeded")
	}
}

// TestLexicalIndexStoredByteIdentical: BuildLexical streams the encoded
// index into the store (no []byte copy of its own) and LoadLexical reads
// back an index that encodes to the same bytes; the stored size is the
// encoding's.
func TestLexicalIndexStoredByteIdentical(t *testing.T) {
	ctx := context.Background()
	st, project, docs := storedCorpus(t, "lexstore", 500)
	built, err := BuildLexical(ctx, st, project, lexical.DefaultParams(), discardLog())
	if err != nil {
		t.Fatal(err)
	}
	want, err := built.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	stored, fp, err := st.LexicalIndexData(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	corpusFP, _, err := st.CorpusFingerprint(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, want) || fp != corpusFP {
		t.Fatalf("stored %d bytes for %q, built %d bytes for %q", len(stored), fp, len(want), corpusFP)
	}
	info, err := st.LexicalIndexInfo(ctx, project)
	if err != nil || info.Bytes != int64(len(want)) || info.NumDocs != len(docs) || info.NumTerms != built.NumTerms() {
		t.Fatalf("info %+v, %v; want %d bytes, %d docs, %d terms", info, err, len(want), len(docs), built.NumTerms())
	}
	loaded, err := LoadLexical(ctx, st, project, discardLog())
	if err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Bytes()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("loaded index encodes to %d bytes (%v), built %d", len(got), err, len(want))
	}
	if again, _ := st.LexicalIndexInfo(ctx, project); !again.BuiltAt.Equal(info.BuiltAt) {
		t.Fatal("LoadLexical rebuilt a current index")
	}
}
