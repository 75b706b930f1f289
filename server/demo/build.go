// Package demo builds and loads boolpool's demo project: a compact subset of
// the DebQUEST set (Debian package descriptions as documents, debtags atoms,
// QUEST-format queries with gold sets) vendored in data/, plus demo accounts.
package demo

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// BuildOptions control the subset.
type BuildOptions struct {
	Split          string // queries of this split (default "val")
	MembersPerAtom int    // documents kept per atom of a chosen query (default 120)
	Distractors    int    // extra documents sampled from the rest (default 2500)
}

// Build derives the demo subset from a DebQUEST directory (documents.jsonl.gz,
// <split>.jsonl, memberships.tsv.gz) and writes data/documents.jsonl.gz and
// data/queries.jsonl into outDir. The choice is deterministic: every gold
// document, up to MembersPerAtom members of each atom used by the queries
// (so that single-atom and negated-atom distractors exist), and a stable
// hash-ordered sample of other documents.
func Build(ctx context.Context, srcDir, outDir string, opt BuildOptions) (docs, queries int, err error) {
	if opt.Split == "" {
		opt.Split = "val"
	}
	if opt.MembersPerAtom == 0 {
		opt.MembersPerAtom = 120
	}
	if opt.Distractors == 0 {
		opt.Distractors = 2500
	}
	qlines, keep, atoms, err := readQueries(filepath.Join(srcDir, opt.Split+".jsonl"))
	if err != nil {
		return 0, 0, err
	}
	members, all, err := readMemberships(filepath.Join(srcDir, "memberships.tsv.gz"), atoms)
	if err != nil {
		return 0, 0, err
	}
	for _, a := range slices.Sorted(maps.Keys(atoms)) {
		m := members[a]
		sort.Slice(m, func(i, j int) bool { return stableHash(m[i]) < stableHash(m[j]) })
		for i := 0; i < len(m) && i < opt.MembersPerAtom; i++ {
			keep[m[i]] = true
		}
	}
	sort.Slice(all, func(i, j int) bool { return stableHash(all[i]) < stableHash(all[j]) })
	added := 0
	for _, t := range all {
		if added >= opt.Distractors {
			break
		}
		if !keep[t] {
			keep[t] = true
			added++
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return 0, 0, fmt.Errorf("demo: %w", err)
	}
	docs, err = copyDocuments(ctx, filepath.Join(srcDir, "documents.jsonl.gz"), filepath.Join(outDir, "documents.jsonl.gz"), keep)
	if err != nil {
		return 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(outDir, "queries.jsonl"), []byte(strings.Join(qlines, "\n")+"\n"), 0o644); err != nil {
		return 0, 0, fmt.Errorf("demo: %w", err)
	}
	return docs, len(qlines), nil
}

func readQueries(path string) (lines []string, gold map[string]bool, atoms map[string]bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("demo: %w", err)
	}
	defer f.Close()
	gold, atoms = map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var q struct {
			Docs     []string `json:"docs"`
			Metadata struct {
				Atoms []string `json:"atoms"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, nil, nil, fmt.Errorf("demo: %s:%d: %w", path, len(lines)+1, err)
		}
		for _, d := range q.Docs {
			gold[d] = true
		}
		for _, a := range q.Metadata.Atoms {
			atoms[a] = true
		}
		lines = append(lines, sc.Text())
	}
	return lines, gold, atoms, sc.Err()
}

func readMemberships(path string, atoms map[string]bool) (map[string][]string, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("demo: %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, fmt.Errorf("demo: %s: %w", path, err)
	}
	members := map[string][]string{}
	var all []string
	sc := bufio.NewScanner(gz)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue // header
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 {
			continue
		}
		all = append(all, cols[0])
		for _, a := range strings.Split(cols[2], ",") {
			if atoms[a] {
				members[a] = append(members[a], cols[0])
			}
		}
	}
	return members, all, sc.Err()
}

func copyDocuments(ctx context.Context, src, dst string, keep map[string]bool) (int, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, fmt.Errorf("demo: %w", err)
	}
	defer in.Close()
	gz, err := gzip.NewReader(in)
	if err != nil {
		return 0, fmt.Errorf("demo: %s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return 0, fmt.Errorf("demo: %w", err)
	}
	defer out.Close()
	zw, _ := gzip.NewWriterLevel(out, gzip.BestCompression)
	br := bufio.NewReaderSize(gz, 1<<20)
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var d struct {
				Title string `json:"title"`
			}
			if jerr := json.Unmarshal(line, &d); jerr != nil {
				return n, fmt.Errorf("demo: %s: %w", src, jerr)
			}
			if keep[d.Title] {
				if !strings.HasSuffix(string(line), "\n") {
					line = append(line, '\n')
				}
				if _, werr := zw.Write(line); werr != nil {
					return n, werr
				}
				n++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, fmt.Errorf("demo: %s: %w", src, err)
		}
	}
	if err := zw.Close(); err != nil {
		return n, err
	}
	return n, out.Close()
}

func stableHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
