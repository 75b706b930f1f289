package encoders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"boolpool/encoders/onnxgen"
	"boolpool/encoders/tokenizer"
)

// Registered dense encoder names.
const (
	MiniLM       = "minilm"        // all-MiniLM-L6-v2, fp32 transformer
	MiniLMInt8   = "minilm-int8"   // the same, dynamically quantised to int8
	MiniLMStatic = "minilm-static" // static token table distilled from MiniLM
)

// recipe versions the way each registered model is built; a cached model
// with another recipe (metadata "boolpool_recipe") is rebuilt by Prepare.
const (
	// bert-2: the self-attention blocks are ONNX Runtime Attention /
	// QAttention operators (ImportOptions.FusedAttention).
	bertRecipe   = "bert-2"
	staticRecipe = "static-2"
)

// sourceName is the directory under models/ that scripts/fetch-models.sh fills.
const sourceName = "minilm-fp16"

// Names lists the registered dense encoders.
func Names() []string { return []string{MiniLM, MiniLMInt8, MiniLMStatic} }

// ModelsDir is where source weights and generated ONNX files live.
func (r *Runtime) ModelsDir() string { return filepath.Join(r.cfg.CacheDir, "models") }

// SourceDir holds config.json, tokenizer.json and the safetensors weights.
func (r *Runtime) SourceDir() string { return filepath.Join(r.ModelsDir(), sourceName) }

// ModelPath is the ONNX file of a registered encoder.
func (r *Runtime) ModelPath(name string) string {
	return filepath.Join(r.ModelsDir(), name+".onnx")
}

func checkName(name string) error {
	for _, n := range Names() {
		if n == name {
			return nil
		}
	}
	return fmt.Errorf("encoders: unknown encoder %q (known: %v)", name, Names())
}

// Prepare makes sure the ONNX file of a registered encoder exists, building
// it from the fetched weights when missing (the static encoder is distilled
// through the fp32 transformer, which is prepared first). It returns the path.
func (r *Runtime) Prepare(ctx context.Context, name string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	path := r.ModelPath(name)
	want := bertRecipe
	if name == MiniLMStatic {
		want = staticRecipe
	}
	if _, err := os.Stat(path); err == nil {
		if got, _ := modelRecipe(path); got == want {
			return path, nil
		}
		slog.Info("rebuilding encoder model made by another recipe", "encoder", name, "want", want)
	}
	src := r.SourceDir()
	if _, err := os.Stat(filepath.Join(src, "config.json")); err != nil {
		return "", fmt.Errorf("encoders: model weights not found in %s: %w (run scripts/fetch-models.sh)", src, ErrNotInstalled)
	}
	start := time.Now()
	switch name {
	case MiniLM, MiniLMInt8:
		if err := ImportBert(ctx, src, path, ImportOptions{Int8: name == MiniLMInt8, FusedAttention: true}); err != nil {
			return "", err
		}
	case MiniLMStatic:
		if err := r.distillStatic(ctx, src, path); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(path+".recipe", []byte(want+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("encoders: %w", err)
	}
	slog.Info("prepared encoder model", "encoder", name, "path", path, "elapsed", time.Since(start).Round(time.Millisecond))
	return path, nil
}

// ImportOptions choose the ONNX graph ImportBert writes.
type ImportOptions struct {
	// Int8 quantises the Linear layers (dynamic quantisation).
	Int8 bool
	// Fused writes ONNX Runtime's contrib operators (Attention, QAttention,
	// SkipLayerNormalization, BiasGelu, DynamicQuantizeMatMul) instead of
	// standard ONNX operators. In int8 it was slower than FusedAttention
	// alone (encoders/README.md, Speed), so no registered encoder uses it.
	Fused bool
	// FusedAttention keeps the standard-operator graph but writes each
	// self-attention block as one ONNX Runtime Attention / QAttention
	// operator (see onnxgen.BertOptions.FusedAttention).
	FusedAttention bool
}

// ImportBert converts a BERT checkpoint directory (config.json +
// *.safetensors) into an ONNX sentence encoder at out.
func ImportBert(ctx context.Context, srcDir, out string, opt ImportOptions) error {
	cfg, err := onnxgen.LoadBertConfig(filepath.Join(srcDir, "config.json"))
	if err != nil {
		return err
	}
	weightsPath, err := findSafetensors(srcDir)
	if err != nil {
		return err
	}
	w, err := onnxgen.LoadSafetensors(weightsPath)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hash, err := fileSHA256(weightsPath)
	if err != nil {
		return err
	}
	precision := "fp32"
	if opt.Int8 {
		precision = "int8"
	}
	m, err := onnxgen.BuildBert(cfg, w, onnxgen.BertOptions{Int8: opt.Int8, Fused: opt.Fused, FusedAttention: opt.FusedAttention, Metadata: map[string]string{
		"source_sha256":   hash,
		"precision":       precision,
		"boolpool_recipe": bertRecipe,
	}})
	if err != nil {
		return fmt.Errorf("encoders: build %s: %w", srcDir, err)
	}
	return writeAtomic(out, m.Marshal())
}

// modelRecipe reads the recipe stamp written next to a prepared model (the
// same value is in the model's "boolpool_recipe" metadata; the stamp avoids
// loading the model just to check it).
func modelRecipe(path string) (string, error) {
	data, err := os.ReadFile(path + ".recipe")
	if err != nil {
		return "", fmt.Errorf("encoders: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

func findSafetensors(dir string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return "", fmt.Errorf("encoders: %w", err)
	}
	if len(matches) != 1 {
		return "", fmt.Errorf("encoders: want exactly one .safetensors file in %s, found %d", dir, len(matches))
	}
	return matches[0], nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("encoders: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("encoders: hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeAtomic writes data to path through a temporary file and a rename, so
// a reader never sees a half-written model.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("encoders: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*.onnx")
	if err != nil {
		return fmt.Errorf("encoders: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("encoders: write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("encoders: write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("encoders: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("encoders: %w", err)
	}
	return nil
}

// distillStatic builds the static encoder: every vocabulary token, alone
// between [CLS] and [SEP], goes through the fp32 transformer; the resulting
// table is reduced by PCA and Zipf-weighted (onnxgen.DistillStatic).
func (r *Runtime) distillStatic(ctx context.Context, src, out string) error {
	enc, err := r.Open(ctx, MiniLM)
	if err != nil {
		return err
	}
	defer enc.Close()
	vocab := enc.tok.VocabSize()
	vecs := make([][]float32, vocab)
	const batch = 512
	for start := 0; start < vocab; start += batch {
		end := min(start+batch, vocab)
		n := end - start
		ids := make([]int64, 3*n)
		mask := make([]int64, 3*n)
		for i := 0; i < n; i++ {
			ids[3*i], ids[3*i+1], ids[3*i+2] = int64(enc.tok.CLS()), int64(start+i), int64(enc.tok.SEP())
			mask[3*i], mask[3*i+1], mask[3*i+2] = 1, 1, 1
		}
		out, err := enc.sess.run(ctx, n, 3, [][]int64{ids, mask, make([]int64, 3*n)}, nil)
		if err != nil {
			return fmt.Errorf("encoders: distil static: %w", err)
		}
		copy(vecs[start:end], out)
	}
	table, err := onnxgen.DistillStatic(vecs, onnxgen.StaticOptions{})
	if err != nil {
		return fmt.Errorf("encoders: %w", err)
	}
	m := onnxgen.BuildStatic(table, onnxgen.StaticOptions{Metadata: map[string]string{
		"distilled_from":  MiniLM,
		"precision":       "fp32",
		"boolpool_recipe": staticRecipe,
	}})
	return writeAtomic(out, m.Marshal())
}

// ONNXEncoder is a dense encoder backed by an ONNX Runtime session. It is
// safe for concurrent use; Close releases it.
type ONNXEncoder struct {
	onnxEncoder
	path string
}

// ModelInfo describes an encoder for registration (e.g. in the database).
type ModelInfo struct {
	Name      string `json:"name"`
	Dim       int    `json:"dim"`
	Pooling   string `json:"pooling"`   // "mean" over the attention mask
	Normalize string `json:"normalize"` // "l2"
	MaxTokens int    `json:"max_tokens"`
	SHA256    string `json:"sha256"` // of the ONNX file
	Path      string `json:"path"`
}

// Info returns the encoder's description; it hashes the model file.
func (e *ONNXEncoder) Info() (ModelInfo, error) {
	hash, err := fileSHA256(e.path)
	if err != nil {
		return ModelInfo{}, err
	}
	return ModelInfo{Name: e.name, Dim: e.dim, Pooling: "mean", Normalize: "l2", MaxTokens: e.window, SHA256: hash, Path: e.path}, nil
}

// DefaultBatchSize is the number of sequences per inference call of the
// transformer encoders when Config.BatchSize is unset.
const DefaultBatchSize = 32

// StaticBatchSize is that number for the static encoder. Its graph gathers
// a [batch, sequence, dim] tensor of table rows before pooling, so the
// batch sets how much memory one call streams through: measured on 2 cores
// (20,480 synthetic documents of ≈ 390 bytes, ONNX Runtime not spinning),
// 24.5–25.3 µs per document at 16, 24.8–26.6 at 8, 31.4 at 32, 46.0 at 64
// and 120–169 at 256.
const StaticBatchSize = 16

// Open prepares (if needed) and loads a registered dense encoder.
func (r *Runtime) Open(ctx context.Context, name string) (*ONNXEncoder, error) {
	path, err := r.Prepare(ctx, name)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(filepath.Join(r.SourceDir(), "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("encoders: %w", err)
	}
	meta, err := ort.GetModelMetadata(path)
	if err != nil {
		return nil, fmt.Errorf("encoders: read metadata of %s: %w", path, err)
	}
	defer meta.Destroy()
	dimStr, ok, err := meta.LookupCustomMetadataMap("dim")
	if err != nil || !ok {
		return nil, fmt.Errorf("encoders: %s has no dim metadata (not made by boolpool?): %v", path, err)
	}
	dim, err := strconv.Atoi(dimStr)
	if err != nil {
		return nil, fmt.Errorf("encoders: %s: bad dim %q: %w", path, dimStr, err)
	}
	e := onnxEncoder{name: name, dim: dim, tok: tok, batch: r.cfg.BatchSize}
	inputs := []string{onnxgen.InputIDs, onnxgen.AttentionMask, onnxgen.TokenTypeIDs}
	if e.batch <= 0 {
		e.batch = DefaultBatchSize
	}
	if name == MiniLMStatic {
		inputs = onnxgen.StaticInputNames()
		e.window = 4096
		if r.cfg.BatchSize <= 0 {
			e.batch = StaticBatchSize
		}
	} else {
		e.specials, e.typeIDs = true, true
		e.window = r.cfg.MaxTokens
		if s, ok, _ := meta.LookupCustomMetadataMap("max_length"); ok {
			if limit, err := strconv.Atoi(s); err == nil && limit < e.window {
				e.window = limit
			}
		}
	}
	sess, err := r.openSession(path, inputs, []string{onnxgen.OutputName})
	if err != nil {
		return nil, err
	}
	e.sess = sess
	return &ONNXEncoder{onnxEncoder: e, path: path}, nil
}

// LoadTokenizer loads the MiniLM WordPiece tokenizer from the cache
// (cacheDir "" means DefaultCacheDir); it is the vocabulary of the lexical
// sparse encoder too.
func LoadTokenizer(cacheDir string) (*tokenizer.Tokenizer, error) {
	if cacheDir == "" {
		cacheDir = DefaultCacheDir()
	}
	path := filepath.Join(cacheDir, "models", sourceName, "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("encoders: %s: %w (run scripts/fetch-models.sh)", path, ErrNotInstalled)
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		return nil, fmt.Errorf("encoders: %w", err)
	}
	return tok, nil
}
