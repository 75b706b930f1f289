// gen_reference.js regenerates the tokenizer golden files from the Hugging Face
// tokenizers library (npm @anush008/tokenizers binds its Rust implementation).
//
//   scripts/encoders-node-deps.sh && scripts/fetch-models.sh
//   NODE_PATH=.cache/node/node_modules node encoders/testdata/tokenizer/gen_reference.js \
//       .cache/models/minilm-fp16/tokenizer.json encoders/testdata/tokenizer
//
// Reads corpus.jsonl (one JSON string per line) and writes
//   hf_ids.jsonl   per text: ids with the tokenizer.json truncation (128), and
//                  ids without truncation ("full");
//   hf_unicode.json.gz  per code point, what the normalizer and pre-tokenizer do
//                  with it alone, stored as ranges and exceptions.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { Tokenizer } = require('@anush008/tokenizers');

async function main() {
  const [tokFile, dir] = process.argv.slice(2);
  const lines = fs.readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  const texts = lines.map((l) => JSON.parse(l));

  const truncated = Tokenizer.fromFile(tokFile);
  truncated.disablePadding();
  const full = Tokenizer.fromFile(tokFile);
  full.disablePadding();
  full.disableTruncation();
  const out = [];
  for (const t of texts) {
    const a = await truncated.encode(t);
    const b = await full.encode(t);
    out.push(JSON.stringify({ ids: a.getIds(), full: b.getIds() }));
  }
  fs.writeFileSync(path.join(dir, 'hf_ids.jsonl'), out.join('\n') + '\n');

  // Per code point behaviour. Classes: d = dropped, s = becomes a space,
  // c = spaced (CJK), p = punctuation split; m = mapped to another string.
  const norm = truncated.getNormalizer();
  const pre = truncated.getPreTokenizer();
  const ranges = { d: [], s: [], c: [], p: [] };
  const mapped = {};
  const add = (cls, cp) => {
    const r = ranges[cls];
    if (r.length > 0 && r[r.length - 1][1] === cp - 1) r[r.length - 1][1] = cp;
    else r.push([cp, cp]);
  };
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    const n = norm.normalizeString(ch);
    if (n === '') { add('d', cp); continue; }
    if (n === ' ') { add('s', cp); continue; }
    if (n === ' ' + ch + ' ') { add('c', cp); continue; }
    if (n !== ch) mapped[cp] = n;
    const pieces = pre.preTokenizeString('a' + n + 'a');
    if (pieces.length === 3 && pieces[1][0] === n) add('p', cp);
  }
  const json = JSON.stringify({ ranges, mapped });
  fs.writeFileSync(path.join(dir, 'hf_unicode.json.gz'), zlib.gzipSync(json, { level: 9 }));
}

main().catch((e) => { console.error(e); process.exit(1); });
