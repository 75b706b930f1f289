package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"boolpool/encoders"
	"boolpool/server/app"
)

// runModel manages encoder models: converting checkpoints to ONNX and
// preparing the registered encoders in the cache.
func runModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	usage := func() {
		fmt.Fprintln(stderr, `usage:
  boolpool model import --src DIR --out FILE.onnx [--int8] [--fused]
      convert a BERT checkpoint (config.json + *.safetensors) to an ONNX sentence encoder
  boolpool model prepare [--encoder NAME,...|all]
      build the registered encoders' ONNX files in the cache (from scripts/fetch-models.sh output)
  boolpool model where
      print the cache directory, the ONNX Runtime library and the models directory in use`)
	}
	if len(args) == 0 {
		usage()
		return fmt.Errorf("%w: missing sub-command", errUsage)
	}
	switch args[0] {
	case "import":
		return runModelImport(ctx, args[1:], stdout, stderr)
	case "prepare":
		return runModelPrepare(ctx, args[1:], stdout, stderr)
	case "where":
		return runModelWhere(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		usage()
		return nil
	}
	usage()
	return fmt.Errorf("%w: unknown sub-command %q", errUsage, args[0])
}

func runModelImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("model import", stderr, "")
	src := fs.String("src", "", "checkpoint `directory` with config.json and one .safetensors file")
	out := fs.String("out", "", "output ONNX `file`")
	int8 := fs.Bool("int8", false, "quantise Linear layers to int8 (dynamic quantisation)")
	fused := fs.Bool("fused", false, "use ONNX Runtime contrib operators (Attention, SkipLayerNormalization …) instead of standard ONNX operators")
	fusedAttn := fs.Bool("fused-attention", false, "standard ONNX operators except one ONNX Runtime Attention/QAttention operator per self-attention block")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	if *src == "" || *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: --src and --out are required", errUsage)
	}
	if err := encoders.ImportBert(ctx, *src, *out, encoders.ImportOptions{Int8: *int8, Fused: *fused, FusedAttention: *fusedAttn}); err != nil {
		return err
	}
	fmt.Fprintln(stdout, *out)
	return nil
}

func runModelPrepare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("model prepare", stderr, "")
	names := fs.String("encoder", "all", "comma-separated encoder `names` ("+strings.Join(encoders.Names(), ", ")+") or all")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	list := encoders.Names()
	if *names != "all" {
		list = strings.Split(*names, ",")
	}
	rt, err := app.OpenRuntime(encoders.Config{})
	if err != nil {
		return err
	}
	defer rt.Close()
	for _, name := range list {
		path, err := rt.Prepare(ctx, strings.TrimSpace(name))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s\t%s\n", name, path)
	}
	return nil
}

// runModelWhere prints where the encoders look for their pieces (see
// encoders.DefaultCacheDir), and whether each is there.
func runModelWhere(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("model where", stderr, "")
	if help, err := parseFlagsHelp(fs, args); help || err != nil {
		return err
	}
	cfg := encoders.DefaultConfig()
	state := func(path string) string {
		if _, err := os.Stat(path); err != nil {
			return "missing"
		}
		return "present"
	}
	models := filepath.Join(cfg.CacheDir, "models")
	fmt.Fprintf(stdout, "cache\t%s\t%s\n", cfg.CacheDir, state(cfg.CacheDir))
	fmt.Fprintf(stdout, "onnxruntime\t%s\t%s\n", cfg.LibraryPath, state(cfg.LibraryPath))
	fmt.Fprintf(stdout, "models\t%s\t%s\n", models, state(models))
	return nil
}
