package onnxgen

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
)

// Weights is a loaded safetensors checkpoint, every tensor converted to float32.
type Weights struct {
	tensors map[string]weight
}

type weight struct {
	shape []int64
	data  []float32
}

// LoadSafetensors reads a .safetensors file, converting F16, BF16 and F32
// tensors to float32 (integer tensors such as position_ids are skipped).
func LoadSafetensors(path string) (*Weights, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	w, err := ParseSafetensors(data)
	if err != nil {
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	return w, nil
}

// ParseSafetensors decodes the safetensors format: an 8-byte little-endian
// header length, a JSON header, then the raw tensor bytes.
func ParseSafetensors(data []byte) (*Weights, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("file too short")
	}
	n := binary.LittleEndian.Uint64(data)
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("header length %d exceeds file size", n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	body := data[8+n:]
	w := &Weights{tensors: map[string]weight{}}
	for name, raw := range header {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			Dtype   string   `json:"dtype"`
			Shape   []int64  `json:"shape"`
			Offsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("tensor %s: %w", name, err)
		}
		if h.Offsets[0] < 0 || h.Offsets[1] < h.Offsets[0] || h.Offsets[1] > int64(len(body)) {
			return nil, fmt.Errorf("tensor %s: offsets %v out of range", name, h.Offsets)
		}
		b := body[h.Offsets[0]:h.Offsets[1]]
		count := int64(1)
		for _, d := range h.Shape {
			count *= d
		}
		var v []float32
		switch h.Dtype {
		case "F32":
			if int64(len(b)) != 4*count {
				return nil, fmt.Errorf("tensor %s: %d bytes for %d F32 values", name, len(b), count)
			}
			v = make([]float32, count)
			for i := range v {
				v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
			}
		case "F16":
			if int64(len(b)) != 2*count {
				return nil, fmt.Errorf("tensor %s: %d bytes for %d F16 values", name, len(b), count)
			}
			v = make([]float32, count)
			for i := range v {
				v[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
			}
		case "BF16":
			if int64(len(b)) != 2*count {
				return nil, fmt.Errorf("tensor %s: %d bytes for %d BF16 values", name, len(b), count)
			}
			v = make([]float32, count)
			for i := range v {
				v[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
			}
		default:
			continue // integer buffers (position_ids) are not weights
		}
		w.tensors[name] = weight{shape: h.Shape, data: v}
	}
	return w, nil
}

// Get returns a tensor's shape and values, checking the shape when want is
// given.
func (w *Weights) Get(name string, want ...int64) ([]int64, []float32, error) {
	t, ok := w.tensors[name]
	if !ok {
		return nil, nil, fmt.Errorf("tensor %q not in checkpoint", name)
	}
	if len(want) > 0 && !slices.Equal(want, t.shape) {
		return nil, nil, fmt.Errorf("tensor %q has shape %v, want %v", name, t.shape, want)
	}
	return t.shape, t.data, nil
}

// Names lists the tensors.
func (w *Weights) Names() []string {
	names := make([]string, 0, len(w.tensors))
	for n := range w.tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// halfToFloat converts an IEEE 754 binary16 value to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: renormalise
		e := uint32(127 - 15 + 1)
		for frac&0x400 == 0 {
			frac <<= 1
			e--
		}
		frac &= 0x3ff
		return math.Float32frombits(sign | e<<23 | frac<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	}
}
