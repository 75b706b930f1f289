package atoms

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"boolpool/server/boolexpr"
	"boolpool/server/store"
)

// Oracle holds an atom-qrels file: atom key → the documents that satisfy
// it. A document not listed for an atom does not satisfy it.
type Oracle map[string]map[string]bool

// ReadOracle reads lines "atom text<TAB>document id<TAB>0|1" (1 =
// satisfies; 0 lines are accepted and change nothing), keyed by
// Normalise(atom text). Errors name the line.
func ReadOracle(r io.Reader) (Oracle, error) {
	out := Oracle{}
	err := eachTSVLine(r, "atom qrels", func(n int, f []string) error {
		if len(f) != 3 {
			return fmt.Errorf("atoms: atom qrels line %d: %d tab-separated fields, want 3 (atom, document, 0|1)", n, len(f))
		}
		k := Normalise(f[0])
		if k == "" || f[1] == "" {
			return fmt.Errorf("atoms: atom qrels line %d: empty atom or document", n)
		}
		switch f[2] {
		case "1":
			if out[k] == nil {
				out[k] = map[string]bool{}
			}
			out[k][f[1]] = true
		case "0":
		default:
			return fmt.Errorf("atoms: atom qrels line %d: label %q, want 0 or 1", n, f[2])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachTSVLine calls fn with the number and the tab-separated fields of each
// non-empty line of r (a trailing CR dropped); an error of fn stops it and
// is returned as it is. what names the file in a read error.
func eachTSVLine(r io.Reader, what string, fn func(n int, f []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			continue
		}
		if err := fn(n, strings.Split(line, "\t")); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("atoms: %s line %d: %w", what, n+1, err)
	}
	return nil
}

// ReadOracleFile reads an atom-qrels file with ReadOracle, gunzipping it
// when its name ends in .gz; errors name the file.
func ReadOracleFile(path string) (Oracle, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	o, err := ReadOracle(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return o, nil
}

// Labels returns the oracle as (closed-world) labels: True for every listed
// pair. Derive with closedWorld treats the rest as False.
func (o Oracle) Labels() Labels {
	l := Labels{}
	for a, docs := range o {
		for d := range docs {
			l.Set(a, d, boolexpr.True)
		}
	}
	return l
}

// ReadLabelFile reads atom labels "atom text<TAB>document<TAB>1|0|unsure"
// (also yes/no) for the atoms in ids (key → atom id, matched by
// Normalise); lines of other atoms are counted in skipped. Errors name the
// line; nothing is returned on an error.
func ReadLabelFile(r io.Reader, ids map[string]int64) (labels []store.AtomLabel, skipped int, err error) {
	err = eachTSVLine(r, "labels", func(n int, f []string) error {
		if len(f) != 3 || f[1] == "" {
			return fmt.Errorf("atoms: labels line %d: want atom<TAB>document<TAB>label", n)
		}
		var label string
		switch f[2] {
		case "1", "yes":
			label = "yes"
		case "0", "no":
			label = "no"
		case "unsure":
			label = "unsure"
		default:
			return fmt.Errorf("atoms: labels line %d: label %q, want 1, 0, yes, no or unsure", n, f[2])
		}
		id, ok := ids[Normalise(f[0])]
		if !ok {
			skipped++
			return nil
		}
		labels = append(labels, store.AtomLabel{AtomID: id, DocExtID: f[1], Label: label, Source: "import"})
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return labels, skipped, nil
}
