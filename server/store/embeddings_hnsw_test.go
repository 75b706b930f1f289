package store_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"
)

// hnswFixture is two projects with four documents each and a 3-d dense
// encoder's vectors of all of them.
type hnswFixture struct {
	st       *store.Store
	enc      store.EncoderInfo
	projects []int64
	vecs     map[string][]float32 // "p<i>/<ext>" → vector
}

func newHNSWFixture(t *testing.T) *hnswFixture {
	t.Helper()
	ctx := context.Background()
	f := &hnswFixture{st: storetest.New(t), vecs: map[string][]float32{}}
	enc, _, err := f.st.RegisterEncoder(ctx, store.EncoderSpec{Name: "e", Kind: store.EncoderDense, ModelHash: "h", Dim: 3, Pooling: "mean", Normalized: true})
	if err != nil {
		t.Fatal(err)
	}
	f.enc = enc
	base := map[string][]float32{"a": {1, 0, 0}, "b": {0.8, 0.6, 0}, "c": {0, 1, 0}, "d": {0, 0.6, 0.8}}
	for i := range 2 {
		p, err := f.st.EnsureProject(ctx, fmt.Sprintf("p%d", i))
		if err != nil {
			t.Fatal(err)
		}
		f.projects = append(f.projects, p.ID)
		_, err = f.st.Import(ctx, p.ID, func(im *store.Importer) error {
			for _, ext := range []string{"a", "b", "c", "d"} {
				if err := im.Document(ctx, store.DocumentIn{ExtID: ext, Title: ext, Body: "text of " + ext}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var vecs []store.DocumentVector
		rows, _ := f.st.Pool().Query(ctx, `SELECT id, ext_id FROM documents WHERE project_id = $1 ORDER BY id`, p.ID)
		docs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
			ID  int64
			Ext string
		}])
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			v := append([]float32(nil), base[d.Ext]...)
			v[2] += float32(i) * 0.1 // the projects' vectors differ
			f.vecs[fmt.Sprintf("p%d/%s", i, d.Ext)] = v
			// Project 0 passes its project (the direct COPY), project 1
			// leaves it to the store (the staging path).
			dv := store.DocumentVector{DocumentID: d.ID, ContentHash: []byte{1}, Dense: v, New: true}
			if i == 0 {
				dv.ProjectID = p.ID
			}
			vecs = append(vecs, dv)
		}
		if _, err := f.st.WriteEmbeddings(ctx, enc, vecs); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *hnswFixture) indexOID(t *testing.T, project int64) uint32 {
	t.Helper()
	var oid *uint32
	if err := f.st.Pool().QueryRow(context.Background(), `SELECT to_regclass($1)::oid`, fmt.Sprintf("embeddings_hnsw_e%d_p%d", f.enc.ID, project)).Scan(&oid); err != nil {
		t.Fatal(err)
	}
	if oid == nil {
		return 0
	}
	return *oid
}

// TestHNSWPerProject: every dense vector is stored with its document's
// project (whichever write path), each project gets an HNSW index of its
// own, building one project's index leaves another's untouched, the
// planner uses the project's index for NearestDocuments' query, and the
// kNN results are the project's documents ranked by the exact cosine of
// the full vectors.
func TestHNSWPerProject(t *testing.T) {
	ctx := context.Background()
	f := newHNSWFixture(t)
	st, enc, p0, p1 := f.st, f.enc, f.projects[0], f.projects[1]
	var wrong int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM embeddings e JOIN documents d ON d.id = e.document_id WHERE e.project_id <> d.project_id`).Scan(&wrong); err != nil || wrong != 0 {
		t.Fatalf("%d vectors stored with another project than their document's (%v)", wrong, err)
	}
	for _, p := range f.projects {
		if n, err := st.CountEmbeddings(ctx, p, enc.ID); err != nil || n != 4 {
			t.Fatalf("project %d: %d vectors (%v), want 4", p, n, err)
		}
	}

	if built, err := st.EnsureHNSW(ctx, p0, enc); err != nil || !built {
		t.Fatalf("first EnsureHNSW: built %v, %v", built, err)
	}
	oid0 := f.indexOID(t, p0)
	if oid0 == 0 || f.indexOID(t, p1) != 0 {
		t.Fatalf("after building project 0's index: oids %d, %d", oid0, f.indexOID(t, p1))
	}
	var opts []string
	var def string
	if err := st.Pool().QueryRow(ctx, `SELECT reloptions, pg_get_indexdef(oid) FROM pg_class WHERE oid = $1`, oid0).Scan(&opts, &def); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(opts, ","); got != "m=16,ef_construction=32" || !strings.Contains(def, "halfvec_cosine_ops") {
		t.Errorf("index options %q, definition %s: want the design of docs/scaling.md (halfvec, m 16, ef_construction 32)", got, def)
	}
	if built, err := st.EnsureHNSW(ctx, p0, enc); err != nil || built {
		t.Fatalf("second EnsureHNSW: built %v, %v (want the existing index kept)", built, err)
	}
	if _, err := st.EnsureHNSW(ctx, p1, enc); err != nil {
		t.Fatal(err)
	}
	if f.indexOID(t, p1) == 0 || f.indexOID(t, p0) != oid0 {
		t.Fatalf("building project 1's index touched project 0's (oid %d → %d)", oid0, f.indexOID(t, p0))
	}

	// The planner matches the partial expression index (with sequential
	// scans off, so that four rows do not make a scan cheaper).
	err := pgx.BeginFunc(ctx, st.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
			return err
		}
		for _, extIDs := range []bool{true, false} { // NearestDocuments, NearestDocumentIDs
			rows, _ := tx.Query(ctx, `EXPLAIN `+store.NearestSQL(enc, p1, extIDs), pgvector.NewVector([]float32{1, 0, 0}), 1000, 3)
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			plan := strings.Join(lines, "\n")
			if want := fmt.Sprintf("embeddings_hnsw_e%d_p%d", enc.ID, p1); !strings.Contains(plan, want) {
				t.Errorf("the plan (external ids %v) does not use %s:\n%s", extIDs, want, plan)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	q := []float32{0.9, 0.4, 0.1}
	got, err := st.NearestDocuments(ctx, p1, enc, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ExtID != "b" || got[1].ExtID != "a" || got[2].ExtID != "c" {
		t.Fatalf("kNN in project 1: %+v, want b, a, c", got)
	}
	byID, err := st.NearestDocumentIDs(ctx, p1, enc, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(byID))
	for i, d := range byID {
		ids[i] = d.ID
	}
	names, err := st.DocumentExtIDs(ctx, p1, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(byID) != 3 || names[byID[0].ID] != "b" || names[byID[1].ID] != "a" || names[byID[2].ID] != "c" || byID[0].Score != got[0].Score {
		t.Fatalf("kNN by id in project 1: %+v (%v), want b, a, c as %+v", byID, names, got)
	}
	if other, err := st.DocumentExtIDs(ctx, p0, ids); err != nil || len(other) != 0 {
		t.Errorf("project 1's ids named in project 0: %v (%v)", other, err)
	}
	for _, d := range got {
		if want := cosine(q, f.vecs["p1/"+d.ExtID]); math.Abs(d.Score-want) > 1e-6 {
			t.Errorf("%s: score %.7f, want the full-precision cosine %.7f", d.ExtID, d.Score, want)
		}
	}
}

// TestHNSWIndexesDropped: replacing an encoder's model drops every
// project's index of it, and a build drops the indexes of deleted projects.
func TestHNSWIndexesDropped(t *testing.T) {
	ctx := context.Background()
	f := newHNSWFixture(t)
	for _, p := range f.projects {
		if _, err := f.st.EnsureHNSW(ctx, p, f.enc); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.st.Pool().Exec(ctx, `DELETE FROM projects WHERE id = $1`, f.projects[1]); err != nil {
		t.Fatal(err)
	}
	if err := f.st.DropHNSW(ctx, f.projects[0], f.enc); err != nil {
		t.Fatal(err)
	}
	if f.indexOID(t, f.projects[0]) != 0 || f.indexOID(t, f.projects[1]) == 0 {
		t.Fatal("DropHNSW dropped the wrong index")
	}
	if _, err := f.st.EnsureHNSW(ctx, f.projects[0], f.enc); err != nil {
		t.Fatal(err)
	}
	if f.indexOID(t, f.projects[1]) != 0 {
		t.Fatal("the deleted project's index was not dropped")
	}
	enc, reset, err := f.st.RegisterEncoder(ctx, store.EncoderSpec{Name: "e", Kind: store.EncoderDense, ModelHash: "other", Dim: 3, Pooling: "mean", Normalized: true})
	if err != nil || !reset {
		t.Fatalf("re-register: reset %v, %v", reset, err)
	}
	if f.indexOID(t, f.projects[0]) != 0 {
		t.Fatalf("the old model's index survived its replacement (new encoder %d)", enc.ID)
	}
}

func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// TestHNSWMemoryCapSetting: the cap on one HNSW build's memory is 4 GB
// unless the database sets boolpool.hnsw_build_memory_mb (scripts/db.sh
// does, to half of the machine's memory); a value that is not a number of
// megabytes is an error naming the setting, not a silent default.
func TestHNSWMemoryCapSetting(t *testing.T) {
	ctx := context.Background()
	st, url := storetest.NewWithURL(t)
	var db string
	if err := st.Pool().QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil {
		t.Fatal(err)
	}
	capOf := func(value string) (int64, error) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, fmt.Sprintf(`ALTER DATABASE %s SET boolpool.hnsw_build_memory_mb = '%s'`, pgx.Identifier{db}.Sanitize(), value)); err != nil {
			t.Fatal(err)
		}
		fresh, err := store.Open(ctx, url, 1) // the setting applies to new sessions
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		return fresh.HNSWMemoryCapMB(ctx)
	}
	if mb, err := capOf(""); err != nil || mb != 4096 {
		t.Fatalf("cap with an empty setting: %d, %v (want the default 4096)", mb, err)
	}
	if mb, err := capOf("12288"); err != nil || mb != 12288 {
		t.Fatalf("cap with the setting 12288: %d, %v", mb, err)
	}
	if _, err := capOf("lots"); err == nil || !strings.Contains(err.Error(), "boolpool.hnsw_build_memory_mb") {
		t.Fatalf("a setting that is not a number: %v, want an error naming it", err)
	}
}

// TestNearestSettingsHoldForOneSearch: NearestDocuments' index settings
// (ef_search, the iterative scan, its tuple budget) travel with the
// search in one pipelined batch: they take effect (with ef_search capped
// at 1000, only the iterative scan yields 1,200 neighbours from the
// index), and no connection keeps them afterwards.
func TestNearestSettingsHoldForOneSearch(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	enc, _, err := st.RegisterEncoder(ctx, store.EncoderSpec{Name: "e8", Kind: store.EncoderDense, ModelHash: "h", Dim: 8, Pooling: "mean", Normalized: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.EnsureProject(ctx, "knn")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1500
	if _, err := st.Import(ctx, p.ID, func(im *store.Importer) error {
		for i := range n {
			if err := im.Document(ctx, store.DocumentIn{ExtID: fmt.Sprintf("d%04d", i), Title: "t", Body: fmt.Sprintf("body %d", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	rows, _ := st.Pool().Query(ctx, `SELECT id FROM documents WHERE project_id = $1 ORDER BY id`, p.ID)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	vecs := make([]store.DocumentVector, len(ids))
	for i, id := range ids {
		v := make([]float32, 8)
		for k := range v {
			v[k] = float32(math.Sin(float64(i*8+k) * 1.7))
		}
		vecs[i] = store.DocumentVector{DocumentID: id, ProjectID: p.ID, ContentHash: []byte{1}, Dense: v, New: true}
	}
	if _, err := st.WriteEmbeddings(ctx, enc, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EnsureHNSW(ctx, p.ID, enc); err != nil {
		t.Fatal(err)
	}
	// New connections plan with the index whatever the table's size.
	if _, err := st.Pool().Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET enable_seqscan = off', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	st.Pool().Reset()

	q := []float32{1, 0.5, -0.3, 0.2, 0, 0.9, -1, 0.4}
	got, err := st.NearestDocuments(ctx, p.ID, enc, q, 1200)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1200 {
		t.Fatalf("%d neighbours, want 1200 (the iterative scan past ef_search)", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Score > got[i-1].Score {
			t.Fatalf("neighbour %d scores %v above neighbour %d's %v", i, got[i].Score, i-1, got[i-1].Score)
		}
	}
	for _, c := range st.Pool().AcquireAllIdle(ctx) {
		// NULL: pgvector not loaded in that backend, nothing set there.
		var ef, scan *string
		err := c.QueryRow(ctx, `SELECT current_setting('hnsw.ef_search', true), current_setting('hnsw.iterative_scan', true)`).Scan(&ef, &scan)
		c.Release()
		if err != nil {
			t.Fatal(err)
		}
		if ef != nil && *ef != "40" || scan != nil && *scan != "off" {
			t.Errorf("a connection kept the search's settings: ef_search %v, iterative_scan %v", deref(ef), deref(scan))
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "(unset)"
	}
	return *s
}
