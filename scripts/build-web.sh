#!/usr/bin/env bash
# Builds the static site into $OUT (default target/site): the registry wasm
# (wasm-bindgen + wasm-opt), the JS runtime from web/, and the data shard
# from $DATA (default: the demo dump).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PWD/node_modules/.bin:$PATH"
OUT=${OUT:-target/site}
DATA=${DATA:-data/demo/registry-demo.json}
RELEASE=${RELEASE:-}

cargo build --locked -p registry-wasm --target wasm32-unknown-unknown --profile wasm
cargo build --locked -p registry-cli --release
rm -rf "$OUT/pkg" && mkdir -p "$OUT/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$OUT/pkg" --out-name registry_wasm \
  target/wasm32-unknown-unknown/wasm/registry_wasm.wasm
v=$(wasm-opt --version | cut -d' ' -f3)
[ "$v" -ge 116 ] || { echo "wasm-opt $v is too old (Debian's 108 breaks wasm-bindgen output); run npm ci" >&2; exit 1; }
wasm-opt -Oz --strip-debug "$OUT/pkg/registry_wasm_bg.wasm" -o "$OUT/pkg/registry_wasm_bg.wasm"
cp web/*.js "$OUT/"
[ -d web/static ] && cp -r web/static/. "$OUT/"
bash scripts/build-ui.sh "$OUT"
if [ -n "$RELEASE" ]; then rel=(--release "$RELEASE"); elif [ "$DATA" = data/demo/registry-demo.json ]; then rel=(--release demo); else rel=(); fi
# Progress on stderr: the real registry takes tens of seconds. The data
# folder keeps only this build (registry build removes earlier ones).
./target/release/registry build "$DATA" -o "$OUT/data" "${rel[@]}"
echo "site: $OUT ($(du -sh "$OUT" | cut -f1))"
