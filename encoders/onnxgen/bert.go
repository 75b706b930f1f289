package onnxgen

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
)

// BertConfig is the part of a Hugging Face config.json the BERT graph needs.
type BertConfig struct {
	ModelType             string  `json:"model_type"`
	VocabSize             int64   `json:"vocab_size"`
	HiddenSize            int64   `json:"hidden_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int64   `json:"num_attention_heads"`
	IntermediateSize      int64   `json:"intermediate_size"`
	HiddenAct             string  `json:"hidden_act"`
	MaxPositionEmbeddings int64   `json:"max_position_embeddings"`
	TypeVocabSize         int64   `json:"type_vocab_size"`
	LayerNormEps          float64 `json:"layer_norm_eps"`
	PositionEmbeddingType string  `json:"position_embedding_type"`
}

// LoadBertConfig reads and validates a config.json.
func LoadBertConfig(path string) (BertConfig, error) {
	var c BertConfig
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("bert config: %w", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("bert config %s: %w", path, err)
	}
	if err := c.validate(); err != nil {
		return c, fmt.Errorf("bert config %s: %w", path, err)
	}
	return c, nil
}

func (c *BertConfig) validate() error {
	if c.ModelType != "" && c.ModelType != "bert" {
		return fmt.Errorf("model_type %q: only bert is supported", c.ModelType)
	}
	if c.HiddenSize <= 0 || c.NumHiddenLayers <= 0 || c.NumAttentionHeads <= 0 || c.IntermediateSize <= 0 || c.VocabSize <= 0 {
		return fmt.Errorf("incomplete config: %+v", *c)
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return fmt.Errorf("hidden_size %d not divisible by %d heads", c.HiddenSize, c.NumAttentionHeads)
	}
	if c.HiddenAct != "" && c.HiddenAct != "gelu" {
		return fmt.Errorf("hidden_act %q: only gelu (erf) is supported", c.HiddenAct)
	}
	if c.PositionEmbeddingType != "" && c.PositionEmbeddingType != "absolute" {
		return fmt.Errorf("position_embedding_type %q: only absolute is supported", c.PositionEmbeddingType)
	}
	if c.TypeVocabSize <= 0 {
		c.TypeVocabSize = 2
	}
	if c.MaxPositionEmbeddings <= 0 {
		c.MaxPositionEmbeddings = 512
	}
	if c.LayerNormEps <= 0 {
		c.LayerNormEps = 1e-12
	}
	return nil
}

// BertOptions chooses the graph variant.
type BertOptions struct {
	// Int8 quantises every Linear layer's weights to int8 (symmetric, per
	// output column) and their inputs dynamically to uint8
	// (DynamicQuantizeLinear + MatMulInteger), like ONNX Runtime's dynamic
	// quantisation; attention score products stay in float32.
	Int8 bool
	// Fused uses ONNX Runtime's contrib operators (com.microsoft Attention /
	// QAttention, SkipLayerNormalization, DynamicQuantizeMatMul) instead of
	// their standard-op decomposition: fewer kernels and copies, but the
	// model then runs only on ONNX Runtime.
	Fused bool
	// FusedAttention keeps the standard-op graph except the self-attention
	// block (Q/K/V projection, scores, softmax, context), which becomes one
	// com.microsoft Attention (fp32) or QAttention (int8) operator.
	FusedAttention bool
	// Metadata is stored in the model's metadata_props.
	Metadata map[string]string
}

// Graph input and output names.
const (
	InputIDs      = "input_ids"
	AttentionMask = "attention_mask"
	TokenTypeIDs  = "token_type_ids"
	OutputName    = "sentence_embedding"
)

// BuildBert writes a sentence-embedding BERT: embeddings (word + position +
// token type, LayerNorm) → N × [self-attention, add & LayerNorm, GELU (erf)
// FFN, add & LayerNorm] → mean pooling over the attention mask → L2
// normalisation. Inputs are int64 [batch, seq]; the output is float32
// [batch, hidden].
func BuildBert(cfg BertConfig, w *Weights, opt BertOptions) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	b := &bertBuilder{m: &Model{Name: "bert", Metadata: map[string]string{}}, cfg: cfg, w: w, int8: opt.Int8, fused: opt.Fused, fusedAttn: opt.FusedAttention}
	if opt.Fused || opt.FusedAttention {
		b.m.Opsets = map[string]int64{msDomain: 1}
	}
	if _, _, err := w.Get("embeddings.word_embeddings.weight"); err != nil {
		if _, _, err2 := w.Get("bert.embeddings.word_embeddings.weight"); err2 == nil {
			b.prefix = "bert."
		} else {
			return nil, err
		}
	}
	for k, v := range opt.Metadata {
		b.m.Metadata[k] = v
	}
	if err := b.build(); err != nil {
		return nil, err
	}
	return b.m, nil
}

type bertBuilder struct {
	m      *Model
	cfg    BertConfig
	w      *Weights
	prefix string
	int8   bool
	fused  bool
	// fusedAttn: standard graph with a contrib (Q)Attention operator.
	fusedAttn bool
	err       error
}

// msDomain is ONNX Runtime's contrib operator domain.
const msDomain = "com.microsoft"

// msOp appends a com.microsoft node with one output.
func (b *bertBuilder) msOp(op string, inputs []string, attrs ...Attr) string {
	out := b.m.Fresh(op)
	b.m.Nodes = append(b.m.Nodes, Node{Op: op, Domain: msDomain, Name: out, Inputs: inputs, Outputs: []string{out}, Attrs: attrs})
	return out
}

// weight fetches a checkpoint tensor; the first error sticks.
func (b *bertBuilder) weight(name string, shape ...int64) []float32 {
	if b.err != nil {
		return nil
	}
	_, v, err := b.w.Get(b.prefix+name, shape...)
	if err != nil {
		b.err = err
		return nil
	}
	return v
}

func (b *bertBuilder) build() error {
	m, c := b.m, b.cfg
	H, heads := c.HiddenSize, c.NumAttentionHeads
	hd := H / heads
	dyn := []Dim{{Param: "batch"}, {Param: "sequence"}}
	for _, in := range []string{InputIDs, AttentionMask, TokenTypeIDs} {
		m.Inputs = append(m.Inputs, ValueInfo{Name: in, Type: Int64, Dims: dyn})
	}
	m.Outputs = []ValueInfo{{Name: OutputName, Type: Float, Dims: []Dim{{Param: "batch"}, {Value: H}}}}
	m.Metadata["dim"] = strconv.FormatInt(H, 10)
	m.Metadata["max_length"] = strconv.FormatInt(c.MaxPositionEmbeddings, 10)
	m.Metadata["pooling"] = "mean"
	m.Metadata["normalize"] = "l2"

	// Embeddings.
	wordEmb := m.Init(FloatTensor("word_embeddings", []int64{c.VocabSize, H}, b.weight("embeddings.word_embeddings.weight", c.VocabSize, H)))
	posEmb := m.Init(FloatTensor("position_embeddings", []int64{c.MaxPositionEmbeddings, H}, b.weight("embeddings.position_embeddings.weight", c.MaxPositionEmbeddings, H)))
	typeEmb := m.Init(FloatTensor("token_type_embeddings", []int64{c.TypeVocabSize, H}, b.weight("embeddings.token_type_embeddings.weight", c.TypeVocabSize, H)))
	words := m.Op("Gather", []string{wordEmb, InputIDs})
	seqLen := m.Op("Shape", []string{InputIDs}, AttrInt("start", 1), AttrInt("end", 2))
	positions := m.Op("Slice", []string{posEmb, m.ConstI64("zero", []int64{1}, 0), seqLen, m.ConstI64("axis0", []int64{1}, 0)})
	types := m.Op("Gather", []string{typeEmb, TokenTypeIDs})
	x := m.Op("Add", []string{m.Op("Add", []string{words, positions}), types})
	x = b.layerNorm(x, "embeddings.LayerNorm")

	// Additive attention mask [batch, 1, 1, seq]: 0 for tokens, -10000 for padding.
	maskF := m.Op("Cast", []string{AttentionMask}, AttrInt("to", Float))
	inv := m.Op("Sub", []string{m.Const("one", nil, 1), maskF})
	ext := m.Op("Mul", []string{inv, m.Const("neg", nil, -10000)})
	ext = m.Op("Unsqueeze", []string{ext, m.ConstI64("axes", []int64{2}, 1, 2)})

	if b.fused {
		maskI := m.Op("Cast", []string{AttentionMask}, AttrInt("to", Int32))
		for l := 0; l < c.NumHiddenLayers; l++ {
			x = b.fusedLayer(x, maskI, l)
			if b.err != nil {
				return b.err
			}
		}
		PoolAndNormalize(m, x, maskF, OutputName)
		return b.err
	}

	shape4 := m.ConstI64("shape_heads", []int64{4}, 0, 0, heads, hd)
	shape3 := m.ConstI64("shape_hidden", []int64{3}, 0, 0, H)
	scale := float32(1 / math.Sqrt(float64(hd)))
	var maskI string
	if b.fusedAttn {
		maskI = m.Op("Cast", []string{AttentionMask}, AttrInt("to", Int32))
	}
	for l := 0; l < c.NumHiddenLayers; l++ {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		if b.fusedAttn {
			ctxv := b.attention(x, maskI, l)
			attn := b.linear(ctxv, fmt.Sprintf("l%d_attn_out", l), b.weight(p+"attention.output.dense.weight", H, H), b.weight(p+"attention.output.dense.bias", H), H, H)
			x = b.layerNorm(m.Op("Add", []string{attn, x}), p+"attention.output.LayerNorm")
			x = b.ffn(x, l)
			if b.err != nil {
				return b.err
			}
			continue
		}
		// Q, K and V in one MatMul; 1/sqrt(head_dim) folded into Q.
		wq := b.weight(p+"attention.self.query.weight", H, H)
		bq := b.weight(p+"attention.self.query.bias", H)
		wk := b.weight(p+"attention.self.key.weight", H, H)
		bk := b.weight(p+"attention.self.key.bias", H)
		wv := b.weight(p+"attention.self.value.weight", H, H)
		bv := b.weight(p+"attention.self.value.bias", H)
		if b.err != nil {
			return b.err
		}
		wqkv := make([]float32, 0, 3*H*H)
		bqkv := make([]float32, 0, 3*H)
		for _, v := range wq {
			wqkv = append(wqkv, v*scale)
		}
		for _, v := range bq {
			bqkv = append(bqkv, v*scale)
		}
		wqkv = append(append(wqkv, wk...), wv...)
		bqkv = append(append(bqkv, bk...), bv...)
		qkv := b.linear(x, fmt.Sprintf("l%d_qkv", l), wqkv, bqkv, H, 3*H)
		parts := m.OpN("Split", 3, []string{qkv, m.ConstI64("split", []int64{3}, H, H, H)}, AttrInt("axis", 2))
		q := m.Op("Transpose", []string{m.Op("Reshape", []string{parts[0], shape4})}, AttrInts("perm", 0, 2, 1, 3))
		k := m.Op("Transpose", []string{m.Op("Reshape", []string{parts[1], shape4})}, AttrInts("perm", 0, 2, 3, 1))
		v := m.Op("Transpose", []string{m.Op("Reshape", []string{parts[2], shape4})}, AttrInts("perm", 0, 2, 1, 3))
		scores := m.Op("Add", []string{m.Op("MatMul", []string{q, k}), ext})
		probs := m.Op("Softmax", []string{scores}, AttrInt("axis", -1))
		ctxv := m.Op("MatMul", []string{probs, v})
		ctxv = m.Op("Reshape", []string{m.Op("Transpose", []string{ctxv}, AttrInts("perm", 0, 2, 1, 3)), shape3})
		attn := b.linear(ctxv, fmt.Sprintf("l%d_attn_out", l), b.weight(p+"attention.output.dense.weight", H, H), b.weight(p+"attention.output.dense.bias", H), H, H)
		x = b.layerNorm(m.Op("Add", []string{attn, x}), p+"attention.output.LayerNorm")

		x = b.ffn(x, l)
		if b.err != nil {
			return b.err
		}
	}
	PoolAndNormalize(m, x, maskF, OutputName)
	return b.err
}

// ffn is the feed-forward block of layer l in standard operators: Linear,
// exact (erf) GELU in the pattern ONNX Runtime fuses, Linear, add & LayerNorm.
func (b *bertBuilder) ffn(x string, l int) string {
	m, c := b.m, b.cfg
	H := c.HiddenSize
	p := fmt.Sprintf("encoder.layer.%d.", l)
	h := b.linear(x, fmt.Sprintf("l%d_ffn_in", l), b.weight(p+"intermediate.dense.weight", c.IntermediateSize, H), b.weight(p+"intermediate.dense.bias", c.IntermediateSize), H, c.IntermediateSize)
	e := m.Op("Erf", []string{m.Op("Div", []string{h, m.Const("sqrt2", nil, float32(math.Sqrt2))})})
	g := m.Op("Mul", []string{m.Op("Mul", []string{h, m.Op("Add", []string{e, m.Const("one", nil, 1)})}), m.Const("half", nil, 0.5)})
	o := b.linear(g, fmt.Sprintf("l%d_ffn_out", l), b.weight(p+"output.dense.weight", H, c.IntermediateSize), b.weight(p+"output.dense.bias", H), c.IntermediateSize, H)
	return b.layerNorm(m.Op("Add", []string{o, x}), p+"output.LayerNorm")
}

// fusedLayer is one transformer layer in ONNX Runtime contrib operators.
func (b *bertBuilder) fusedLayer(x, maskI string, l int) string {
	m, c := b.m, b.cfg
	H := c.HiddenSize
	p := fmt.Sprintf("encoder.layer.%d.", l)
	attn := b.attention(x, maskI, l)
	if b.err != nil {
		return x
	}
	eps := AttrFloat("epsilon", float32(c.LayerNormEps))
	o := b.matmulNoBias(attn, fmt.Sprintf("l%d_attn_out", l), b.weight(p+"attention.output.dense.weight", H, H), H, H)
	x = b.msOp("SkipLayerNormalization", []string{o, x,
		m.Init(FloatTensor(p+"attention.output.LayerNorm.weight", []int64{H}, b.weight(p+"attention.output.LayerNorm.weight", H))),
		m.Init(FloatTensor(p+"attention.output.LayerNorm.bias", []int64{H}, b.weight(p+"attention.output.LayerNorm.bias", H))),
		m.Init(FloatTensor(p+"attention.output.dense.bias", []int64{H}, b.weight(p+"attention.output.dense.bias", H))),
	}, eps)
	h := b.matmulNoBias(x, fmt.Sprintf("l%d_ffn_in", l), b.weight(p+"intermediate.dense.weight", c.IntermediateSize, H), H, c.IntermediateSize)
	g := b.msOp("BiasGelu", []string{h, m.Init(FloatTensor(p+"intermediate.dense.bias", []int64{c.IntermediateSize}, b.weight(p+"intermediate.dense.bias", c.IntermediateSize)))})
	o = b.matmulNoBias(g, fmt.Sprintf("l%d_ffn_out", l), b.weight(p+"output.dense.weight", H, c.IntermediateSize), c.IntermediateSize, H)
	return b.msOp("SkipLayerNormalization", []string{o, x,
		m.Init(FloatTensor(p+"output.LayerNorm.weight", []int64{H}, b.weight(p+"output.LayerNorm.weight", H))),
		m.Init(FloatTensor(p+"output.LayerNorm.bias", []int64{H}, b.weight(p+"output.LayerNorm.bias", H))),
		m.Init(FloatTensor(p+"output.dense.bias", []int64{H}, b.weight(p+"output.dense.bias", H))),
	}, eps)
}

// attention is the self-attention block of layer l (Q/K/V projection,
// scaled scores with the padding mask, softmax, context) as one
// com.microsoft Attention (fp32) or QAttention (int8: uint8 activations
// quantised dynamically, int8 weights per output column) operator; the
// output is the [batch, seq, hidden] context before the output projection.
func (b *bertBuilder) attention(x, maskI string, l int) string {
	m, c := b.m, b.cfg
	H := c.HiddenSize
	p := fmt.Sprintf("encoder.layer.%d.", l)
	wq := b.weight(p+"attention.self.query.weight", H, H)
	wk := b.weight(p+"attention.self.key.weight", H, H)
	wv := b.weight(p+"attention.self.value.weight", H, H)
	bq := b.weight(p+"attention.self.query.bias", H)
	bk := b.weight(p+"attention.self.key.bias", H)
	bv := b.weight(p+"attention.self.value.bias", H)
	if b.err != nil {
		return x
	}
	// Rows of the PyTorch [out, in] layout: Q, then K, then V outputs.
	wqkv := append(append(append(make([]float32, 0, 3*H*H), wq...), wk...), wv...)
	bqkv := m.Init(FloatTensor(fmt.Sprintf("l%d_qkv.bias", l), []int64{3 * H}, append(append(append(make([]float32, 0, 3*H), bq...), bk...), bv...)))
	heads := AttrInt("num_heads", c.NumAttentionHeads)
	var attn string
	if b.int8 {
		q, scales := QuantizeColumns(wqkv, H, 3*H)
		wName := m.Init(Int8Tensor(fmt.Sprintf("l%d_qkv.weight_int8", l), []int64{H, 3 * H}, q))
		sName := m.Init(FloatTensor(fmt.Sprintf("l%d_qkv.weight_scale", l), []int64{3 * H}, scales))
		zp := m.Init(Int8Tensor(fmt.Sprintf("l%d_qkv.weight_zero_point", l), []int64{3 * H}, make([]int8, 3*H)))
		xq := m.OpN("DynamicQuantizeLinear", 3, []string{x})
		attn = b.msOp("QAttention", []string{xq[0], wName, bqkv, xq[1], sName, maskI, xq[2], zp}, heads)
	} else {
		wt := transpose(wqkv, H, 3*H)
		wName := m.Init(FloatTensor(fmt.Sprintf("l%d_qkv.weight", l), []int64{H, 3 * H}, wt))
		attn = b.msOp("Attention", []string{x, wName, bqkv, maskI}, heads)
	}
	return attn
}

// matmulNoBias multiplies by a PyTorch [out, in] weight (bias applied by the
// following fused operator): MatMul in fp32, DynamicQuantizeMatMul in int8.
func (b *bertBuilder) matmulNoBias(x, name string, w []float32, in, out int64) string {
	m := b.m
	if b.err != nil {
		return x
	}
	if int64(len(w)) != in*out {
		b.err = fmt.Errorf("%s: weight size %d, want %d×%d", name, len(w), out, in)
		return x
	}
	if !b.int8 {
		return m.Op("MatMul", []string{x, m.Init(FloatTensor(name+".weight", []int64{in, out}, transpose(w, in, out)))})
	}
	q, scales := QuantizeColumns(w, in, out)
	wName := m.Init(Int8Tensor(name+".weight_int8", []int64{in, out}, q))
	sName := m.Init(FloatTensor(name+".weight_scale", []int64{out}, scales))
	zp := m.Init(Int8Tensor(name+".weight_zero_point", []int64{out}, make([]int8, out)))
	return b.msOp("DynamicQuantizeMatMul", []string{x, wName, sName, zp})
}

// transpose turns a PyTorch [out, in] weight into [in, out].
func transpose(w []float32, in, out int64) []float32 {
	wt := make([]float32, in*out)
	for o := int64(0); o < out; o++ {
		for i := int64(0); i < in; i++ {
			wt[i*out+o] = w[o*in+i]
		}
	}
	return wt
}

// PoolAndNormalize appends masked mean pooling of x [batch, seq, dim] over
// maskF [batch, seq] (float) and L2 normalisation, producing output.
func PoolAndNormalize(m *Model, x, maskF, output string) {
	mask3 := m.Op("Unsqueeze", []string{maskF, m.ConstI64("axes", []int64{1}, 2)})
	axis1 := m.ConstI64("axes", []int64{1}, 1)
	sum := m.Op("ReduceSum", []string{m.Op("Mul", []string{x, mask3}), axis1}, AttrInt("keepdims", 0))
	count := m.Op("ReduceSum", []string{mask3, axis1}, AttrInt("keepdims", 0))
	count = m.Op("Max", []string{count, m.Const("min_count", nil, 1e-9)})
	mean := m.Op("Div", []string{sum, count})
	norm := m.Op("ReduceL2", []string{mean}, AttrInts("axes", 1), AttrInt("keepdims", 1))
	norm = m.Op("Max", []string{norm, m.Const("min_norm", nil, 1e-12)})
	m.Nodes = append(m.Nodes, Node{Op: "Div", Name: output, Inputs: []string{mean, norm}, Outputs: []string{output}})
}

func (b *bertBuilder) layerNorm(x, name string) string {
	H := b.cfg.HiddenSize
	g := b.m.Init(FloatTensor(name+".weight", []int64{H}, b.weight(name+".weight", H)))
	beta := b.m.Init(FloatTensor(name+".bias", []int64{H}, b.weight(name+".bias", H)))
	return b.m.Op("LayerNormalization", []string{x, g, beta}, AttrInt("axis", -1), AttrFloat("epsilon", float32(b.cfg.LayerNormEps)))
}

// linear applies a Hugging Face Linear layer: w is [out, in] (PyTorch
// layout) and is transposed to [in, out] for MatMul.
func (b *bertBuilder) linear(x, name string, w, bias []float32, in, out int64) string {
	m := b.m
	if b.err != nil || int64(len(w)) != in*out || int64(len(bias)) != out {
		if b.err == nil {
			b.err = fmt.Errorf("%s: weight size %d / bias %d, want %d×%d", name, len(w), len(bias), out, in)
		}
		return x
	}
	biasName := m.Init(FloatTensor(name+".bias", []int64{out}, bias))
	if !b.int8 {
		wt := make([]float32, in*out)
		for o := int64(0); o < out; o++ {
			for i := int64(0); i < in; i++ {
				wt[i*out+o] = w[o*in+i]
			}
		}
		wName := m.Init(FloatTensor(name+".weight", []int64{in, out}, wt))
		return m.Op("Add", []string{m.Op("MatMul", []string{x, wName}), biasName})
	}
	q, scales := QuantizeColumns(w, in, out)
	wName := m.Init(Int8Tensor(name+".weight_int8", []int64{in, out}, q))
	sName := m.Init(FloatTensor(name+".weight_scale", []int64{out}, scales))
	zp := m.Init(Int8Tensor(name+".weight_zero_point", []int64{out}, make([]int8, out)))
	xq := m.OpN("DynamicQuantizeLinear", 3, []string{x})
	mm := m.Op("MatMulInteger", []string{xq[0], wName, xq[2], zp})
	f := m.Op("Cast", []string{mm}, AttrInt("to", Float))
	s := m.Op("Mul", []string{xq[1], sName})
	return m.Op("Add", []string{m.Op("Mul", []string{f, s}), biasName})
}

// QuantizeColumns quantises a PyTorch [out, in] weight to int8 laid out
// [in, out], symmetric with one scale per output column.
func QuantizeColumns(w []float32, in, out int64) ([]int8, []float32) {
	q := make([]int8, in*out)
	scales := make([]float32, out)
	for o := int64(0); o < out; o++ {
		var amax float32
		for i := int64(0); i < in; i++ {
			amax = max(amax, float32(math.Abs(float64(w[o*in+i]))))
		}
		s := amax / 127
		if s == 0 {
			s = 1
		}
		scales[o] = s
		for i := int64(0); i < in; i++ {
			v := math.Round(float64(w[o*in+i] / s))
			q[i*out+o] = int8(max(-127, min(127, v)))
		}
	}
	return q, scales
}
