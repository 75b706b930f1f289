#!/usr/bin/env bash
# install-onnxruntime.sh — put the ONNX Runtime CPU shared library into the cache.
#
# The library comes from the npm package onnxruntime-node (its prebuilt CPU
# build for linux/x64). Only `npm pack` is used: the package's postinstall,
# which would download more binaries, is never run.
#
# Result: $BOOLPOOL_CACHE/onnxruntime/libonnxruntime.so.1 (default cache:
# <repo>/.cache). Prints the library path on stdout; progress goes to stderr.
# Idempotent: when the library is present with the pinned sha256 it returns at once.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${BOOLPOOL_CACHE:-$here/.cache}"
DIR="$CACHE/onnxruntime"
LIB="$DIR/libonnxruntime.so.1"

ORT_VERSION=1.30.0
# npm registry dist.integrity of onnxruntime-node@1.30.0.
ORT_INTEGRITY="sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw=="
# sha256 of package/bin/napi-v6/linux/x64/libonnxruntime.so.1, recorded on first fetch.
LIB_SHA256=ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23

log() { printf 'install-onnxruntime: %s\n' "$*" >&2; }

if [ -f "$LIB" ] && [ -f "$LIB.sha256ok" ] && [ "$LIB" -ot "$LIB.sha256ok" ]; then
  echo "$LIB"
  exit 0
fi
if [ -f "$LIB" ] && echo "$LIB_SHA256  $LIB" | sha256sum --quiet -c - 2>/dev/null; then
  touch "$LIB.sha256ok"
  echo "$LIB"
  exit 0
fi

case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) log "only linux/x86_64 is supported by this script (got $(uname -s)/$(uname -m)); set BOOLPOOL_ORT_LIB to your own libonnxruntime.so"; exit 1 ;;
esac
command -v npm >/dev/null || { log "npm is required (apt-get install npm)"; exit 1; }

mkdir -p "$DIR"
tmp="$(mktemp -d "$DIR/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

log "npm pack onnxruntime-node@$ORT_VERSION (≈110 MB)"
(cd "$tmp" && npm pack --silent "onnxruntime-node@$ORT_VERSION" >/dev/null 2>"$tmp/npm.log") || { cat "$tmp/npm.log" >&2; exit 1; }
tgz="$tmp/onnxruntime-node-$ORT_VERSION.tgz"
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
[ "$got" = "$ORT_INTEGRITY" ] || { log "integrity mismatch for $tgz: got $got want $ORT_INTEGRITY"; exit 1; }

tar -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
src="$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
echo "$LIB_SHA256  $src" | sha256sum --quiet -c - || { log "sha256 mismatch for libonnxruntime.so.1"; exit 1; }
mv -f "$src" "$LIB"
touch "$LIB.sha256ok"
log "installed $LIB"
echo "$LIB"
