#!/usr/bin/env bash
# install-chromium.sh — make sure Debian's headless-capable Chromium is present
# for the chromedp end-to-end tests. Idempotent: returns at once when
# /usr/bin/chromium already exists. Prints the browser path on stdout.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo /usr/bin/chromium
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "install-chromium: /usr/bin/chromium is missing and I am not root: apt-get install chromium" >&2
  exit 1
fi
echo "install-chromium: apt-get install chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >&2
echo /usr/bin/chromium
