package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"boolpool/encoders"
	"boolpool/server/app"
	"boolpool/server/pooling"
	"boolpool/server/retrieval"
	"boolpool/server/store"
)

// calDenseSim sets up `pool simulate --cal-features lexical+dense`: a cal
// engine over the project's lexical index joined with the documents'
// stored vectors of encoder, and the query texts embedded by the same
// encoder (ONNX Runtime, opened here). release closes the encoder.
func calDenseSim(ctx context.Context, st *store.Store, projectID int64, encoder string, c *pooling.CALSim, stderr io.Writer) (release func(), err error) {
	ix, err := retrieval.LoadLexical(ctx, st, projectID, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return nil, err
	}
	e, err := pooling.CALDenseEngine(ctx, st, projectID, ix, encoder)
	if err != nil {
		return nil, err
	}
	rt, err := app.OpenRuntime(encoders.Config{})
	if err != nil {
		return nil, err
	}
	enc, err := rt.Open(ctx, encoder)
	if err != nil {
		rt.Close()
		return nil, err
	}
	c.Engine = e
	c.QueryVec = func(ctx context.Context, text string) ([]float32, error) {
		v, err := enc.Encode(ctx, []string{text})
		if err != nil {
			return nil, err
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("encode %q: %d vectors", text, len(v))
		}
		return v[0], nil
	}
	return func() { enc.Close(); rt.Close() }, nil
}
