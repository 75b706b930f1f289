package pooling

import (
	"context"
	"strings"
	"testing"

	"boolpool/server/lexical"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestCALDenseEngine: the dense engine joins the project's stored vectors
// (real Postgres) to the lexical features, in the index's document order;
// a document without a vector is an error naming it. With the query's
// embedding the simulation's session finds the document whose vector
// matches the query although it shares no word with it.
func TestCALDenseEngine(t *testing.T) {
	ctx := context.Background()
	st, p := storetest.NewProject(t, "dense")
	texts := map[string]string{"near": "zebra quilt", "far1": "orchard tomorrow", "far2": "bicycle report", "far3": "bus station", "far4": "juice recipe"}
	vec := map[string][]float32{"near": {1, 0, 0}, "far1": {0, 1, 0}, "far2": {0, 1, 0.2}, "far3": {0, 0.9, 0.4}, "far4": {0.1, 0, 1}}
	var docs []lexical.Doc
	_, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for _, id := range []string{"far1", "far2", "far3", "far4", "near"} {
			docs = append(docs, lexical.Doc{ExtID: id, Title: id, Body: texts[id]})
			if err := im.Document(ctx, store.DocumentIn{ExtID: id, Title: id, Body: texts[id]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := lexical.Build(ctx, docs, lexical.DefaultParams(), 1)
	if err != nil {
		t.Fatal(err)
	}
	enc, _, err := st.RegisterEncoder(ctx, store.EncoderSpec{Name: "toy", Kind: store.EncoderDense, ModelHash: "h", Dim: 3, Pooling: "mean", Normalized: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	rows, err := st.Pool().Query(ctx, `SELECT id, ext_id FROM documents WHERE project_id = $1`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var ext string
		if err := rows.Scan(&id, &ext); err != nil {
			t.Fatal(err)
		}
		ids[ext] = id
	}
	rows.Close()
	write := func(names ...string) {
		var vs []store.DocumentVector
		for _, n := range names {
			vs = append(vs, store.DocumentVector{DocumentID: ids[n], ContentHash: []byte{1}, Dense: vec[n], New: true})
		}
		if _, err := st.WriteEmbeddings(ctx, enc, vs); err != nil {
			t.Fatal(err)
		}
	}
	write("far1", "far2", "far3", "far4")
	if _, err := CALDenseEngine(ctx, st, p.ID, ix, "toy"); err == nil || !strings.Contains(err.Error(), `"near"`) {
		t.Fatalf("a document without a vector: %v, want an error naming it", err)
	}
	write("near")
	e, err := CALDenseEngine(ctx, st, p.ID, ix, "toy")
	if err != nil {
		t.Fatal(err)
	}
	if f := e.Features(); f.DenseDim() != 3 || f.Dim() != ix.NumTerms()+3 {
		t.Fatalf("dense dim %d, dim %d", f.DenseDim(), f.Dim())
	}
	c := CALSim{Engine: e, MaxPerQuery: 1, QueryVec: func(context.Context, string) ([]float32, error) { return []float32{1, 0.05, 0}, nil }}
	q := GoldQuery{ID: "q", Text: "animal", Rel: map[string]bool{"near": true}}
	seq, err := c.sequence(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(seq) != 1 || seq[0] != "near" {
		t.Fatalf("first judgment %v, want near (the only vector close to the query's)", seq)
	}
}
