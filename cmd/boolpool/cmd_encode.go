package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"boolpool/encoders"
	"boolpool/server/embedjob"
)

// runEncode embeds a project's documents and query texts with an encoder
// and stores the vectors in pgvector (see package embedjob for the rules:
// registration by model hash, incremental by content hash, resumable per
// batch, HNSW index after the load).
func runEncode(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("encode", stderr, "usage: boolpool encode --project P --encoder NAME [--batch 64] [--queries=true|false] [--reset]\n\n"+
		"Stores document vectors (and query vectors) of the encoder; only documents without a vector\n"+
		"or whose text changed are encoded, so an interrupted run continues where it stopped when\n"+
		"run again. A changed model for the same encoder name drops all its vectors first.")
	pf := addProjectFlags(fs)
	name := fs.String("encoder", "", "encoder `name` (required): "+strings.Join(encoders.Names(), ", ")+" (dense, pgvector) or "+encoders.LexicalName+" (sparse, sparsevec)")
	batch := fs.Int("batch", embedjob.DefaultBatch, "documents encoded and committed per transaction")
	queries := fs.Bool("queries", true, "also embed each query's whole text (atom -1) and its atom texts; --queries=false skips them")
	rtCfg := runtimeFlags(fs, "execution `device` of dense encoders: cpu or cuda")
	reset := fs.Bool("reset", false, "delete this project's vectors of the encoder first and embed everything again")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *pf.project == "" || *name == "" {
		return fmt.Errorf("%w: --project and --encoder are required", errUsage)
	}
	if *batch <= 0 {
		return fmt.Errorf("%w: --batch must be positive", errUsage)
	}
	st, p, err := pf.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	opt := embedjob.Options{
		ProjectID: p.ID,
		Batch:     *batch,
		Queries:   *queries,
		Reset:     *reset,
		Progress:  stderr,
		Log:       slog.New(slog.NewTextHandler(stderr, nil)),
	}

	var rep embedjob.Report
	if *name == encoders.LexicalName {
		tok, err := encoders.LoadTokenizer("")
		if err != nil {
			return err
		}
		rep, err = embedjob.Lexical(ctx, st, tok, opt)
		if err != nil {
			return encodeError(stderr, rep, err)
		}
	} else {
		// ONNX Runtime's threads do not spin between calls (as in the
		// server's encode jobs): Postgres stores the previous batch on the
		// same machine meanwhile.
		rtCfg.NoSpin = true
		enc, closeEnc, err := openEncoder(ctx, *rtCfg, *name)
		if err != nil {
			return err
		}
		defer closeEnc()
		rep, err = embedjob.Dense(ctx, st, enc, opt)
		if err != nil {
			return encodeError(stderr, rep, err)
		}
	}
	fmt.Fprintf(stdout, "encoder %s (id %d, %s, dim %d, model %.12s…): %d documents, %d encoded, %d unchanged",
		rep.Encoder.Name, rep.Encoder.ID, rep.Encoder.Kind, rep.Encoder.Dim, rep.Encoder.ModelHash, rep.Documents, rep.Encoded, rep.Unchanged)
	if rep.Encoded > 0 {
		fmt.Fprintf(stdout, " in %.1fs (%.1f docs/s)", rep.DocumentTime.Seconds(), rep.DocsPerSecond())
	}
	fmt.Fprintln(stdout)
	if rep.Reset {
		fmt.Fprintln(stdout, "  the model changed since the last run: all earlier vectors of this encoder were dropped")
	}
	if rep.IndexBuilt {
		fmt.Fprintf(stdout, "  HNSW index ready in %.1fs\n", rep.IndexTime.Seconds())
	}
	if *queries {
		fmt.Fprintf(stdout, "  query texts: %d (whole queries and atoms), %d encoded in %.1fs, %d stale atom vectors removed\n",
			rep.QueryTexts, rep.QueryEncoded, rep.QueryTime.Seconds(), rep.AtomsRemoved)
	}
	return nil
}

// encodeError explains an interrupted run (its work so far is kept).
func encodeError(stderr io.Writer, rep embedjob.Report, err error) error {
	if rep.Interrupted || errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "interrupted: %d documents stored by this run, %d still to encode; run the same command again to continue\n",
			rep.Encoded, rep.DocumentsLeft)
	}
	return err
}
