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

// TestBuildLexicalStreamsSameIndex: BuildLexical, which streams the
// documents from Postgres into a lexical.Builder (more than one batch
// here), gives byte for byte the index lexical.Build gives over the same
// documents collected in the store's order, and stores it.
func TestBuildLexicalStreamsSameIndex(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := st.EnsureProject(ctx, "stream")
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"apple", "Apples", "the", "banana", "cherry", "running", "runs", "zebra", "and", "fruit", "green"}
	var docs []lexical.Doc
	for i := range 5000 {
		body := fmt.Sprintf("%s %s %s doc%d", words[i%len(words)], words[(i*7)%len(words)], words[(i*3+1)%len(words)], i%97)
		docs = append(docs, lexical.Doc{ExtID: fmt.Sprintf("d%05d", i), Title: words[(i*5)%len(words)], Body: body})
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
	ix, err := BuildLexical(ctx, st, p.ID, lexical.DefaultParams(), log)
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
	if info, err := st.LexicalIndexInfo(ctx, p.ID); err != nil || info.NumDocs != len(docs) {
		t.Fatalf("stored index info %+v, %v", info, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := BuildLexical(cctx, st, p.ID, lexical.DefaultParams(), log); err == nil {
		t.Fatal("BuildLexical with a cancelled context succeeded")
	}
}
