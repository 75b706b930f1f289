// ort.js times onnxruntime-node on an ONNX file written by boolpool, with
// batches of the same shapes as the Go benchmark BenchmarkEncode
// (encoders/bench_test.go): batch 32, sequences of 32/128/256 tokens
// ([CLS] … [SEP]), no padding. Token ids do not change the cost of a dense
// transformer or static graph, so they are drawn deterministically.
//
//   scripts/encoders-node-deps.sh && go run ./cmd/boolpool model prepare
//   NODE_PATH=.cache/node/node_modules node encoders/bench/ort.js .cache/models/minilm.onnx [threads]
//
// Prints one JSON object with texts/s per sequence length.
'use strict';
const ort = require('onnxruntime-node');

async function main() {
  const [model, threadsArg] = process.argv.slice(2);
  const threads = Number(threadsArg || require('os').cpus().length);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const batch = 32;
  const result = { model, threads, batch, texts_per_s: {} };
  let seed = 1;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed; };
  for (const tokens of [32, 128, 256]) {
    const n = batch * tokens;
    const ids = new BigInt64Array(n);
    const mask = new BigInt64Array(n).fill(1n);
    const types = new BigInt64Array(n);
    for (let b = 0; b < batch; b++) {
      for (let t = 0; t < tokens; t++) ids[b * tokens + t] = BigInt(1996 + (rand() % 28000));
      ids[b * tokens] = 101n;
      ids[b * tokens + tokens - 1] = 102n;
    }
    const feeds = {
      input_ids: new ort.Tensor('int64', ids, [batch, tokens]),
      attention_mask: new ort.Tensor('int64', mask, [batch, tokens]),
    };
    if (session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [batch, tokens]);
    await session.run(feeds); // warm up
    let runs = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < 3000 || runs < 3) {
      await session.run(feeds);
      runs++;
      elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    }
    result.texts_per_s[tokens] = (runs * batch) / (elapsed / 1000);
  }
  console.log(JSON.stringify(result));
}

main().catch((e) => { console.error(e); process.exit(1); });
