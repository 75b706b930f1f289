// Package encoders turns text into vectors: dense sentence encoders run on
// ONNX Runtime (a BERT transformer in fp32 or int8, and a static
// Model2Vec-style encoder distilled from it), and sparse lexical term-weight
// encoders over the tokenizer's vocabulary.
//
// All cgo of the repository lives in this package (through
// github.com/yalue/onnxruntime_go). The ONNX Runtime shared library is found
// through BOOLPOOL_ORT_LIB or the cache filled by scripts/install-onnxruntime.sh;
// models are prepared into the cache (see Prepare) from the weights fetched by
// scripts/fetch-models.sh.
//
// Long documents are split into windows of at most the model's token limit
// (content tokens, each window wrapped in [CLS] … [SEP]); the document vector
// is the mean of its window vectors, L2-renormalised. Texts of one Encode call
// are sorted by length and batched, each batch padded only to its longest
// sequence.
package encoders

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Device names.
const (
	DeviceCPU  = "cpu"
	DeviceCUDA = "cuda"
)

// ErrNotInstalled reports a missing ONNX Runtime library or model files.
var ErrNotInstalled = errors.New("not installed")

// Config configures the runtime and the encoders opened through it.
type Config struct {
	// CacheDir holds onnxruntime/ and models/ (default: DefaultCacheDir).
	CacheDir string
	// LibraryPath is the libonnxruntime.so to load (default:
	// $BOOLPOOL_ORT_LIB, else CacheDir/onnxruntime/libonnxruntime.so.1).
	LibraryPath string
	// Device is "cpu" (default) or "cuda".
	Device string
	// IntraOpThreads is ONNX Runtime's intra-op thread count (default: the
	// number of CPUs).
	IntraOpThreads int
	// OptLevel is the graph optimisation level: "all" (default), "extended",
	// "basic" or "none".
	OptLevel string
	// BatchSize is the number of sequences per inference call (default:
	// DefaultBatchSize, StaticBatchSize for the static encoder).
	BatchSize int
	// NoSpin stops ONNX Runtime's worker threads from spin-waiting between
	// operators: a little slower on an idle machine, much kinder to a busy one
	// (a web server, other jobs).
	NoSpin bool
	// MaxTokens caps the sequence length of transformer windows, special
	// tokens included (default 256, the sentence-transformers setting of
	// all-MiniLM-L6-v2; never more than the model's position limit).
	MaxTokens int
}

// DefaultConfig is the configuration NewRuntime uses for an empty Config:
// the cache directory and library path resolved as documented.
func DefaultConfig() Config { return Config{}.withDefaults() }

// withDefaults fills unset fields.
func (c Config) withDefaults() Config {
	if c.CacheDir == "" {
		c.CacheDir = DefaultCacheDir()
	}
	if c.LibraryPath == "" {
		c.LibraryPath = os.Getenv("BOOLPOOL_ORT_LIB")
	}
	if c.LibraryPath == "" {
		c.LibraryPath = filepath.Join(c.CacheDir, "onnxruntime", "libonnxruntime.so.1")
	}
	if c.Device == "" {
		c.Device = DeviceCPU
	}
	if c.IntraOpThreads <= 0 {
		c.IntraOpThreads = runtime.NumCPU()
	}
	if c.OptLevel == "" {
		c.OptLevel = "all"
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 256
	}
	return c
}

// DefaultCacheDir is where the ONNX Runtime library and the prepared
// models are looked for, independent of the working directory:
//
//  1. $BOOLPOOL_CACHE when set (made absolute);
//  2. the per-user cache directory (os.UserCacheDir()/boolpool, e.g.
//     ~/.cache/boolpool) when it holds the runtime or models;
//  3. the .cache directory of the checkout the binary was built into
//     (bin/boolpool → ../.cache), when it holds them;
//  4. the .cache directory of the checkout containing the working directory
//     (found by walking up to go.mod: go test, go run), when it holds them;
//  5. otherwise the first of those candidates that exists as a checkout
//     (so install messages point at the checkout), else the per-user one.
func DefaultCacheDir() string {
	user, _ := os.UserCacheDir()
	exe, _ := os.Executable()
	if exe != "" {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
	}
	wd, _ := os.Getwd()
	return resolveCacheDir(os.Getenv("BOOLPOOL_CACHE"), user, exe, wd)
}

// resolveCacheDir is DefaultCacheDir with its inputs passed in: the
// BOOLPOOL_CACHE value, os.UserCacheDir(), the binary's path and the working
// directory ("" = unknown).
func resolveCacheDir(env, userCache, exe, wd string) string {
	if env != "" {
		if abs, err := filepath.Abs(env); err == nil {
			return abs
		}
		return env
	}
	var candidates, checkouts []string
	if userCache != "" {
		candidates = append(candidates, filepath.Join(userCache, "boolpool"))
	}
	if exe != "" {
		root := filepath.Dir(filepath.Dir(exe)) // <checkout>/bin/boolpool
		candidates = append(candidates, filepath.Join(root, ".cache"))
		if exists(filepath.Join(root, "go.mod")) {
			checkouts = append(checkouts, filepath.Join(root, ".cache"))
		}
	}
	if wd != "" {
		for dir := wd; ; {
			if exists(filepath.Join(dir, "go.mod")) {
				candidates = append(candidates, filepath.Join(dir, ".cache"))
				checkouts = append(checkouts, filepath.Join(dir, ".cache"))
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	for _, c := range candidates {
		if holdsPieces(c) {
			return c
		}
	}
	if len(checkouts) > 0 {
		return checkouts[0]
	}
	if len(candidates) > 0 {
		return candidates[0]
	}
	return ".cache"
}

// holdsPieces reports whether dir holds the ONNX Runtime library or a
// models directory.
func holdsPieces(dir string) bool {
	return exists(filepath.Join(dir, "onnxruntime", "libonnxruntime.so.1")) || exists(filepath.Join(dir, "models"))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// The ONNX Runtime environment is process-wide state inside the C library,
// so it is reference-counted here: every Runtime holds one reference.
var (
	envMu   sync.Mutex
	envRefs int
	envLib  string
)

// Runtime is an initialised ONNX Runtime plus the session options every
// encoder uses. Close it when done.
type Runtime struct {
	cfg    Config
	closed bool
}

// NewRuntime loads the ONNX Runtime library and initialises its environment.
func NewRuntime(cfg Config) (*Runtime, error) {
	cfg = cfg.withDefaults()
	switch cfg.Device {
	case DeviceCPU, DeviceCUDA:
	default:
		return nil, fmt.Errorf("encoders: unknown device %q (cpu or cuda)", cfg.Device)
	}
	if _, err := optLevel(cfg.OptLevel); err != nil {
		return nil, err
	}
	envMu.Lock()
	defer envMu.Unlock()
	if envRefs == 0 {
		if _, err := os.Stat(cfg.LibraryPath); err != nil {
			return nil, fmt.Errorf("encoders: ONNX Runtime library %s: %w (run scripts/install-onnxruntime.sh or set BOOLPOOL_ORT_LIB): %w", cfg.LibraryPath, ErrNotInstalled, err)
		}
		ort.SetSharedLibraryPath(cfg.LibraryPath)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			return nil, fmt.Errorf("encoders: initialise ONNX Runtime from %s: %w", cfg.LibraryPath, err)
		}
		envLib = cfg.LibraryPath
	} else if envLib != cfg.LibraryPath {
		return nil, fmt.Errorf("encoders: ONNX Runtime already loaded from %s, cannot also load %s", envLib, cfg.LibraryPath)
	}
	envRefs++
	return &Runtime{cfg: cfg}, nil
}

// Config returns the effective configuration.
func (r *Runtime) Config() Config { return r.cfg }

// Close releases the runtime's reference to the ONNX Runtime environment.
func (r *Runtime) Close() error {
	envMu.Lock()
	defer envMu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	envRefs--
	if envRefs == 0 {
		if err := ort.DestroyEnvironment(); err != nil {
			return fmt.Errorf("encoders: destroy ONNX Runtime environment: %w", err)
		}
	}
	return nil
}

func optLevel(s string) (ort.GraphOptimizationLevel, error) {
	switch s {
	case "all":
		return ort.GraphOptimizationLevelEnableAll, nil
	case "extended":
		return ort.GraphOptimizationLevelEnableExtended, nil
	case "basic":
		return ort.GraphOptimizationLevelEnableBasic, nil
	case "none":
		return ort.GraphOptimizationLevelDisableAll, nil
	}
	return 0, fmt.Errorf("encoders: unknown graph optimisation level %q (all, extended, basic, none)", s)
}

// session is one loaded ONNX model. ONNX Runtime sessions are safe for
// concurrent Run calls, so one session serves every caller.
type session struct {
	s       *ort.DynamicAdvancedSession
	inputs  []string
	outputs []string
}

// openSession loads an ONNX file with the runtime's session options.
func (r *Runtime) openSession(path string, inputs, outputs []string) (*session, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("encoders: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(r.cfg.IntraOpThreads); err != nil {
		return nil, fmt.Errorf("encoders: intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("encoders: inter-op threads: %w", err)
	}
	if r.cfg.NoSpin {
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, fmt.Errorf("encoders: disable spinning: %w", err)
		}
	}
	lvl, err := optLevel(r.cfg.OptLevel)
	if err != nil {
		return nil, err
	}
	if err := opts.SetGraphOptimizationLevel(lvl); err != nil {
		return nil, fmt.Errorf("encoders: graph optimisation level: %w", err)
	}
	if r.cfg.Device == DeviceCUDA {
		cuda, err := ort.NewCUDAProviderOptions()
		if err != nil {
			return nil, fmt.Errorf("encoders: CUDA execution provider unavailable (the bundled ONNX Runtime is the CPU build; point BOOLPOOL_ORT_LIB at a CUDA build of libonnxruntime with CUDA 12 and cuDNN 9 installed): %w", err)
		}
		defer cuda.Destroy()
		if err := opts.AppendExecutionProviderCUDA(cuda); err != nil {
			return nil, fmt.Errorf("encoders: CUDA execution provider unavailable (the bundled ONNX Runtime is the CPU build; point BOOLPOOL_ORT_LIB at a CUDA build of libonnxruntime with CUDA 12 and cuDNN 9 installed): %w", err)
		}
	}
	s, err := ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	if err != nil {
		return nil, fmt.Errorf("encoders: load %s: %w", path, err)
	}
	return &session{s: s, inputs: inputs, outputs: outputs}, nil
}

// run feeds int64 [batch, seq] inputs (in the session's input order) and
// returns the first output as a [batch][dim] slice. With out non-nil (batch
// × dim floats) ONNX Runtime writes the output straight into it and the
// vectors share its array; otherwise the output is copied out of an
// ONNX Runtime allocation.
func (s *session) run(ctx context.Context, batch, seq int, inputs [][]int64, out []float32) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	shape := ort.NewShape(int64(batch), int64(seq))
	values := make([]ort.Value, len(inputs))
	for i, data := range inputs {
		t, err := ort.NewTensor(shape, data[:batch*seq])
		if err != nil {
			return nil, fmt.Errorf("encoders: input tensor: %w", err)
		}
		defer t.Destroy()
		values[i] = t
	}
	outputs := make([]ort.Value, len(s.outputs))
	if out != nil {
		if batch == 0 || len(out)%batch != 0 {
			return nil, fmt.Errorf("encoders: output buffer of %d floats for %d rows", len(out), batch)
		}
		t, err := ort.NewTensor(ort.NewShape(int64(batch), int64(len(out)/batch)), out)
		if err != nil {
			return nil, fmt.Errorf("encoders: output tensor: %w", err)
		}
		defer t.Destroy()
		outputs[0] = t
	}
	if err := s.s.Run(values, outputs); err != nil {
		return nil, fmt.Errorf("encoders: run: %w", err)
	}
	for _, o := range outputs[1:] {
		if o != nil {
			defer o.Destroy()
		}
	}
	if out != nil {
		dim := len(out) / batch
		vecs := make([][]float32, batch)
		for i := range vecs {
			vecs[i] = out[i*dim : (i+1)*dim : (i+1)*dim]
		}
		return vecs, nil
	}
	res, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		if outputs[0] != nil {
			outputs[0].Destroy()
		}
		return nil, fmt.Errorf("encoders: output is %T, want float32 tensor", outputs[0])
	}
	defer res.Destroy()
	oshape := res.GetShape()
	if len(oshape) != 2 || oshape[0] != int64(batch) {
		return nil, fmt.Errorf("encoders: output shape %v, want [%d, dim]", oshape, batch)
	}
	dim := int(oshape[1])
	data := res.GetData()
	vecs := make([][]float32, batch)
	flat := make([]float32, len(data))
	copy(flat, data)
	for i := range vecs {
		vecs[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return vecs, nil
}

func (s *session) close() error {
	if err := s.s.Destroy(); err != nil {
		return fmt.Errorf("encoders: destroy session: %w", err)
	}
	return nil
}
