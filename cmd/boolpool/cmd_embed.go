package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"boolpool/encoders"
)

// runEmbed prints the vectors of texts given as arguments (or, with none,
// one text per line on stdin).
func runEmbed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("embed", stderr, "usage: boolpool embed [--encoder NAME] [--json] [--device cpu|cuda] TEXT...\n(no TEXT: one text per line on stdin)")
	name := fs.String("encoder", encoders.MiniLM, "encoder `name`: "+strings.Join(encoders.Names(), ", "))
	asJSON := fs.Bool("json", false, "print a JSON array of arrays, one vector per text")
	rtCfg := runtimeFlags(fs, "execution `device`: cpu or cuda")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	texts := fs.Args()
	if len(texts) == 0 {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
	enc, closeEnc, err := openEncoder(ctx, *rtCfg, *name)
	if err != nil {
		return err
	}
	defer closeEnc()
	vecs, err := enc.Encode(ctx, texts)
	if err != nil {
		return err
	}
	if *asJSON {
		if vecs == nil {
			vecs = [][]float32{}
		}
		return json.NewEncoder(stdout).Encode(vecs)
	}
	w := bufio.NewWriter(stdout)
	for i, v := range vecs {
		fmt.Fprintf(w, "%d\t%q\t%d dims\t%.4f …\n", i, texts[i], len(v), v[:min(4, len(v))])
	}
	return w.Flush()
}
