package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"boolpool/server/lexical"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// runIndex rebuilds a project's lexical (BM25) index from its documents and,
// with --encoder, the pgvector HNSW index of a dense encoder.
func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("index", stderr, "usage: boolpool index --project P [--k1 0.9 --b 0.4] [--encoder NAME]")
	pf := addProjectFlags(fs)
	k1 := fs.Float64("k1", lexical.DefaultParams().K1, "BM25 k1")
	b := fs.Float64("b", lexical.DefaultParams().B, "BM25 b")
	encoder := fs.String("encoder", "", "also create the HNSW index of this dense encoder's embeddings")
	st, p, err := pf.parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	log := slog.New(slog.NewTextHandler(stderr, nil))
	ix, err := retrieval.BuildLexical(ctx, st, p.ID, lexical.Params{K1: *k1, B: *b}, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lexical index of %s: %d documents, %d terms, avgdl %.1f\n", p.Name, ix.NumDocs(), ix.NumTerms(), ix.AvgDocLen())
	if *encoder != "" {
		enc, err := st.EncoderByName(ctx, *encoder)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("encoder %q has no embeddings yet (run the encoder over the project first): %w", *encoder, err)
		}
		if err != nil {
			return err
		}
		if _, err := st.EnsureHNSW(ctx, p.ID, enc); err != nil {
			return err
		}
		if err := st.AnalyzeEmbeddings(ctx); err != nil {
			return err
		}
		n, err := st.CountEmbeddings(ctx, p.ID, enc.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "HNSW index of %s: %d document vectors (dim %d)\n", enc.Name, n, enc.Dim)
	}
	return nil
}
