package onnxgen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// StaticOptions configures the static (Model2Vec-style) encoder.
type StaticOptions struct {
	// Dims is the PCA output dimension (default 256; capped at the input dim).
	Dims int
	// SIF is the smooth-inverse-frequency coefficient of the Zipf weighting
	// (default 1e-5; Model2Vec uses 1e-4, but on our check sentences the
	// pairwise-similarity correlation with the transformer rose from 0.56 at
	// 1e-4 to 0.66 at 1e-5, 0.67 at 3e-6).
	SIF float64
	// Metadata is stored in the model's metadata_props.
	Metadata map[string]string
}

// DistillStatic turns one vector per vocabulary id (rows of vecs, in id
// order, e.g. the transformer's embedding of "[CLS] token [SEP]") into a
// static embedding table: PCA to opt.Dims dimensions, then Zipf weighting
// that assumes ids are roughly in frequency order (true of BERT WordPiece
// vocabularies past the [unused] block): weight(id) = sif / (sif + p(id)),
// p(id) ∝ 1/(id+2). Returns the [vocab, dims] table.
func DistillStatic(vecs [][]float32, opt StaticOptions) ([][]float32, error) {
	if len(vecs) == 0 {
		return nil, fmt.Errorf("distill: no vectors")
	}
	in := len(vecs[0])
	dims := opt.Dims
	if dims <= 0 {
		dims = 256
	}
	dims = min(dims, in)
	sif := opt.SIF
	if sif <= 0 {
		sif = 1e-5
	}
	for i, v := range vecs {
		if len(v) != in {
			return nil, fmt.Errorf("distill: vector %d has %d dims, want %d", i, len(v), in)
		}
	}
	components := PCA(vecs, dims)
	mean := columnMeans(vecs)
	var norm float64
	for r := range vecs {
		norm += 1 / float64(r+2)
	}
	out := make([][]float32, len(vecs))
	for r, v := range vecs {
		p := 1 / float64(r+2) / norm
		w := sif / (sif + p)
		row := make([]float32, dims)
		for c := 0; c < dims; c++ {
			var s float64
			for j, x := range v {
				s += (float64(x) - mean[j]) * components[c][j]
			}
			row[c] = float32(s * w)
		}
		out[r] = row
	}
	return out, nil
}

// PCA returns the top k principal directions (unit vectors, by decreasing
// variance) of the rows of x, by Jacobi eigen-decomposition of the
// covariance matrix.
func PCA(x [][]float32, k int) [][]float64 {
	n := len(x[0])
	mean := columnMeans(x)
	cov := make([][]float64, n)
	for i := range cov {
		cov[i] = make([]float64, n)
	}
	centered := make([]float64, n)
	for _, v := range x {
		for j, f := range v {
			centered[j] = float64(f) - mean[j]
		}
		for i := 0; i < n; i++ {
			ci := centered[i]
			row := cov[i]
			for j := i; j < n; j++ {
				row[j] += ci * centered[j]
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			cov[i][j] /= float64(len(x) - 1)
			cov[j][i] = cov[i][j]
		}
	}
	values, vectors := jacobiEigen(cov)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return values[idx[a]] > values[idx[b]] })
	out := make([][]float64, k)
	for c := 0; c < k; c++ {
		col := idx[c]
		out[c] = make([]float64, n)
		for i := 0; i < n; i++ {
			out[c][i] = vectors[i][col]
		}
	}
	return out
}

// jacobiEigen diagonalises a symmetric matrix (cyclic Jacobi rotations).
// It returns the eigenvalues and the eigenvectors as columns.
func jacobiEigen(a [][]float64) ([]float64, [][]float64) {
	n := len(a)
	v := make([][]float64, n)
	for i := range v {
		v[i] = make([]float64, n)
		v[i][i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		var off float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += a[i][j] * a[i][j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				if math.Abs(a[p][q]) < 1e-300 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p] = c*akp - s*akq
					a[k][q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k] = c*apk - s*aqk
					a[q][k] = s*apk + c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p] = c*vkp - s*vkq
					v[k][q] = s*vkp + c*vkq
				}
			}
		}
	}
	values := make([]float64, n)
	for i := range values {
		values[i] = a[i][i]
	}
	return values, v
}

// StaticInputNames are the static graph's inputs: no token_type_ids.
func StaticInputNames() []string { return []string{InputIDs, AttentionMask} }

// BuildStatic writes the static encoder graph: Gather rows of the table by
// input_ids, mean over the attention mask, L2 normalise.
func BuildStatic(table [][]float32, opt StaticOptions) *Model {
	m := &Model{Name: "static", Metadata: map[string]string{}}
	for k, v := range opt.Metadata {
		m.Metadata[k] = v
	}
	vocab, dims := int64(len(table)), int64(len(table[0]))
	flat := make([]float32, 0, vocab*dims)
	for _, row := range table {
		flat = append(flat, row...)
	}
	dyn := []Dim{{Param: "batch"}, {Param: "sequence"}}
	for _, in := range StaticInputNames() {
		m.Inputs = append(m.Inputs, ValueInfo{Name: in, Type: Int64, Dims: dyn})
	}
	m.Outputs = []ValueInfo{{Name: OutputName, Type: Float, Dims: []Dim{{Param: "batch"}, {Value: dims}}}}
	m.Metadata["dim"] = strconv.FormatInt(dims, 10)
	m.Metadata["pooling"] = "mean"
	m.Metadata["normalize"] = "l2"
	emb := m.Init(FloatTensor("static_embeddings", []int64{vocab, dims}, flat))
	x := m.Op("Gather", []string{emb, InputIDs})
	maskF := m.Op("Cast", []string{AttentionMask}, AttrInt("to", Float))
	PoolAndNormalize(m, x, maskF, OutputName)
	return m
}

// columnMeans is the mean of each column of the rows of x (all as long as
// the first).
func columnMeans(x [][]float32) []float64 {
	mean := make([]float64, len(x[0]))
	for _, v := range x {
		for j, f := range v {
			mean[j] += float64(f)
		}
	}
	for j := range mean {
		mean[j] /= float64(len(x))
	}
	return mean
}
