package store_test

import (
	"context"
	"slices"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestEachDocumentVector: the project's documents with a vector of the
// encoder, each with its vector; documents without one and other
// projects' documents are left out; a sparse encoder is refused.
func TestEachDocumentVector(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	docIDs := map[string]int64{}
	var projects []int64
	for _, name := range []string{"p", "other"} {
		p, err := st.EnsureProject(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		projects = append(projects, p.ID)
		_, err = st.Import(ctx, p.ID, func(im *store.Importer) error {
			for _, ext := range []string{"a", "b", "c"} {
				if err := im.Document(ctx, store.DocumentIn{ExtID: ext, Title: ext, Body: "text of " + ext}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
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
			docIDs[name+"/"+ext] = id
		}
		rows.Close()
	}
	enc, _, err := st.RegisterEncoder(ctx, store.EncoderSpec{Name: "e", Kind: store.EncoderDense, ModelHash: "h", Dim: 3, Pooling: "mean", Normalized: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{"a": {1, 0, 0}, "c": {0, 0.5, 0.5}}
	vecs := []store.DocumentVector{
		{DocumentID: docIDs["p/a"], ContentHash: []byte{1}, Dense: want["a"], New: true},
		{DocumentID: docIDs["p/c"], ContentHash: []byte{1}, Dense: want["c"], New: true},
		{DocumentID: docIDs["other/b"], ContentHash: []byte{1}, Dense: []float32{0, 1, 0}, New: true},
	}
	if _, err := st.WriteEmbeddings(ctx, enc, vecs); err != nil {
		t.Fatal(err)
	}
	got := map[string][]float32{}
	var order []string
	err = st.EachDocumentVector(ctx, projects[0], enc, func(id string, v []float32) error {
		got[id] = v
		order = append(order, id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got["a"], want["a"]) || !slices.Equal(got["c"], want["c"]) {
		t.Fatalf("vectors %v, want %v", got, want)
	}
	if !slices.Equal(order, []string{"a", "c"}) {
		t.Fatalf("order %v, want a, c (document order)", order)
	}
	sparse, _, err := st.RegisterEncoder(ctx, store.EncoderSpec{Name: "s", Kind: store.EncoderSparse, ModelHash: "h", Dim: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.EachDocumentVector(ctx, projects[0], sparse, func(string, []float32) error { return nil }); err == nil {
		t.Fatal("a sparse encoder: no error")
	}
}
