package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"boolpool/encoders"
	"boolpool/encoders/tokenizer"
)

// EncodersSuite compares the Go tokenizer with the Hugging Face tokenizers
// library and the Go encoding pipeline with onnxruntime-node on the same
// ONNX files: model run only on the very tensors Encode builds, end to end
// against HF tokenizers + onnxruntime-node, and (labelled as not like for
// like) our end to end against node's model run; Go and node rounds
// alternate. Then pgvector HNSW recall (with a database). fp32 vs int8 vs
// static is the encoders-int8 suite (EncoderSpeedSuite).
func EncodersSuite() Suite { return Suite{Name: "encoders", Run: runEncoders} }

func runEncoders(ctx context.Context, env *Env) ([]Row, error) {
	rt, err := env.Runtime()
	if err != nil {
		return nil, err
	}
	nodeModules, err := nodeDeps(ctx)
	if err != nil {
		return nil, err
	}
	sentences, err := readLines(filepath.Join("encoders", "testdata", "sentences.txt"))
	if err != nil {
		return nil, err
	}
	var rows []Row

	// Tokenizer: the same 10,000-text corpus as encoders/bench/tokenizer.js.
	tok, err := tokenizer.Load(filepath.Join(rt.SourceDir(), "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	texts := tokCorpus(sentences, 10000)
	serial, err := Time(env.Repeats, func() error {
		for _, t := range texts {
			tok.Tokenize(t)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	batch, err := Time(env.Repeats, func() error { tok.EncodeBatch(texts, 0, 2); return nil })
	if err != nil {
		return nil, err
	}
	var hf struct {
		Serial float64 `json:"serial_texts_per_s"`
		Batch  float64 `json:"batch_texts_per_s"`
	}
	if err := nodeJSON(ctx, nodeModules, &hf, filepath.Join("encoders", "bench", "tokenizer.js"),
		filepath.Join(rt.SourceDir(), "tokenizer.json"), filepath.Join("encoders", "testdata", "sentences.txt"), "10000"); err != nil {
		return nil, err
	}
	r := Row{Suite: "encoders", Name: "tokenizer, one text at a time", Value: 10000 / serial, Unit: "texts/s", HigherIsBetter: true}.
		WithRef("HF tokenizers encode() (node binding)", hf.Serial)
	rows = append(rows, r.WithTarget(">= 1.0x", r.Ratio >= 1))
	r = Row{Suite: "encoders", Name: "tokenizer, batch on 2 threads", Value: 10000 / batch, Unit: "texts/s", HigherIsBetter: true}.
		WithRef("HF tokenizers encodeBatch()", hf.Batch)
	rows = append(rows, r.WithTarget(">= 1.0x", r.Ratio >= 1))

	// Encoding throughput, batches of 32 texts of exactly 32/128/256 tokens,
	// against onnxruntime-node on the same .onnx file. Both sides are measured
	// on the same thing, in alternating short rounds (a busy machine disturbs
	// both alike), medians over the rounds:
	//   - model run only: the int64 tensors Encode builds for the batch (same
	//     ids, same padding), fed to our session and to node's session.run();
	//   - end to end: texts in, vectors out; Go tokenizer + ONNX Runtime vs
	//     Hugging Face tokenizers (node binding) + onnxruntime-node;
	//   - our end-to-end figure against node's model-run-only figure, to show
	//     what tokenization and batch building cost on top of the model.
	open, closeAll, err := openEncoders(ctx, rt)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	node, err := startNodeORT(ctx, nodeModules)
	if err != nil {
		return nil, err
	}
	defer node.Close()
	rounds := min(max(1, env.Repeats), 5)
	minSec := 0.5
	if env.Quick {
		minSec = 0.2
	}
	threads := rt.Config().IntraOpThreads
	tokPath := filepath.Join(rt.SourceDir(), "tokenizer.json")
	for _, name := range encoders.Names() {
		enc := open[name]
		model := rt.ModelPath(name)
		for _, n := range []int{32, 128, 256} {
			if env.Quick && n == 256 && name != encoders.MiniLMStatic {
				continue
			}
			bt := exactTexts(tok, sentences, 32, n)
			batches := enc.Batches(bt)
			if _, err := enc.Encode(ctx, bt); err != nil { // warm up
				return nil, err
			}
			var goRun, nodeRun, goE2E, nodeE2E []float64
			for range rounds {
				v, err := rateFor(minSec, len(bt), func() error {
					for _, b := range batches {
						if _, err := enc.RunBatch(ctx, b); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return nil, err
				}
				goRun = append(goRun, v)
				var nr float64
				for _, b := range batches {
					sec, err := node.run(nodeCmd{Op: "run", Model: model, Threads: threads, Names: b.Names, Shape: []int{b.Rows, b.Seq}, Inputs: b.Inputs, Seconds: minSec / float64(len(batches))})
					if err != nil {
						return nil, err
					}
					nr += sec
				}
				nodeRun = append(nodeRun, float64(len(bt))/nr)
				if v, err = rateFor(minSec, len(bt), func() error { _, err := enc.Encode(ctx, bt); return err }); err != nil {
					return nil, err
				}
				goE2E = append(goE2E, v)
				sec, err := node.run(nodeCmd{Op: "e2e", Model: model, Threads: threads, Tokenizer: tokPath, Specials: name != encoders.MiniLMStatic, Texts: bt, Seconds: minSec})
				if err != nil {
					return nil, err
				}
				nodeE2E = append(nodeE2E, float64(len(bt))/sec)
			}
			shape := fmt.Sprintf("%d tokens, batch 32", n)
			note := fmt.Sprintf("median of %d alternating rounds; ratio = median of per-round ratios", rounds)
			r := pairedRow(Row{Suite: "encoders", Name: fmt.Sprintf("%s model run only, %s", name, shape), Unit: "texts/s", HigherIsBetter: true,
				Note: "Go: RunBatch on the tensors Encode builds; " + note}, goRun, "onnxruntime-node session.run(), same .onnx, same tensors", nodeRun)
			rows = append(rows, r.WithTarget(">= 0.95x", r.Ratio >= 0.95))
			r = pairedRow(Row{Suite: "encoders", Name: fmt.Sprintf("%s end to end, %s", name, shape), Unit: "texts/s", HigherIsBetter: true,
				Note: "texts in, vectors out (tokenization included on both sides); " + note}, goE2E, "HF tokenizers + onnxruntime-node, same .onnx", nodeE2E)
			rows = append(rows, r.WithTarget(">= 0.95x", r.Ratio >= 0.95))
			rows = append(rows, pairedRow(Row{Suite: "encoders", Name: fmt.Sprintf("%s end to end vs node model run only, %s", name, shape), Unit: "texts/s", HigherIsBetter: true,
				Note: "not like for like: Go figure includes tokenization, node is fed ready-made ids; " + note}, goE2E, "onnxruntime-node session.run() only", nodeRun))
		}
	}

	if env.Store == nil { // no database: no HNSW figures
		return rows, nil
	}
	hnsw, err := hnswRecall(ctx, env, open[encoders.MiniLMStatic])
	if err != nil {
		return nil, err
	}
	return append(rows, hnsw...), nil
}

// nodeDeps installs the node reference packages (cached) and returns their
// node_modules directory.
func nodeDeps(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "bash", filepath.Join("scripts", "encoders-node-deps.sh")).Output()
	if err != nil {
		return "", fmt.Errorf("encoders-node-deps.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// rateFor calls fn until minSec seconds have passed (at least once) and
// returns texts per second.
func rateFor(minSec float64, texts int, fn func() error) (float64, error) {
	runs := 0
	start := time.Now()
	for runs < 1 || time.Since(start).Seconds() < minSec {
		if err := fn(); err != nil {
			return 0, err
		}
		runs++
	}
	return float64(runs*texts) / time.Since(start).Seconds(), nil
}

// pairedRow reports the median of values against the median of refs
// (measured in the same rounds), with the ratio taken as the median of the
// per-round ratios, which a load change between rounds does not skew.
func pairedRow(r Row, values []float64, refName string, refs []float64) Row {
	r.Value = Median(values)
	r = r.WithRef(refName, Median(refs))
	ratios := make([]float64, 0, len(values))
	for i := range values {
		if i < len(refs) && values[i] > 0 && refs[i] > 0 {
			if r.HigherIsBetter {
				ratios = append(ratios, values[i]/refs[i])
			} else {
				ratios = append(ratios, refs[i]/values[i])
			}
		}
	}
	if len(ratios) > 0 {
		r.Ratio = Median(ratios)
	}
	if len(values) == 0 || len(refs) == 0 {
		return r
	}
	// The fastest round of each side is the one least disturbed by other
	// load; its ratio is shown too.
	best, bestRef := slices.Max(values), slices.Max(refs)
	bestRatio := best / bestRef
	if !r.HigherIsBetter {
		best, bestRef = slices.Min(values), slices.Min(refs)
		bestRatio = bestRef / best
	}
	r.Note += fmt.Sprintf("; fastest rounds %.4g vs %.4g (%.2fx)", best, bestRef, bestRatio)
	return r
}

// nodeORT is a long-lived `node encoders/bench/ort.js --serve`: one JSON
// command per line in, one JSON reply per line out.
type nodeORT struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// nodeCmd is one ort.js command (see the script's header).
type nodeCmd struct {
	Op        string    `json:"op"`
	Model     string    `json:"model"`
	Threads   int       `json:"threads"`
	Names     []string  `json:"names,omitempty"`
	Shape     []int     `json:"shape,omitempty"`
	Inputs    [][]int64 `json:"inputs,omitempty"`
	Tokenizer string    `json:"tokenizer,omitempty"`
	Specials  bool      `json:"specials"`
	Texts     []string  `json:"texts,omitempty"`
	Seconds   float64   `json:"seconds"`
}

func startNodeORT(ctx context.Context, nodeModules string) (*nodeORT, error) {
	cmd := exec.CommandContext(ctx, "node", filepath.Join("encoders", "bench", "ort.js"), "--serve")
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start node ort.js: %w", err)
	}
	return &nodeORT{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// run sends one command and returns node's seconds per call.
func (n *nodeORT) run(c nodeCmd) (float64, error) {
	b, err := json.Marshal(c)
	if err != nil {
		return 0, err
	}
	if _, err := n.in.Write(append(b, '\n')); err != nil {
		return 0, fmt.Errorf("node ort.js: %w", err)
	}
	line, err := n.out.ReadBytes('\n')
	if err != nil {
		return 0, fmt.Errorf("node ort.js: %w", err)
	}
	var reply struct {
		Runs    int     `json:"runs"`
		Seconds float64 `json:"seconds"`
		Error   string  `json:"error"`
	}
	if err := json.Unmarshal(line, &reply); err != nil {
		return 0, fmt.Errorf("node ort.js: %w (%q)", err, line)
	}
	if reply.Error != "" || reply.Runs == 0 {
		return 0, fmt.Errorf("node ort.js %s %s: %s", c.Op, c.Model, reply.Error)
	}
	return reply.Seconds / float64(reply.Runs), nil
}

func (n *nodeORT) Close() error {
	n.in.Close()
	return n.cmd.Wait()
}

func nodeJSON(ctx context.Context, nodeModules string, out any, args ...string) error {
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("node %s: %w", args[0], err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return json.Unmarshal([]byte(lines[len(lines)-1]), out)
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n"), nil
}

// tokCorpus builds the same corpus as encoders/bench/tokenizer.js.
func tokCorpus(lines []string, n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = lines[i%len(lines)]
		if i%10 == 9 {
			texts[i] = strings.Join(lines[i%len(lines):min(len(lines), i%len(lines)+10)], " ")
		}
	}
	return texts
}

// exactTexts makes n texts of exactly tokens tokens ([CLS]/[SEP] included).
func exactTexts(tok *tokenizer.Tokenizer, lines []string, n, tokens int) []string {
	words := strings.Fields(strings.Join(lines, " "))
	texts := make([]string, n)
	w := 0
	for i := range texts {
		var parts []string
		count := 2
		for tries := 0; count < tokens && tries < 10*len(words); tries++ {
			word := words[w%len(words)]
			w++
			if c := len(tok.Tokenize(word)); count+c <= tokens {
				parts = append(parts, word)
				count += c
			}
		}
		texts[i] = strings.Join(parts, " ")
	}
	return texts
}

// hnswRecall loads the demo documents' static-encoder vectors into
// pgvector, builds the HNSW index and compares its top 10 with exact search
// for 200 queries.
func hnswRecall(ctx context.Context, env *Env, enc *encoders.ONNXEncoder) ([]Row, error) {
	titles, bodies, err := readDocs(filepath.Join("server", "demo", "data", "documents.jsonl.gz"))
	if err != nil {
		return nil, err
	}
	pool := env.Store.Pool()
	if _, err := pool.Exec(ctx, `DROP TABLE IF EXISTS bench_vectors; CREATE TABLE bench_vectors (id int PRIMARY KEY, v vector(`+fmt.Sprint(enc.Dim())+`))`); err != nil {
		return nil, err
	}
	var vecs [][]float32
	for i := 0; i < len(bodies); i += 256 {
		end := min(len(bodies), i+256)
		texts := make([]string, 0, end-i)
		for k := i; k < end; k++ {
			texts = append(texts, titles[k]+". "+bodies[k])
		}
		vs, err := enc.Encode(ctx, texts)
		if err != nil {
			return nil, err
		}
		vecs = append(vecs, vs...)
	}
	b := &strings.Builder{}
	for i, v := range vecs {
		if _, err := pool.Exec(ctx, `INSERT INTO bench_vectors VALUES ($1, $2::text::vector)`, i, vecText(v, b)); err != nil {
			return nil, err
		}
	}
	if _, err := pool.Exec(ctx, `CREATE INDEX ON bench_vectors USING hnsw (v vector_cosine_ops); ANALYZE bench_vectors`); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(7, 11))
	nq := 200
	queries := make([][]float32, nq)
	for i := range queries {
		queries[i] = vecs[rng.IntN(len(vecs))]
		// Perturb so the query is not itself a stored point.
		q := append([]float32(nil), queries[i]...)
		o := vecs[rng.IntN(len(vecs))]
		for k := range q {
			q[k] = 0.8*q[k] + 0.2*o[k]
		}
		queries[i] = q
	}
	search := func(exact bool) ([][]int, float64, error) {
		conn, err := pool.Acquire(ctx)
		if err != nil {
			return nil, 0, err
		}
		defer conn.Release()
		set := `SET enable_indexscan = on; SET hnsw.ef_search = 40`
		if exact {
			set = `SET enable_indexscan = off`
		}
		if _, err := conn.Exec(ctx, set); err != nil {
			return nil, 0, err
		}
		res := make([][]int, nq)
		start := time.Now()
		for i, q := range queries {
			rows, err := conn.Query(ctx, `SELECT id FROM bench_vectors ORDER BY v <=> $1::text::vector LIMIT 10`, vecText(q, b))
			if err != nil {
				return nil, 0, err
			}
			for rows.Next() {
				var id int
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return nil, 0, err
				}
				res[i] = append(res[i], id)
			}
			rows.Close()
		}
		return res, float64(nq) / time.Since(start).Seconds(), nil
	}
	exact, exactQPS, err := search(true)
	if err != nil {
		return nil, err
	}
	approx, hnswQPS, err := search(false)
	if err != nil {
		return nil, err
	}
	hits := 0
	for i := range exact {
		in := map[int]bool{}
		for _, id := range exact[i] {
			in[id] = true
		}
		for _, id := range approx[i] {
			if in[id] {
				hits++
			}
		}
	}
	recall := float64(hits) / float64(10*nq)
	return []Row{
		{Suite: "encoders", Name: fmt.Sprintf("pgvector HNSW recall@10 vs exact (%d docs, %d-d static vectors, ef_search 40)", len(vecs), enc.Dim()), Value: recall},
		Row{Suite: "encoders", Name: "pgvector HNSW kNN throughput", Value: hnswQPS, Unit: "queries/s", HigherIsBetter: true}.WithRef("exact scan, same queries", exactQPS),
	}, nil
}

func vecText(v []float32, b *strings.Builder) string {
	b.Reset()
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(b, "%g", x)
	}
	b.WriteByte(']')
	return b.String()
}

func pairwise(vecs [][]float32) []float64 {
	var out []float64
	for i := range vecs {
		for j := i + 1; j < len(vecs); j++ {
			out = append(out, encoders.Cosine(vecs[i], vecs[j]))
		}
	}
	return out
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return sxy / math.Sqrt(sxx*syy)
}

// openEncoders opens every registered encoder of rt, by name; closeAll
// closes them. On an error the ones opened are closed.
func openEncoders(ctx context.Context, rt *encoders.Runtime) (open map[string]*encoders.ONNXEncoder, closeAll func(), err error) {
	open = map[string]*encoders.ONNXEncoder{}
	closeAll = func() {
		for _, e := range open {
			e.Close()
		}
	}
	for _, name := range encoders.Names() {
		e, err := rt.Open(ctx, name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		open[name] = e
	}
	return open, closeAll, nil
}
