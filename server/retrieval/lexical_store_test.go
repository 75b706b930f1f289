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

// TestLexicalIndexStoredByteIdentical: BuildLexical streams the encoded
// index into the store (no []byte copy of its own) and LoadLexical reads
// back an index that encodes to the same bytes; the stored size is the
// encoding's.
func TestLexicalIndexStoredByteIdentical(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	p, err := st.EnsureProject(ctx, "lexstore")
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"apple", "cherry", "red", "green", "fruit", "stone", "tree", "leaf", "seed", "juice"}
	_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
		for i := range 500 {
			body := fmt.Sprintf("%s %s %s w%d", words[i%10], words[(i/10)%10], words[(i*7)%10], i)
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("d%03d", i), Body: body}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	built, err := BuildLexical(ctx, st, p.ID, lexical.DefaultParams(), log)
	if err != nil {
		t.Fatal(err)
	}
	want, err := built.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	stored, fp, err := st.LexicalIndexData(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	corpusFP, _, err := st.CorpusFingerprint(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, want) || fp != corpusFP {
		t.Fatalf("stored %d bytes for %q, built %d bytes for %q", len(stored), fp, len(want), corpusFP)
	}
	info, err := st.LexicalIndexInfo(ctx, p.ID)
	if err != nil || info.Bytes != int64(len(want)) || info.NumDocs != 500 || info.NumTerms != built.NumTerms() {
		t.Fatalf("info %+v, %v; want %d bytes, 500 docs, %d terms", info, err, len(want), built.NumTerms())
	}
	loaded, err := LoadLexical(ctx, st, p.ID, log)
	if err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Bytes()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("loaded index encodes to %d bytes (%v), built %d", len(got), err, len(want))
	}
	if again, _ := st.LexicalIndexInfo(ctx, p.ID); !again.BuiltAt.Equal(info.BuiltAt) {
		t.Fatal("LoadLexical rebuilt a current index")
	}
}
