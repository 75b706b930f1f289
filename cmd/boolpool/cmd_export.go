package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"boolpool/server/export"
)

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr, fmt.Sprintf("usage: boolpool export --project P --format F [--out PATH] [--consensus majority|dawid-skene]\n\nformats: %s\n(beir writes a directory; others a file, or standard output without --out)\n", strings.Join(export.Formats(), ", ")))
	dbURL := dbFlag(fs)
	project := fs.String("project", "", "project name")
	format := fs.String("format", "", "output format")
	out := fs.String("out", "", "output file (directory for beir); standard output when omitted")
	run := fs.String("run", "", "trec-run: name of the run to export")
	qrels := fs.String("qrels", "direct", "qrels-consensus, quest-judged, beir: direct | derived (from constraint judgments / atom labels) | both; derived labels are marked (5th column / metadata qrels_source / beir sidecar qrels/test.source.tsv)")
	cons := fs.String("consensus", "", "qrels-consensus, quest-judged: majority | dawid-skene (reliability-weighted); default: the project's method (dashboard quality settings; majority unless changed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *project == "" || *format == "" {
		fs.Usage()
		return fmt.Errorf("%w: --project and --format are required", errUsage)
	}
	opt := export.Options{Run: *run, Consensus: *cons, Qrels: *qrels}
	if err := export.Check(*format, opt); err != nil {
		return flagError(err)
	}
	if export.MultiFile(*format) && *out == "" {
		return fmt.Errorf("%w: %s writes several files: pass --out DIR", errUsage, *format)
	}
	st, p, err := openProject(ctx, *dbURL, *project)
	if err != nil {
		return err
	}
	defer st.Close()
	if opt.Consensus == "" {
		opt.Consensus = p.ConsensusMethod
	}
	var c export.Counts
	var snap export.Snapshot
	switch {
	case export.MultiFile(*format):
		c, err = export.WriteDir(ctx, st, p.ID, *format, *out, opt)
	case *out == "":
		snap, err = export.WriteSnapshot(ctx, st, p.ID, *format, stdout, opt, "", 0)
		c = snap.Counts
	default:
		c, err = writeAtomically(*out, func(w io.Writer) (export.Counts, error) {
			snap, err = export.WriteSnapshot(ctx, st, p.ID, *format, w, opt, "", 0)
			return snap.Counts, err
		})
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "exported %d lines (%d queries, %d documents, %d qrels)\n", c.Lines, c.Queries, c.Documents, c.Qrels)
	if snap.ID != "" {
		fmt.Fprintf(stderr, "export id %s (sha256 %s, %d bytes)\n", snap.ID, snap.SHA256, snap.Bytes)
	}
	return nil
}

// writeAtomically writes to a temporary file beside path and renames it, so
// a failed export never leaves a truncated file.
func writeAtomically(path string, fn func(io.Writer) (export.Counts, error)) (export.Counts, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return export.Counts{}, err
	}
	defer os.Remove(tmp.Name())
	c, err := fn(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c, err
	}
	return c, os.Rename(tmp.Name(), path)
}
