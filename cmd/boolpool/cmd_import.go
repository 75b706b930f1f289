package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"boolpool/server/config"
	"boolpool/server/ingest"
	"boolpool/server/progress"
)

func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr, fmt.Sprintf("usage: boolpool import --project P --format F FILE...\n\nformats: %s\n(beir takes a dataset directory; .gz files are read transparently)\n", strings.Join(ingest.Formats(), ", ")))
	dbURL := dbFlag(fs)
	project := fs.String("project", "", "project name (created if missing)")
	format := fs.String("format", "", "input format")
	runName := fs.String("run-name", "", "trec-run: name of the run (default: file base name)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	noDecompose := fs.Bool("no-decompose", false, "do not store the decomposer's expressions for imported queries without one (formats without Boolean structure: nevir, boolq, beir, trec-topics, csv)")
	var limits config.Config
	limits.RegisterMaxLine(fs)
	limits.RegisterMaxImportBytes(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if limits.MaxLineBytes < 1024 {
		return fmt.Errorf("%w: --max-line must be at least 1024", errUsage)
	}
	if limits.MaxImportBytes < limits.MaxLineBytes {
		return fmt.Errorf("%w: --max-import-bytes must be at least --max-line", errUsage)
	}
	if *project == "" || *format == "" || fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("%w: --project, --format and at least one FILE are required", errUsage)
	}
	st, err := openStore(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := st.EnsureProject(ctx, *project)
	if err != nil {
		return err
	}
	bar := newByteProgress(stderr, *quiet)
	start := time.Now()
	results, err := ingest.Files(ctx, st, p.ID, *format, fs.Args(), ingest.Options{RunName: *runName, Progress: bar.update, MaxLine: limits.MaxLineBytes,
		MaxBytes: limits.MaxImportBytes, NoDecompose: *noDecompose})
	bar.done()
	for _, r := range results {
		fmt.Fprintf(stdout, "%s: %s (%s): %d documents, %d queries, %d qrels, %d run lines\n", r.File, r.Kind, r.Format,
			r.Counts.Documents, r.Counts.Queries, r.Counts.Qrels, r.Counts.RunResults)
		if r.Counts.Duplicates > 0 {
			fmt.Fprintf(stdout, "  duplicates: %d records repeated an earlier one (the last one wins), first at lines %s\n",
				r.Counts.Duplicates, joinInts(r.DuplicateLines))
		}
		if ig := r.IgnoredSummary(); ig != "" {
			fmt.Fprintf(stdout, "  ignored fields (present, not imported): %s\n", ig)
		}
		for i, n := range r.Notes {
			if i == 5 {
				fmt.Fprintf(stderr, "  … and %d more notes\n", len(r.Notes)-5)
				break
			}
			fmt.Fprintf(stderr, "  note: %s\n", n)
		}
	}
	if err != nil {
		return fmt.Errorf("%w (nothing of this file was imported)", err)
	}
	fmt.Fprintf(stderr, "imported %d file(s) into project %q in %s\n", len(results), *project, time.Since(start).Round(time.Millisecond))
	return nil
}

// byteProgress reports an import's progress (percent, rate, ETA): on a
// terminal one bar redrawn in place at most ten times a second; elsewhere
// (a log file, a pipe) a plain line every interval, never a carriage
// return. The summary lines follow either way.
type byteProgress struct {
	w        io.Writer
	off      bool
	tty      bool
	interval time.Duration // between plain lines off a terminal
	last     time.Time
	start    time.Time
	file     string
	drawn    bool
}

func newByteProgress(w io.Writer, off bool) *byteProgress {
	now := time.Now()
	return &byteProgress{w: w, off: off, tty: progress.IsTerminal(w), interval: 10 * time.Second, start: now, last: now}
}

func (b *byteProgress) update(file string, read, total int64) {
	if b.off {
		return
	}
	if file != b.file {
		b.file, b.start = file, time.Now()
	}
	every := b.interval
	if b.tty {
		every = 100 * time.Millisecond
	}
	if time.Since(b.last) < every {
		return
	}
	b.last = time.Now()
	frac := 0.0
	if total > 0 {
		frac = min(float64(read)/float64(total), 1)
	}
	el := time.Since(b.start).Seconds()
	rate := float64(read) / 1e6 / max(el, 1e-3)
	eta := "?"
	if frac > 0 {
		eta = time.Duration(el * (1 - frac) / frac * float64(time.Second)).Round(time.Second).String()
	}
	if !b.tty {
		fmt.Fprintf(b.w, "import %s: %3.0f%%  %.1f MB/s  elapsed %s  ETA %s\n", shortName(file), frac*100, rate,
			time.Duration(el*float64(time.Second)).Round(time.Second), eta)
		return
	}
	const width = 30
	n := int(frac * width)
	fmt.Fprintf(b.w, "\r%s [%s%s] %3.0f%% %.1f MB/s ETA %s   ", shortName(file), strings.Repeat("#", n), strings.Repeat(".", width-n), frac*100, rate, eta)
	b.drawn = true
}

func (b *byteProgress) done() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func shortName(p string) string {
	if len(p) > 30 {
		return "…" + p[len(p)-29:]
	}
	return p
}
