package store_test

import (
	"context"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

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
