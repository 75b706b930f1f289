// tokenizer.js times the Hugging Face tokenizers library (npm
// @anush008/tokenizers binds its Rust implementation) on the same texts as
// the Go benchmark BenchmarkTokenizer (encoders/tokenizer/bench_test.go).
//
//   scripts/encoders-node-deps.sh && scripts/fetch-models.sh
//   NODE_PATH=.cache/node/node_modules node encoders/bench/tokenizer.js \
//       .cache/models/minilm-fp16/tokenizer.json encoders/testdata/sentences.txt [N]
//
// Prints one JSON object: texts/s and MB/s for one-by-one encode() calls
// (serial) and for encodeBatch() (the library's own thread pool).
'use strict';
const fs = require('fs');
const { Tokenizer } = require('@anush008/tokenizers');

// Same corpus construction as benchCorpus in bench_test.go.
function corpus(path, n) {
  const lines = fs.readFileSync(path, 'utf8').trim().split('\n');
  const texts = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    let t = lines[i % lines.length];
    if (i % 10 === 9) t = lines.slice(i % lines.length, Math.min(lines.length, (i % lines.length) + 10)).join(' ');
    texts.push(t);
    bytes += Buffer.byteLength(t);
  }
  return { texts, bytes };
}

async function time(fn, minMs) {
  await fn(); // warm up
  let runs = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < minMs) {
    await fn();
    runs++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return elapsed / runs; // ms per run
}

async function main() {
  const [tokFile, textsFile, nArg] = process.argv.slice(2);
  const n = Number(nArg || 10000);
  const tok = Tokenizer.fromFile(tokFile);
  tok.disablePadding();
  tok.disableTruncation();
  const { texts, bytes } = corpus(textsFile, n);
  const serial = await time(async () => {
    for (const t of texts) await tok.encode(t);
  }, 2000);
  const batch = await time(() => tok.encodeBatch(texts), 2000);
  const mb = bytes / 1e6;
  console.log(JSON.stringify({
    library: 'huggingface-tokenizers (@anush008/tokenizers)',
    texts: n,
    serial_texts_per_s: n / (serial / 1000),
    serial_mb_per_s: mb / (serial / 1000),
    batch_texts_per_s: n / (batch / 1000),
    batch_mb_per_s: mb / (batch / 1000),
  }));
}

main().catch((e) => { console.error(e); process.exit(1); });
