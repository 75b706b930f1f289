// Package onnxgen writes ONNX models with plain Go: a small graph builder
// whose Marshal hand-encodes the onnx.proto messages (ModelProto, GraphProto,
// NodeProto, TensorProto, ValueInfoProto …) by their field numbers with
// protowire, a safetensors reader, and builders for the BERT sentence encoder
// (fp32 or dynamically quantised int8) and a static (Model2Vec-style) encoder.
//
// Nothing here needs cgo or ONNX Runtime; the runtime lives in package encoders.
package onnxgen

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX TensorProto.DataType values.
const (
	Float   = 1
	Uint8   = 2
	Int8    = 3
	Int32   = 6
	Int64   = 7
	Float16 = 10
)

// AttributeProto.AttributeType values.
const (
	attrFloat  = 1
	attrInt    = 2
	attrString = 3
	attrInts   = 7
)

const (
	irVersion = 8  // ONNX IR version matching opset 17
	opsetVer  = 17 // default-domain opset
)

// Tensor is an initializer or constant: raw little-endian data of one type.
type Tensor struct {
	Name string
	Type int
	Dims []int64
	Raw  []byte
}

// FloatTensor makes a float32 tensor.
func FloatTensor(name string, dims []int64, v []float32) Tensor {
	raw := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	return Tensor{Name: name, Type: Float, Dims: dims, Raw: raw}
}

// Int64Tensor makes an int64 tensor.
func Int64Tensor(name string, dims []int64, v []int64) Tensor {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return Tensor{Name: name, Type: Int64, Dims: dims, Raw: raw}
}

// Int8Tensor makes an int8 tensor.
func Int8Tensor(name string, dims []int64, v []int8) Tensor {
	raw := make([]byte, len(v))
	for i, x := range v {
		raw[i] = byte(x)
	}
	return Tensor{Name: name, Type: Int8, Dims: dims, Raw: raw}
}

// Attr is a node attribute; exactly one of the value fields is used,
// according to Kind.
type Attr struct {
	Name string
	Kind int
	F    float32
	I    int64
	S    string
	Ints []int64
}

// AttrInt, AttrFloat, AttrInts and AttrString make attributes.
func AttrInt(name string, v int64) Attr     { return Attr{Name: name, Kind: attrInt, I: v} }
func AttrFloat(name string, v float32) Attr { return Attr{Name: name, Kind: attrFloat, F: v} }
func AttrInts(name string, v ...int64) Attr { return Attr{Name: name, Kind: attrInts, Ints: v} }
func AttrString(name string, v string) Attr { return Attr{Name: name, Kind: attrString, S: v} }

// Node is one operator application.
type Node struct {
	Op      string
	Domain  string
	Name    string
	Inputs  []string
	Outputs []string
	Attrs   []Attr
}

// ValueInfo declares a graph input or output: element type and shape, where
// a dimension is either a size or a symbolic name (dynamic).
type ValueInfo struct {
	Name string
	Type int
	Dims []Dim
}

// Dim is one dimension of a ValueInfo: Param != "" makes it symbolic.
type Dim struct {
	Value int64
	Param string
}

// Model is an ONNX model under construction.
type Model struct {
	Name     string
	Doc      string
	Nodes    []Node
	Inits    []Tensor
	Inputs   []ValueInfo
	Outputs  []ValueInfo
	Metadata map[string]string
	Opsets   map[string]int64 // extra domains (e.g. "com.microsoft": 1)

	names map[string]int
}

// Fresh returns a unique value name with the given prefix.
func (m *Model) Fresh(prefix string) string {
	if m.names == nil {
		m.names = map[string]int{}
	}
	m.names[prefix]++
	return fmt.Sprintf("%s_%d", prefix, m.names[prefix])
}

// Op appends a node with one output and returns that output's name.
func (m *Model) Op(op string, inputs []string, attrs ...Attr) string {
	out := m.Fresh(op)
	m.Nodes = append(m.Nodes, Node{Op: op, Name: out, Inputs: inputs, Outputs: []string{out}, Attrs: attrs})
	return out
}

// OpN appends a node with n outputs.
func (m *Model) OpN(op string, n int, inputs []string, attrs ...Attr) []string {
	outs := make([]string, n)
	base := m.Fresh(op)
	for i := range outs {
		outs[i] = fmt.Sprintf("%s_o%d", base, i)
	}
	m.Nodes = append(m.Nodes, Node{Op: op, Name: base, Inputs: inputs, Outputs: outs, Attrs: attrs})
	return outs
}

// Init adds an initializer and returns its name.
func (m *Model) Init(t Tensor) string {
	m.Inits = append(m.Inits, t)
	return t.Name
}

// Const adds a float32 initializer under a fresh name.
func (m *Model) Const(prefix string, dims []int64, v ...float32) string {
	return m.Init(FloatTensor(m.Fresh(prefix), dims, v))
}

// ConstI64 adds an int64 initializer under a fresh name.
func (m *Model) ConstI64(prefix string, dims []int64, v ...int64) string {
	return m.Init(Int64Tensor(m.Fresh(prefix), dims, v))
}

// Marshal encodes the model as an ONNX ModelProto.
func (m *Model) Marshal() []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType) // ir_version
	b = protowire.AppendVarint(b, irVersion)
	b = appendString(b, 2, "boolpool") // producer_name
	b = appendString(b, 3, "onnxgen")  // producer_version
	if m.Doc != "" {
		b = appendString(b, 6, m.Doc)
	}
	b = appendMessage(b, 7, m.marshalGraph()) // graph
	b = appendMessage(b, 8, marshalOpset("", opsetVer))
	for d, v := range m.Opsets {
		b = appendMessage(b, 8, marshalOpset(d, v))
	}
	for k, v := range m.Metadata { // metadata_props
		var e []byte
		e = appendString(e, 1, k)
		e = appendString(e, 2, v)
		b = appendMessage(b, 14, e)
	}
	return b
}

func marshalOpset(domain string, version int64) []byte {
	var b []byte
	if domain != "" {
		b = appendString(b, 1, domain)
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(version))
}

func (m *Model) marshalGraph() []byte {
	var b []byte
	for _, n := range m.Nodes {
		b = appendMessage(b, 1, marshalNode(n))
	}
	name := m.Name
	if name == "" {
		name = "graph"
	}
	b = appendString(b, 2, name)
	for _, t := range m.Inits {
		b = appendMessage(b, 5, marshalTensor(t))
	}
	for _, v := range m.Inputs {
		b = appendMessage(b, 11, marshalValueInfo(v))
	}
	for _, v := range m.Outputs {
		b = appendMessage(b, 12, marshalValueInfo(v))
	}
	return b
}

func marshalNode(n Node) []byte {
	var b []byte
	for _, in := range n.Inputs {
		b = appendString(b, 1, in)
	}
	for _, out := range n.Outputs {
		b = appendString(b, 2, out)
	}
	if n.Name != "" {
		b = appendString(b, 3, n.Name)
	}
	b = appendString(b, 4, n.Op)
	for _, a := range n.Attrs {
		b = appendMessage(b, 5, marshalAttr(a))
	}
	if n.Domain != "" {
		b = appendString(b, 7, n.Domain)
	}
	return b
}

func marshalAttr(a Attr) []byte {
	var b []byte
	b = appendString(b, 1, a.Name)
	switch a.Kind {
	case attrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case attrInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	case attrString:
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, a.S)
	case attrInts:
		var p []byte
		for _, v := range a.Ints {
			p = protowire.AppendVarint(p, uint64(v))
		}
		b = appendMessage(b, 8, p) // packed repeated int64
	}
	b = protowire.AppendTag(b, 20, protowire.VarintType) // type
	return protowire.AppendVarint(b, uint64(a.Kind))
}

func marshalTensor(t Tensor) []byte {
	var b []byte
	if len(t.Dims) > 0 {
		var p []byte
		for _, d := range t.Dims {
			p = protowire.AppendVarint(p, uint64(d))
		}
		b = appendMessage(b, 1, p) // dims, packed
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType) // data_type
	b = protowire.AppendVarint(b, uint64(t.Type))
	b = appendString(b, 8, t.Name)
	b = protowire.AppendTag(b, 9, protowire.BytesType) // raw_data
	return protowire.AppendBytes(b, t.Raw)
}

func marshalValueInfo(v ValueInfo) []byte {
	var shape []byte
	for _, d := range v.Dims {
		var dim []byte
		if d.Param != "" {
			dim = appendString(dim, 2, d.Param)
		} else {
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d.Value))
		}
		shape = appendMessage(shape, 1, dim)
	}
	var tensor []byte
	tensor = protowire.AppendTag(tensor, 1, protowire.VarintType) // elem_type
	tensor = protowire.AppendVarint(tensor, uint64(v.Type))
	tensor = appendMessage(tensor, 2, shape)
	var typ []byte
	typ = appendMessage(typ, 1, tensor) // TypeProto.tensor_type
	var b []byte
	b = appendString(b, 1, v.Name)
	return appendMessage(b, 2, typ)
}

func appendString(b []byte, field protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, field protowire.Number, msg []byte) []byte {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return protowire.AppendBytes(b, msg)
}
