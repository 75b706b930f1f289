package encoders

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"boolpool/encoders/onnxgen"
)

// tinyBert is a random BERT checkpoint small enough for a plain-Go forward
// pass, to check the generated graph for sizes other than MiniLM's.
type tinyBert struct {
	cfg     onnxgen.BertConfig
	tensors map[string][]float32
	shapes  map[string][]int64
}

func newTinyBert(seed uint64, hidden, heads, layers, inter, vocab, maxPos int64) *tinyBert {
	rng := rand.New(rand.NewPCG(seed, 1))
	tb := &tinyBert{
		cfg: onnxgen.BertConfig{ModelType: "bert", VocabSize: vocab, HiddenSize: hidden, NumHiddenLayers: int(layers),
			NumAttentionHeads: heads, IntermediateSize: inter, HiddenAct: "gelu", MaxPositionEmbeddings: maxPos,
			TypeVocabSize: 2, LayerNormEps: 1e-12},
		tensors: map[string][]float32{},
		shapes:  map[string][]int64{},
	}
	add := func(name string, scale float64, shape ...int64) {
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * scale)
		}
		if scale == 0 { // LayerNorm gains around 1
			for i := range v {
				v[i] = float32(1 + 0.1*rng.NormFloat64())
			}
		}
		tb.tensors[name], tb.shapes[name] = v, shape
	}
	add("embeddings.word_embeddings.weight", 0.5, vocab, hidden)
	add("embeddings.position_embeddings.weight", 0.5, maxPos, hidden)
	add("embeddings.token_type_embeddings.weight", 0.5, 2, hidden)
	add("embeddings.LayerNorm.weight", 0, hidden)
	add("embeddings.LayerNorm.bias", 0.1, hidden)
	for l := 0; l < int(layers); l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			add(p+n+".weight", 0.3, hidden, hidden)
			add(p+n+".bias", 0.1, hidden)
		}
		add(p+"attention.output.LayerNorm.weight", 0, hidden)
		add(p+"attention.output.LayerNorm.bias", 0.1, hidden)
		add(p+"intermediate.dense.weight", 0.3, inter, hidden)
		add(p+"intermediate.dense.bias", 0.1, inter)
		add(p+"output.dense.weight", 0.3, hidden, inter)
		add(p+"output.dense.bias", 0.1, hidden)
		add(p+"output.LayerNorm.weight", 0, hidden)
		add(p+"output.LayerNorm.bias", 0.1, hidden)
	}
	return tb
}

// write stores the checkpoint as config.json + model.safetensors (F32).
func (tb *tinyBert) write(t *testing.T, dir string) {
	cfg, _ := json.Marshal(tb.cfg)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(tb.tensors))
	for n := range tb.tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	header := map[string]any{}
	var body []byte
	for _, n := range names {
		start := len(body)
		for _, f := range tb.tensors[n] {
			body = binary.LittleEndian.AppendUint32(body, math.Float32bits(f))
		}
		header[n] = map[string]any{"dtype": "F32", "shape": tb.shapes[n], "data_offsets": []int{start, len(body)}}
	}
	h, _ := json.Marshal(header)
	data := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	data = append(append(data, h...), body...)
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// forward is a plain float64 BERT forward pass with mean pooling and L2
// normalisation, for one unpadded sequence.
func (tb *tinyBert) forward(ids []int64) []float64 {
	H, nh := int(tb.cfg.HiddenSize), int(tb.cfg.NumAttentionHeads)
	hd := H / nh
	S := len(ids)
	w := func(n string) []float32 { return tb.tensors[n] }
	layerNorm := func(x []float64, g, b []float32) {
		var mean, v float64
		for _, f := range x {
			mean += f
		}
		mean /= float64(len(x))
		for _, f := range x {
			v += (f - mean) * (f - mean)
		}
		v /= float64(len(x))
		for i := range x {
			x[i] = (x[i]-mean)/math.Sqrt(v+1e-12)*float64(g[i]) + float64(b[i])
		}
	}
	linear := func(x []float64, name string, out int) []float64 {
		W, B := w(name+".weight"), w(name+".bias")
		in := len(x)
		y := make([]float64, out)
		for o := 0; o < out; o++ {
			s := float64(B[o])
			for i := 0; i < in; i++ {
				s += float64(W[o*in+i]) * x[i]
			}
			y[o] = s
		}
		return y
	}
	x := make([][]float64, S)
	for s, id := range ids {
		x[s] = make([]float64, H)
		for j := 0; j < H; j++ {
			x[s][j] = float64(w("embeddings.word_embeddings.weight")[int(id)*H+j] + w("embeddings.position_embeddings.weight")[s*H+j] + w("embeddings.token_type_embeddings.weight")[j])
		}
		layerNorm(x[s], w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
	}
	for l := 0; l < tb.cfg.NumHiddenLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		q, k, v := make([][]float64, S), make([][]float64, S), make([][]float64, S)
		for s := range x {
			q[s], k[s], v[s] = linear(x[s], p+"attention.self.query", H), linear(x[s], p+"attention.self.key", H), linear(x[s], p+"attention.self.value", H)
		}
		next := make([][]float64, S)
		for s := 0; s < S; s++ {
			ctx := make([]float64, H)
			for h := 0; h < nh; h++ {
				scores := make([]float64, S)
				mx := math.Inf(-1)
				for t := 0; t < S; t++ {
					for d := 0; d < hd; d++ {
						scores[t] += q[s][h*hd+d] * k[t][h*hd+d]
					}
					scores[t] /= math.Sqrt(float64(hd))
					mx = math.Max(mx, scores[t])
				}
				var sum float64
				for t := range scores {
					scores[t] = math.Exp(scores[t] - mx)
					sum += scores[t]
				}
				for t := range scores {
					for d := 0; d < hd; d++ {
						ctx[h*hd+d] += scores[t] / sum * v[t][h*hd+d]
					}
				}
			}
			a := linear(ctx, p+"attention.output.dense", H)
			for j := range a {
				a[j] += x[s][j]
			}
			layerNorm(a, w(p+"attention.output.LayerNorm.weight"), w(p+"attention.output.LayerNorm.bias"))
			f := linear(a, p+"intermediate.dense", int(tb.cfg.IntermediateSize))
			for j := range f {
				f[j] = 0.5 * f[j] * (1 + math.Erf(f[j]/math.Sqrt2))
			}
			o := linear(f, p+"output.dense", H)
			for j := range o {
				o[j] += a[j]
			}
			layerNorm(o, w(p+"output.LayerNorm.weight"), w(p+"output.LayerNorm.bias"))
			next[s] = o
		}
		x = next
	}
	mean := make([]float64, H)
	for s := range x {
		for j := range mean {
			mean[j] += x[s][j] / float64(S)
		}
	}
	var n float64
	for _, f := range mean {
		n += f * f
	}
	for j := range mean {
		mean[j] /= math.Sqrt(n)
	}
	return mean
}

// TestGeneratedGraphMatchesReference builds BERT graphs of several sizes
// and variants and compares ONNX Runtime's output (with padding in the
// batch) against a plain-Go forward pass.
func TestGeneratedGraphMatchesReference(t *testing.T) {
	rt, err := NewRuntime(Config{IntraOpThreads: 1})
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	defer rt.Close()
	sizes := []struct {
		name                                      string
		hidden, heads, layers, inter, vocab, maxP int64
	}{
		{"h16x2", 16, 2, 1, 32, 50, 16},
		{"h24x3x2", 24, 3, 2, 40, 60, 20},
	}
	seqs := [][]int64{{1, 5, 7, 9, 2}, {1, 3, 2}, {1, 40, 41, 42, 43, 44, 45, 2}}
	for _, sz := range sizes {
		tb := newTinyBert(uint64(sz.hidden), sz.hidden, sz.heads, sz.layers, sz.inter, sz.vocab, sz.maxP)
		dir := t.TempDir()
		tb.write(t, dir)
		for _, variant := range []struct {
			name string
			opt  ImportOptions
			tol  float64 // max |diff| (fp32); int8 is checked by cosine
		}{{"fp32", ImportOptions{}, 1e-4}, {"fused", ImportOptions{Fused: true}, 1e-4}, {"int8", ImportOptions{Int8: true}, 0}, {"fused-int8", ImportOptions{Int8: true, Fused: true}, 0},
			{"fused-attention", ImportOptions{FusedAttention: true}, 1e-4}, {"fused-attention-int8", ImportOptions{Int8: true, FusedAttention: true}, 0}} {
			t.Run(sz.name+"/"+variant.name, func(t *testing.T) {
				out := filepath.Join(dir, variant.name+".onnx")
				if err := ImportBert(context.Background(), dir, out, variant.opt); err != nil {
					t.Fatal(err)
				}
				sess, err := rt.openSession(out, []string{onnxgen.InputIDs, onnxgen.AttentionMask, onnxgen.TokenTypeIDs}, []string{onnxgen.OutputName})
				if err != nil {
					t.Fatal(err)
				}
				defer sess.close()
				seq := 8
				ids := make([]int64, len(seqs)*seq)
				mask := make([]int64, len(seqs)*seq)
				for i, s := range seqs {
					for j, id := range s {
						ids[i*seq+j], mask[i*seq+j] = id, 1
					}
				}
				got, err := sess.run(context.Background(), len(seqs), seq, [][]int64{ids, mask, make([]int64, len(ids))}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for i, s := range seqs {
					want := tb.forward(s)
					if variant.opt.Int8 { // quantisation noise: compare directions
						w32 := make([]float32, len(want))
						for j, f := range want {
							w32[j] = float32(f)
						}
						if c := Cosine(got[i], w32); c < 0.98 {
							t.Errorf("sequence %d: cosine to reference %.4f < 0.98", i, c)
						}
						continue
					}
					var maxDiff float64
					for j := range want {
						maxDiff = math.Max(maxDiff, math.Abs(float64(got[i][j])-want[j]))
					}
					if maxDiff > variant.tol {
						t.Errorf("sequence %d: max |diff| %.2g > %.2g", i, maxDiff, variant.tol)
					}
				}
			})
		}
	}
}
