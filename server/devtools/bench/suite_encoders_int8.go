package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"boolpool/encoders"
	"boolpool/encoders/tokenizer"
)

// EncoderSpeedSuite compares the registered encoders with the fp32
// transformer at 128 tokens: end-to-end speed (texts in, vectors out,
// tokenizer included) in alternating rounds on the shared runtime, the same
// in CPU time on one thread (a figure other load on the machine barely
// moves), and the agreement of the int8 and static vectors with fp32. It
// needs neither node nor a database.
func EncoderSpeedSuite() Suite { return Suite{Name: "encoders-int8", Run: runEncoderSpeed} }

func runEncoderSpeed(ctx context.Context, env *Env) ([]Row, error) {
	rt, err := env.Runtime()
	if err != nil {
		return nil, err
	}
	sentences, err := readLines(filepath.Join("encoders", "testdata", "sentences.txt"))
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(filepath.Join(rt.SourceDir(), "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	open, closeAll, err := openEncoders(ctx, rt)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	flags := cpuFlags()
	bt := exactTexts(tok, sentences, 32, 128)
	rounds := 11
	if env.Quick {
		rounds = 3
	}

	// Wall clock, the runtime's threads: one Encode call per model per
	// round, many rounds (one fp32 call takes about a second here, and load
	// from other jobs changes on that time scale).
	speed := map[string][]float64{}
	for range rounds {
		for _, name := range encoders.Names() {
			v, err := rateFor(0, len(bt), func() error { _, err := open[name].Encode(ctx, bt); return err })
			if err != nil {
				return nil, err
			}
			speed[name] = append(speed[name], v)
		}
	}
	var cpu map[string][]float64
	if env.OpenRuntime != nil {
		if cpu, err = cpuRates(ctx, env.OpenRuntime, rt.Config(), bt, rounds); err != nil {
			return nil, err
		}
	}

	ref, err := open[encoders.MiniLM].Encode(ctx, sentences)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, name := range []string{encoders.MiniLMInt8, encoders.MiniLMStatic} {
		vecs, err := open[name].Encode(ctx, sentences)
		if err != nil {
			return nil, err
		}
		sp := pairedRow(Row{Suite: "encoders", Name: name + " speed at 128 tokens", Unit: "texts/s", HigherIsBetter: true,
			Note: fmt.Sprintf("Encode end to end (tokenizer included), batch 32, %d intra-op threads; CPU %s; median of %d alternating rounds; ratio = median of per-round ratios", rt.Config().IntraOpThreads, flags, rounds)},
			speed[name], "minilm fp32, same rounds", speed[encoders.MiniLM])
		if name == encoders.MiniLMInt8 {
			sp = sp.WithTarget(">= 3x", sp.Ratio >= 3)
		}
		rows = append(rows, sp)
		if c, ok := cpu[name]; ok {
			r := pairedRow(Row{Suite: "encoders", Name: name + " CPU time at 128 tokens, 1 thread", Unit: "texts/CPU-s", HigherIsBetter: true,
				Note: fmt.Sprintf("Encode end to end with 1 intra-op thread, timed by the CPU time of the calling thread (tokenizer and ONNX Runtime run on it); CPU %s; median of %d alternating rounds; ratio = median of per-round ratios", flags, rounds)},
				c, "minilm fp32, same rounds", cpu[encoders.MiniLM])
			if name == encoders.MiniLMInt8 {
				r = r.WithTarget(">= 3x", r.Ratio >= 3)
			}
			rows = append(rows, r)
		}
		pairs := Row{Suite: "encoders", Name: name + " agreement with fp32: correlation of pairwise similarities",
			Value: pearson(pairwise(vecs), pairwise(ref)), Note: fmt.Sprintf("%d sentences, %d pairs", len(sentences), len(sentences)*(len(sentences)-1)/2)}
		if name == encoders.MiniLMInt8 {
			mean := 0.0
			for i := range vecs {
				mean += encoders.Cosine(vecs[i], ref[i])
			}
			mean /= float64(len(vecs))
			q := Row{Suite: "encoders", Name: name + " mean cosine to fp32", Value: mean, Note: fmt.Sprintf("%d sentences", len(sentences))}
			rows = append(rows, q.WithTarget(">= 0.99", mean >= 0.99))
			pairs = pairs.WithTarget(">= 0.99", pairs.Value >= 0.99)
		}
		rows = append(rows, pairs)
	}
	return rows, nil
}

// cpuRates times Encode of the fp32 and int8 transformers on texts in CPU
// time: with one intra-op thread ONNX Runtime runs every operator on the
// calling thread, and Encode tokenizes a small call on it too, so the CPU
// time of that (locked) OS thread is the whole cost, whatever else runs on
// the machine. It returns texts per CPU-second per round and encoder. The
// single-threaded sessions need a runtime of their own (session options
// are per runtime), opened with cfg (one intra-op thread) and closed here.
func cpuRates(ctx context.Context, openRuntime func(encoders.Config) (*encoders.Runtime, error), cfg encoders.Config, texts []string, rounds int) (map[string][]float64, error) {
	cfg.IntraOpThreads = 1
	rt, err := openRuntime(cfg)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := threadCPU(); err != nil {
		return nil, err
	}
	names := []string{encoders.MiniLM, encoders.MiniLMInt8}
	open := map[string]*encoders.ONNXEncoder{}
	for _, name := range names {
		e, err := rt.Open(ctx, name)
		if err != nil {
			return nil, err
		}
		defer e.Close()
		if _, err := e.Encode(ctx, texts); err != nil { // warm-up
			return nil, err
		}
		open[name] = e
	}
	out := map[string][]float64{}
	for range rounds {
		for _, name := range names {
			start, _ := threadCPU()
			if _, err := open[name].Encode(ctx, texts); err != nil {
				return nil, err
			}
			end, _ := threadCPU()
			if end > start {
				out[name] = append(out[name], float64(len(texts))/(end-start))
			}
		}
	}
	return out, nil
}

// threadCPU is the user + system CPU time of the calling OS thread in
// seconds (Linux: getrusage RUSAGE_THREAD).
func threadCPU() (float64, error) {
	const rusageThread = 1 // RUSAGE_THREAD, Linux only
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, fmt.Errorf("per-thread CPU time (getrusage RUSAGE_THREAD, Linux only): %w", err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, nil
}

// cpuFlags names the SIMD extensions of /proc/cpuinfo that decide the
// int8 and fp32 kernels ONNX Runtime picks.
func cpuFlags() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "flags unknown"
		}
		return "flags unreadable"
	}
	return parseCPUFlags(string(data))
}

// parseCPUFlags picks, from the first "flags" line of /proc/cpuinfo text,
// the extensions that decide ONNX Runtime's int8 and fp32 kernels.
func parseCPUFlags(cpuinfo string) string {
	var have []string
	for line := range strings.SplitSeq(cpuinfo, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(key) != "flags" {
			continue
		}
		fields := strings.Fields(val)
		for _, f := range []string{"avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8"} {
			if slices.Contains(fields, f) {
				have = append(have, f)
			}
		}
		break
	}
	if len(have) == 0 {
		return "without AVX2"
	}
	return strings.Join(have, " + ")
}
