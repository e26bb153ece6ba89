#!/usr/bin/env bash
# Redraws the README's pictures (docs/*.png, docs/img/*.png) from the demo
# site: the browser tests that show each picture, with UI_SCREENSHOTS=1.
# Test runs (scripts/test.sh) write none, so they leave the tree clean.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PWD/node_modules/.bin:$PATH"
bash scripts/setup.sh
bash scripts/build-web.sh
UI_SCREENSHOTS=1 node --test --test-timeout=180000 \
  tests/ui.test.mjs tests/widget.test.mjs tests/family.test.mjs tests/maps.test.mjs tests/dots.test.mjs tests/years.test.mjs
git status --short docs
