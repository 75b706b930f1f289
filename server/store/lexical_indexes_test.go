package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// lexBytes is n deterministic pseudo-random bytes (seed picks which).
func lexBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 27))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// writeInPieces returns an encoder that writes data in pieces of uneven
// sizes (so pieces straddle chunk boundaries).
func writeInPieces(data []byte) func(w io.Writer) error {
	return func(w io.Writer) error {
		sizes := []int{1, 7, 333, 4096, 2500}
		for i := 0; len(data) > 0; i++ {
			k := min(sizes[i%len(sizes)], len(data))
			if _, err := w.Write(data[:k]); err != nil {
				return err
			}
			data = data[k:]
		}
		return nil
	}
}

// lexChunks returns the length of each stored chunk of a project's
// lexical index, in seq order.
func lexChunks(t *testing.T, st *store.Store, projectID int64) []int {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(),
		`SELECT octet_length(data) FROM lexical_index_chunks WHERE project_id = $1 ORDER BY seq`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkLexData fails unless the stored index is data, built for fp.
func checkLexData(t *testing.T, st *store.Store, projectID int64, data []byte, fp string) {
	t.Helper()
	got, gotFP, err := st.LexicalIndexData(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	if gotFP != fp || !bytes.Equal(got, data) {
		t.Fatalf("stored index: %d bytes for %q, want %d bytes for %q (equal bytes: %v)",
			len(got), gotFP, len(data), fp, bytes.Equal(got, data))
	}
	info, err := st.LexicalIndexInfo(context.Background(), projectID)
	if err != nil || info.Bytes != int64(len(data)) || info.Fingerprint != fp {
		t.Fatalf("info %+v, %v; want %d bytes for %q", info, err, len(data), fp)
	}
}

func lexProject(t *testing.T, st *store.Store) store.Project {
	t.Helper()
	p, err := st.EnsureProject(context.Background(), "lex")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLexicalIndexChunksRoundTrip: an index larger than one chunk is stored
// as several chunks, none above the chunk size, and read back byte for byte
// (before 0101 it was one bytea value, which PostgreSQL refuses above 1 GB).
func TestLexicalIndexChunksRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	const chunk = 1000
	data := lexBytes(10*chunk+321, 1)
	info := store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "fp-1", NumDocs: 3, NumTerms: 9}
	n, err := st.SaveLexicalIndexChunks(ctx, info, writeInPieces(data), chunk)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("saved %d bytes, %v; want %d", n, err, len(data))
	}
	sizes := lexChunks(t, st, p.ID)
	if len(sizes) != 11 {
		t.Fatalf("%d chunks %v, want 11", len(sizes), sizes)
	}
	for i, s := range sizes {
		if want := chunk; i == len(sizes)-1 && s != 321 || i < len(sizes)-1 && s != want {
			t.Fatalf("chunk sizes %v: want ten of %d then 321", sizes, chunk)
		}
	}
	checkLexData(t, st, p.ID, data, "fp-1")
	got, err := st.LexicalIndexInfo(ctx, p.ID)
	if err != nil || got.NumDocs != 3 || got.NumTerms != 9 {
		t.Fatalf("info %+v, %v", got, err)
	}

	// The default chunk size stores a small index as one chunk.
	small := lexBytes(5000, 2)
	if _, err := st.SaveLexicalIndex(ctx, info, writeInPieces(small)); err != nil {
		t.Fatal(err)
	}
	if sizes := lexChunks(t, st, p.ID); len(sizes) != 1 || sizes[0] != len(small) {
		t.Fatalf("chunks %v, want one of %d bytes", sizes, len(small))
	}
	checkLexData(t, st, p.ID, small, "fp-1")

	if _, _, err := st.LexicalIndexData(ctx, p.ID+1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a project without an index: %v, want ErrNotFound", err)
	}
}

// TestLexicalIndexSaveMemoryBoundedByChunk: a save holds about a chunk of
// the encoded index, not the whole of it: 16 MiB encoded in chunks of 1 MiB
// grow the live heap (sampled after a collection at every chunk boundary)
// by less than 6 MiB; a save that gathers the index first (as the []byte
// API did) grows it by 16 MiB.
func TestLexicalIndexSaveMemoryBoundedByChunk(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	const chunk, total = 1 << 20, 16 << 20
	piece := make([]byte, 4096)
	var before, m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak uint64
	encode := func(w io.Writer) error {
		r := rand.New(rand.NewPCG(12, 27))
		for off := 0; off < total; off += len(piece) {
			if off%chunk == 0 {
				runtime.GC()
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
			}
			for i := range piece {
				piece[i] = byte(r.Uint32())
			}
			if _, err := w.Write(piece); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "fp"}, encode, chunk); err != nil {
		t.Fatal(err)
	}
	if grew := int64(peak) - int64(before.HeapAlloc); grew >= 6<<20 {
		t.Fatalf("the live heap grew by %.1f MiB during a save of 16 MiB in 1 MiB chunks, want < 6", float64(grew)/(1<<20))
	}
	checkLexData(t, st, p.ID, lexBytes(total, 12), "fp")
	if sizes := lexChunks(t, st, p.ID); len(sizes) != 16 {
		t.Fatalf("%d chunks, want 16", len(sizes))
	}
}

// TestLexicalIndexResaveReplacesChunks: a smaller index saved over a larger
// one leaves none of the larger one's chunks behind.
func TestLexicalIndexResaveReplacesChunks(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	big, small := lexBytes(9500, 3), lexBytes(2100, 4)
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "big"}, writeInPieces(big), 1000); err != nil {
		t.Fatal(err)
	}
	if sizes := lexChunks(t, st, p.ID); len(sizes) != 10 {
		t.Fatalf("chunks %v, want 10", sizes)
	}
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "small"}, writeInPieces(small), 1000); err != nil {
		t.Fatal(err)
	}
	if sizes := lexChunks(t, st, p.ID); len(sizes) != 3 || sizes[2] != 100 {
		t.Fatalf("chunks %v, want 1000, 1000, 100", sizes)
	}
	checkLexData(t, st, p.ID, small, "small")
}

// TestLexicalIndexFailedSaveKeepsPrevious: a save whose encoder fails after
// several chunks were written, or whose writes fail without the encoder
// saying so, leaves the previous index (row and chunks) as it was.
func TestLexicalIndexFailedSaveKeepsPrevious(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	old := lexBytes(4500, 5)
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "old", NumDocs: 1}, writeInPieces(old), 1000); err != nil {
		t.Fatal(err)
	}
	before, err := st.LexicalIndexInfo(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func() {
		t.Helper()
		checkLexData(t, st, p.ID, old, "old")
		if sizes := lexChunks(t, st, p.ID); len(sizes) != 5 {
			t.Fatalf("chunks %v, want the old 5", sizes)
		}
		after, err := st.LexicalIndexInfo(ctx, p.ID)
		if err != nil || !after.BuiltAt.Equal(before.BuiltAt) || after.NumDocs != 1 {
			t.Fatalf("info %+v, %v; want %+v", after, err, before)
		}
	}

	boom := errors.New("encoder failed")
	failing := func(w io.Writer) error {
		if err := writeInPieces(lexBytes(7000, 6))(w); err != nil {
			return err
		}
		return boom
	}
	_, err = st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "new", NumDocs: 2}, failing, 1000)
	if !errors.Is(err, boom) {
		t.Fatalf("save with a failing encoder: %v, want %v", err, boom)
	}
	unchanged()

	// Writes that fail (here: the context ends after the third chunk) fail
	// the save even when the encoder drops their errors.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	careless := func(w io.Writer) error {
		data := lexBytes(8000, 7)
		for off := 0; off < len(data); off += 10 {
			if off == 3500 {
				cancel()
			}
			w.Write(data[off : off+10])
		}
		return nil
	}
	if _, err := st.SaveLexicalIndexChunks(cctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "new"}, careless, 1000); err == nil {
		t.Fatal("a save whose chunk writes failed succeeded")
	}
	unchanged()
}

// TestLexicalIndexReaderSeesOneSave: while a save has written some of its
// chunks but not committed, a reader gets the whole previous index; after
// the commit, the whole new one.
func TestLexicalIndexReaderSeesOneSave(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	old, next := lexBytes(3500, 8), lexBytes(6000, 9)
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "old"}, writeInPieces(old), 1000); err != nil {
		t.Fatal(err)
	}
	halfway, resume := make(chan struct{}), make(chan struct{})
	encode := func(w io.Writer) error {
		if _, err := w.Write(next[:3000]); err != nil { // three chunks stored
			return err
		}
		close(halfway)
		<-resume
		_, err := w.Write(next[3000:])
		return err
	}
	var wg sync.WaitGroup
	var saveErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, saveErr = st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "next"}, encode, 1000)
	}()
	<-halfway
	got, fp, err := st.LexicalIndexData(ctx, p.ID)
	close(resume)
	wg.Wait()
	if err != nil || fp != "old" || !bytes.Equal(got, old) {
		t.Fatalf("read during a save: %d bytes for %q, %v; want the old %d bytes", len(got), fp, err, len(old))
	}
	if saveErr != nil {
		t.Fatal(saveErr)
	}
	checkLexData(t, st, p.ID, next, "next")
}

// TestLexicalIndexDeletedWithProject: deleting a project deletes its index
// row and every chunk.
func TestLexicalIndexDeletedWithProject(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "fp"}, writeInPieces(lexBytes(2500, 10)), 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM projects WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	var rows, chunks int
	err := st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM lexical_indexes), (SELECT count(*) FROM lexical_index_chunks)`).Scan(&rows, &chunks)
	if err != nil || rows != 0 || chunks != 0 {
		t.Fatalf("after deleting the project: %d index rows, %d chunks, %v", rows, chunks, err)
	}
}

// TestLexicalIndexMigrationKeepsData: an index saved as one value before
// 0101 reads back unchanged after it (as chunk 0).
func TestLexicalIndexMigrationKeepsData(t *testing.T) {
	ctx := context.Background()
	s, err := store.Open(ctx, storetest.URL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.MigrateTo(ctx, 100); err != nil {
		t.Fatal(err)
	}
	data := lexBytes(70000, 11)
	if _, err := s.Pool().Exec(ctx, `INSERT INTO projects (name) VALUES ('old')`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `INSERT INTO lexical_indexes (project_id, fingerprint, n_docs, n_terms, data)
		SELECT id, 'fp-old', 4, 5, $1 FROM projects`, data); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := s.ProjectByName(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	checkLexData(t, s, p.ID, data, "fp-old")
	if sizes := lexChunks(t, s, p.ID); len(sizes) != 1 {
		t.Fatalf("chunks %v, want one", sizes)
	}
}

// TestLexicalIndexReadStreams: ReadLexicalIndex streams the chunks in seq
// order as one reader of the stored size, whatever the reads' sizes; a
// caller that finds the fingerprint stale need not read.
func TestLexicalIndexReadStreams(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	data := lexBytes(10*1000+7, 13)
	if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "fp"}, writeInPieces(data), 1000); err != nil {
		t.Fatal(err)
	}
	var got []byte
	err := st.ReadLexicalIndex(ctx, p.ID, func(r io.Reader, size int64, fp string) error {
		if size != int64(len(data)) || fp != "fp" {
			return fmt.Errorf("size %d for %q, want %d for fp", size, fp, len(data))
		}
		buf := make([]byte, 777)
		for {
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("streamed %d bytes (%v), want the %d stored", len(got), err, len(data))
	}
	if err := st.ReadLexicalIndex(ctx, p.ID, func(io.Reader, int64, string) error { return nil }); err != nil {
		t.Fatalf("a reader that reads nothing: %v", err)
	}
}

// TestLexicalIndexReadChecksChunks: a missing chunk, or chunks that do not
// add up to the stored size, is an error, not a silently shorter index.
func TestLexicalIndexReadChecksChunks(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	p := lexProject(t, st)
	data := lexBytes(5000, 14)
	for _, c := range []struct{ name, sql, want string }{
		{"missing chunk", `DELETE FROM lexical_index_chunks WHERE project_id = $1 AND seq = 2`, "chunk 2 is missing"},
		{"missing last chunk", `DELETE FROM lexical_index_chunks WHERE project_id = $1 AND seq = 4`, "chunks hold 4000 bytes, the stored size is 5000"},
		{"size too large", `UPDATE lexical_indexes SET n_bytes = 5001 WHERE project_id = $1`, "chunks hold 5000 bytes, the stored size is 5001"},
		{"size too small", `UPDATE lexical_indexes SET n_bytes = 4999 WHERE project_id = $1`, "more than the stored size 4999"},
	} {
		if _, err := st.SaveLexicalIndexChunks(ctx, store.LexicalIndexInfo{ProjectID: p.ID, Fingerprint: "fp"}, writeInPieces(data), 1000); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Pool().Exec(ctx, c.sql, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.LexicalIndexData(ctx, p.ID); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
