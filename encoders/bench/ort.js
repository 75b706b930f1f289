// ort.js times onnxruntime-node on an ONNX file written by boolpool.
//
// Serve mode (what `boolpool-lab bench --suites encoders` uses): the Go suite
// starts `node ort.js --serve` once and sends one JSON command per line on
// stdin; each gets one JSON line back. Go and node measurements then
// alternate in short rounds, so a busy machine disturbs both sides alike.
//
//   {"op":"run", "model":M, "threads":T, "names":[...], "shape":[B,S], "inputs":[[...],...], "seconds":s}
//       model run only: the int64 tensors are exactly the ones the Go
//       pipeline feeds (same ids, same padding); they are built once, then
//       session.run() is timed. Reply {"runs":n, "seconds":t}.
//   {"op":"e2e", "model":M, "threads":T, "tokenizer":path, "specials":bool, "texts":[...], "seconds":s}
//       the node pipeline end to end: Hugging Face tokenizers encodeBatch()
//       on the texts, int64 tensors padded to the longest text, session.run().
//       Reply {"runs":n, "seconds":t}.
//
// Standalone mode, for a quick look (random ids, no padding):
//
//   scripts/encoders-node-deps.sh && go run ./cmd/boolpool model prepare
//   NODE_PATH=.cache/node/node_modules node encoders/bench/ort.js .cache/models/minilm.onnx [threads]
'use strict';
const ort = require('onnxruntime-node');
const readline = require('readline');

const sessions = new Map();
async function session(model, threads) {
  const key = `${model}\u0000${threads}`;
  if (!sessions.has(key)) {
    sessions.set(key, await ort.InferenceSession.create(model, {
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    }));
  }
  return sessions.get(key);
}

const tokenizers = new Map();
function tokenizer(path) {
  if (!tokenizers.has(path)) {
    const { Tokenizer } = require('@anush008/tokenizers');
    const tok = Tokenizer.fromFile(path);
    tok.disablePadding();
    tok.disableTruncation();
    tokenizers.set(path, tok);
  }
  return tokenizers.get(path);
}

// timed runs fn until seconds have passed (at least once) after one
// untimed warm-up call.
async function timed(fn, seconds, warm) {
  if (warm) await fn();
  let runs = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (runs < 1 || elapsed < seconds) {
    await fn();
    runs++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  return { runs, seconds: elapsed };
}

function tensors(names, shape, inputs) {
  const feeds = {};
  names.forEach((name, i) => {
    feeds[name] = new ort.Tensor('int64', BigInt64Array.from(inputs[i], BigInt), shape);
  });
  return feeds;
}

async function e2e(s, tok, specials, texts, pad) {
  const encs = await tok.encodeBatch(texts, { addSpecialTokens: specials });
  const ids = encs.map((e) => e.getIds());
  const batch = ids.length;
  const seq = Math.max(1, ...ids.map((x) => x.length));
  const n = batch * seq;
  const idT = new BigInt64Array(n).fill(BigInt(pad));
  const mask = new BigInt64Array(n);
  ids.forEach((row, b) => {
    for (let t = 0; t < row.length; t++) {
      idT[b * seq + t] = BigInt(row[t]);
      mask[b * seq + t] = 1n;
    }
  });
  const feeds = {
    input_ids: new ort.Tensor('int64', idT, [batch, seq]),
    attention_mask: new ort.Tensor('int64', mask, [batch, seq]),
  };
  if (s.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(n), [batch, seq]);
  return s.run(feeds);
}

async function serve() {
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  const warmed = new Set();
  for await (const line of rl) {
    if (!line.trim()) continue;
    let reply;
    try {
      const cmd = JSON.parse(line);
      const s = await session(cmd.model, cmd.threads || require('os').cpus().length);
      const key = JSON.stringify([cmd.op, cmd.model, cmd.shape, cmd.texts && cmd.texts.length, cmd.texts && cmd.texts[0]]);
      const warm = !warmed.has(key);
      warmed.add(key);
      if (cmd.op === 'run') {
        const feeds = tensors(cmd.names, cmd.shape, cmd.inputs);
        reply = await timed(() => s.run(feeds), cmd.seconds, warm);
      } else if (cmd.op === 'e2e') {
        const tok = tokenizer(cmd.tokenizer);
        reply = await timed(() => e2e(s, tok, cmd.specials, cmd.texts, cmd.pad || 0), cmd.seconds, warm);
      } else {
        throw new Error(`unknown op ${cmd.op}`);
      }
    } catch (e) {
      reply = { error: String(e && e.stack || e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  }
}

async function standalone() {
  const [model, threadsArg] = process.argv.slice(2);
  const threads = Number(threadsArg || require('os').cpus().length);
  const s = await session(model, threads);
  const batch = 32;
  const result = { model, threads, batch, texts_per_s: {} };
  let seed = 1;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed; };
  for (const tokens of [32, 128, 256]) {
    const n = batch * tokens;
    const ids = new Array(n);
    for (let b = 0; b < batch; b++) {
      for (let t = 0; t < tokens; t++) ids[b * tokens + t] = 1996 + (rand() % 28000);
      ids[b * tokens] = 101;
      ids[b * tokens + tokens - 1] = 102;
    }
    const names = ['input_ids', 'attention_mask'];
    const inputs = [ids, new Array(n).fill(1)];
    if (s.inputNames.includes('token_type_ids')) { names.push('token_type_ids'); inputs.push(new Array(n).fill(0)); }
    const feeds = tensors(names, [batch, tokens], inputs);
    const r = await timed(() => s.run(feeds), 3, true);
    result.texts_per_s[tokens] = (r.runs * batch) / r.seconds;
  }
  console.log(JSON.stringify(result));
}

(process.argv[2] === '--serve' ? serve() : standalone()).catch((e) => { console.error(e); process.exit(1); });
