package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestBuildHNSWMatchesEnsureHNSW guards the duplicated index definition:
// the index BuildHNSW creates must be the one EnsureHNSW creates (the
// planner matches NearestDocuments' query against it).
func TestBuildHNSWMatchesEnsureHNSW(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	var defs []string
	for i, build := range []func(store.EncoderInfo) error{
		func(e store.EncoderInfo) error { return st.EnsureHNSW(ctx, e) },
		func(e store.EncoderInfo) error { return st.BuildHNSW(ctx, e, 200<<20) },
	} {
		enc, reset, err := st.RegisterEncoder(ctx, store.EncoderSpec{Name: fmt.Sprintf("e%d", i), Kind: store.EncoderDense, ModelHash: "h", Dim: 3})
		if err != nil || reset {
			t.Fatalf("register: %v (reset %v)", err, reset)
		}
		if err := build(enc); err != nil {
			t.Fatal(err)
		}
		var def string
		err = st.Pool().QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE tablename = 'embeddings' AND indexname = $1`,
			fmt.Sprintf("embeddings_hnsw_e%d", enc.ID)).Scan(&def)
		if err != nil {
			t.Fatal(err)
		}
		// Normalise the encoder id.
		def = strings.ReplaceAll(def, fmt.Sprintf("e%d ", enc.ID), "eN ")
		def = strings.ReplaceAll(def, fmt.Sprintf("= %d)", enc.ID), "= N)")
		defs = append(defs, def)
	}
	if defs[0] != defs[1] {
		t.Fatalf("index definitions differ:\nEnsureHNSW: %s\nBuildHNSW:  %s", defs[0], defs[1])
	}
}

// TestRegisterEncoderRejectsBadSpecs checks the validation of encoder rows.
func TestRegisterEncoderRejectsBadSpecs(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	for _, spec := range []store.EncoderSpec{
		{Name: "x", Kind: "hybrid", ModelHash: "h", Dim: 3},
		{Name: "x", Kind: store.EncoderDense, ModelHash: "", Dim: 3},
		{Name: "x", Kind: store.EncoderDense, ModelHash: "h", Dim: 0},
		{Name: "", Kind: store.EncoderDense, ModelHash: "h", Dim: 3},
		{Name: "bad\x00name", Kind: store.EncoderDense, ModelHash: "h", Dim: 3},
	} {
		if _, _, err := st.RegisterEncoder(ctx, spec); err == nil {
			t.Errorf("%+v: accepted", spec)
		}
	}
}
