package export_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boolpool/server/export"
	"boolpool/server/ingest"
	"boolpool/server/store"
	"boolpool/server/store/storetest"
)

// TestBEIRDerivedQrels: the BEIR export's qrels=direct|derived|both on a
// hand-made fixture: q1 = "board games" AND "Xlib programs", imported
// qrels for chess, go and xvier, atom labels that make xvier true, chess
// and gnugo false, go and xterm unknown. The qrels TSV keeps BEIR's three
// columns; the sidecar qrels/test.source.tsv names each qrel's source line
// for line; the zip download holds the same files; re-importing the
// directory skips the sidecar.
func TestBEIRDerivedQrels(t *testing.T) {
	ctx := context.Background()
	st := storetest.New(t)
	pid := gamesXlibProject(t, st, "beir-derived", func(im *store.Importer, q1 int64) error {
		for _, d := range []string{"chess", "gnugo", "go", "xterm", "xvier"} {
			if err := im.Document(ctx, store.DocumentIn{ExtID: d, Title: d, Body: d + " is a package."}); err != nil {
				return err
			}
		}
		for _, d := range []string{"chess", "go", "xvier"} {
			if err := im.Qrel(ctx, q1, d, 1, "positive", "qrels"); err != nil {
				return err
			}
		}
		return nil
	},
		atomLabel{"games", "chess", "yes"}, atomLabel{"games", "xvier", "yes"}, atomLabel{"games", "go", "unsure"},
		atomLabel{"games", "gnugo", "yes"}, atomLabel{"xlib", "gnugo", "no"},
		atomLabel{"xlib", "xvier", "yes"}, atomLabel{"xlib", "chess", "no"}, atomLabel{"xlib", "xterm", "yes"})

	const header, sideHeader = "query-id\tcorpus-id\tscore\n", "query-id\tcorpus-id\tsource\n"
	cases := []struct {
		mode          string
		qrels, source string // "" source: no sidecar
		count         int
	}{
		{"direct", header + "q1\tchess\t1\nq1\tgo\t1\nq1\txvier\t1\n", "", 3},
		{"derived", header + "q1\tchess\t0\nq1\tgnugo\t0\nq1\txvier\t1\n",
			sideHeader + "q1\tchess\tderived\nq1\tgnugo\tderived\nq1\txvier\tderived\n", 3},
		{"both", header + "q1\tchess\t1\nq1\tgo\t1\nq1\txvier\t1\nq1\tgnugo\t0\n",
			sideHeader + "q1\tchess\tdirect-conflict\nq1\tgo\tdirect\nq1\txvier\tboth\nq1\tgnugo\tderived\n", 4},
	}
	for _, tc := range cases {
		dir := t.TempDir()
		c, err := export.WriteDir(ctx, st, pid, "beir", dir, export.Options{Qrels: tc.mode})
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if c.Qrels != tc.count || c.Documents != 5 || c.Queries != 1 {
			t.Errorf("%s: counts %+v, want %d qrels", tc.mode, c, tc.count)
		}
		got, err := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.qrels {
			t.Errorf("%s: qrels/test.tsv\n%s\nwant\n%s", tc.mode, got, tc.qrels)
		}
		side, err := os.ReadFile(filepath.Join(dir, "qrels", "test.source.tsv"))
		switch {
		case tc.source == "" && !os.IsNotExist(err):
			t.Errorf("%s: a sidecar was written (%v)", tc.mode, err)
		case tc.source != "" && string(side) != tc.source:
			t.Errorf("%s: qrels/test.source.tsv (%v)\n%s\nwant\n%s", tc.mode, err, side, tc.source)
		}

		// The zip download (WriteSnapshot) holds the same qrels and sidecar.
		var b bytes.Buffer
		snap, err := export.WriteSnapshot(ctx, st, pid, "beir", &b, export.Options{Qrels: tc.mode, ZipRoot: "x-beir"}, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if snap.Counts.Qrels != tc.count {
			t.Errorf("%s: zip counts %+v", tc.mode, snap.Counts)
		}
		files := unzip(t, b.Bytes())
		if files["x-beir/qrels/test.tsv"] != tc.qrels || files["x-beir/qrels/test.source.tsv"] != tc.source {
			t.Errorf("%s: zip files %v", tc.mode, files)
		}

		// Re-importing the exported directory reads the qrels, not the sidecar.
		p2, err := st.EnsureProject(ctx, "reimport-"+tc.mode)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ingest.Files(ctx, st, p2.ID, "beir", []string{dir}, ingest.Options{NoDecompose: true})
		if err != nil {
			t.Fatalf("%s: re-import: %v", tc.mode, err)
		}
		if len(res) != 3 || !strings.HasSuffix(res[2].File, "test.tsv") {
			t.Errorf("%s: re-import read %+v", tc.mode, res)
		}
	}

	if _, err := export.WriteDir(ctx, st, pid, "beir", t.TempDir(), export.Options{Qrels: "guessed"}); err == nil || !strings.Contains(err.Error(), "qrels") {
		t.Fatalf("an unknown qrels mode: %v", err)
	}
}

// unzip returns a zip archive's files by name.
func unzip(t *testing.T, b []byte) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = string(data)
	}
	return out
}
