#!/usr/bin/env bash
# encoders-node-deps.sh — install the Node.js reference implementations used to
# check and benchmark the encoders package: the Hugging Face tokenizers library
# (npm @anush008/tokenizers binds it) and onnxruntime-node (same ONNX Runtime
# version as the Go side; its postinstall is never run: --ignore-scripts).
#
# Installs into $BOOLPOOL_CACHE/node (default <repo>/.cache/node) and prints the
# node_modules path on stdout. Idempotent and instant when already installed.
# Needed only to regenerate the tokenizer golden files and for `make bench`.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${BOOLPOOL_CACHE:-$here/.cache}"
DIR="$CACHE/node"
PKGS=("@anush008/tokenizers@0.6.0" "onnxruntime-node@1.30.0")

log() { printf 'encoders-node-deps: %s\n' "$*" >&2; }

stamp="${PKGS[*]}"
if [ -f "$DIR/.complete" ] && [ "$(cat "$DIR/.complete")" = "$stamp" ]; then
  echo "$DIR/node_modules"
  exit 0
fi
command -v npm >/dev/null || { log "npm is required (apt-get install npm)"; exit 1; }
mkdir -p "$DIR"
[ -f "$DIR/package.json" ] || echo '{"name":"boolpool-encoders-node","private":true}' >"$DIR/package.json"
log "npm install ${PKGS[*]} (scripts disabled)"
(cd "$DIR" && npm install --silent --ignore-scripts --no-audit --no-fund --save-exact "${PKGS[@]}" >&2)
echo "$stamp" >"$DIR/.complete"
echo "$DIR/node_modules"
