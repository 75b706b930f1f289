package onnxgen

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestHalfToFloat(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3C00, 1}, {0xC000, -2}, {0x3555, 0.33325195}, {0x7BFF, 65504},
		{0x0001, 5.9604645e-08}, {0x03FF, 6.0975552e-05}, {0x7C00, float32(math.Inf(1))},
	}
	for _, tc := range tests {
		if got := halfToFloat(tc.h); got != tc.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tc.h, got, tc.want)
		}
	}
}

func safetensorsFile(header map[string]any, body []byte) []byte {
	h, _ := json.Marshal(header)
	data := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(data, h...), body...)
}

func TestParseSafetensors(t *testing.T) {
	body := []byte{0x00, 0x3C, 0x00, 0xC0, 0x80, 0x3F} // F16 1, -2; BF16 1
	file := safetensorsFile(map[string]any{
		"__metadata__": map[string]string{"format": "pt"},
		"a":            map[string]any{"dtype": "F16", "shape": []int{2}, "data_offsets": []int{0, 4}},
		"b":            map[string]any{"dtype": "BF16", "shape": []int{1, 1}, "data_offsets": []int{4, 6}},
		"ids":          map[string]any{"dtype": "I64", "shape": []int{0}, "data_offsets": []int{6, 6}},
	}, body)
	w, err := ParseSafetensors(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, v, err := w.Get("a", 2); err != nil || !slices.Equal(v, []float32{1, -2}) {
		t.Errorf("a = %v, %v", v, err)
	}
	if _, v, err := w.Get("b", 1, 1); err != nil || !slices.Equal(v, []float32{1}) {
		t.Errorf("b = %v, %v", v, err)
	}
	if _, _, err := w.Get("a", 3); err == nil {
		t.Error("shape mismatch not reported")
	}
	if !slices.Equal(w.Names(), []string{"a", "b"}) {
		t.Errorf("names = %v", w.Names())
	}
	bad := []struct {
		name string
		data []byte
	}{
		{"short", []byte{1, 2}},
		{"header too long", binary.LittleEndian.AppendUint64(nil, 100)},
		{"offsets out of range", safetensorsFile(map[string]any{"a": map[string]any{"dtype": "F32", "shape": []int{4}, "data_offsets": []int{0, 16}}}, nil)},
		{"size mismatch", safetensorsFile(map[string]any{"a": map[string]any{"dtype": "F32", "shape": []int{2}, "data_offsets": []int{0, 4}}}, make([]byte, 4))},
	}
	for _, tc := range bad {
		if _, err := ParseSafetensors(tc.data); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// fields decodes one protobuf message into field number → raw values.
func fields(t *testing.T, b []byte) map[protowire.Number][][]byte {
	out := map[protowire.Number][][]byte{}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatal("bad tag")
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			t.Fatal("bad value")
		}
		v := b[:m]
		if typ == protowire.BytesType {
			v, _ = protowire.ConsumeBytes(b)
		}
		out[num] = append(out[num], v)
		b = b[m:]
	}
	return out
}

func TestMarshal(t *testing.T) {
	m := &Model{Name: "g", Metadata: map[string]string{"dim": "2"}}
	m.Inputs = []ValueInfo{{Name: "x", Type: Float, Dims: []Dim{{Param: "batch"}, {Value: 2}}}}
	m.Outputs = []ValueInfo{{Name: "y", Type: Float, Dims: []Dim{{Param: "batch"}, {Value: 2}}}}
	w := m.Const("w", []int64{2}, 1, 2)
	y := m.Op("Mul", []string{"x", w})
	m.Nodes = append(m.Nodes, Node{Op: "Identity", Inputs: []string{y}, Outputs: []string{"y"}, Attrs: []Attr{AttrInts("perm", 1, 0)}})
	top := fields(t, m.Marshal())
	if v, _ := protowire.ConsumeVarint(top[1][0]); v != irVersion {
		t.Errorf("ir_version = %d", v)
	}
	opset := fields(t, top[8][0])
	if v, _ := protowire.ConsumeVarint(opset[2][0]); v != opsetVer {
		t.Errorf("opset = %d", v)
	}
	graph := fields(t, top[7][0])
	if len(graph[1]) != 2 || len(graph[5]) != 1 || len(graph[11]) != 1 || len(graph[12]) != 1 {
		t.Fatalf("graph has %d nodes, %d initializers, %d inputs, %d outputs", len(graph[1]), len(graph[5]), len(graph[11]), len(graph[12]))
	}
	node := fields(t, graph[1][0])
	if string(node[4][0]) != "Mul" || string(node[1][1]) != w {
		t.Errorf("node = %q %q", node[4], node[1])
	}
	tensor := fields(t, graph[5][0])
	if raw := tensor[9][0]; len(raw) != 8 || math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != 2 {
		t.Errorf("raw_data = %v", raw)
	}
	attr := fields(t, fields(t, graph[1][1])[5][0])
	if typ, _ := protowire.ConsumeVarint(attr[20][0]); typ != attrInts {
		t.Errorf("attribute type = %d", typ)
	}
	meta := fields(t, top[14][0])
	if string(meta[1][0]) != "dim" || string(meta[2][0]) != "2" {
		t.Errorf("metadata = %q", meta)
	}
}

func TestQuantizeColumns(t *testing.T) {
	w := []float32{1, -0.5, 0.25, 0.01, 0.02, -0.04} // [out=2, in=3]
	q, scales := QuantizeColumns(w, 3, 2)
	for o := 0; o < 2; o++ {
		for i := 0; i < 3; i++ {
			got := float32(q[i*2+o]) * scales[o]
			if d := math.Abs(float64(got - w[o*3+i])); d > float64(scales[o])/2+1e-7 {
				t.Errorf("w[%d,%d] = %v dequantised to %v", o, i, w[o*3+i], got)
			}
		}
	}
	if q[0] != 127 || q[2*2+1] != -127 {
		t.Errorf("extremes not at ±127: %v", q)
	}
}

func TestPCA(t *testing.T) {
	// Points along (1, 1) with small noise along (1, -1).
	var x [][]float32
	for i := -50; i <= 50; i++ {
		a := float32(i)
		x = append(x, []float32{a + 0.1, a - 0.1}, []float32{a - 0.1, a + 0.1})
	}
	pc := PCA(x, 2)
	if d := math.Abs(math.Abs(pc[0][0]) - math.Sqrt(0.5)); d > 1e-6 || pc[0][0]*pc[0][1] < 0 {
		t.Errorf("first component %v, want ±(0.707, 0.707)", pc[0])
	}
	if dot := pc[0][0]*pc[1][0] + pc[0][1]*pc[1][1]; math.Abs(dot) > 1e-9 {
		t.Errorf("components not orthogonal: %v", dot)
	}
}
