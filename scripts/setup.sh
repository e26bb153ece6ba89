#!/usr/bin/env bash
# Installs what a fresh machine lacks (idempotent; skips what is present):
# Rust components and the wasm32 target, wasm-bindgen-cli at the Cargo.lock
# version, Debian's Chromium + ChromeDriver (browser tests), npm tools
# (wasm-opt from binaryen 132, playwright-core, axe-core, benchmark peers).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

have() { command -v "$1" >/dev/null 2>&1; }
say() { echo "setup: $*"; }

have cargo || { echo "setup: cargo not found: install Rust with rustup first" >&2; exit 1; }
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
rustup target list --installed | grep -q '^wasm32-unknown-unknown$' || rustup target add wasm32-unknown-unknown

if ! have chromium || ! have chromedriver || ! have brotli; then
  say "installing chromium, chromium-driver, brotli (Debian)"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver brotli >/dev/null
fi

WB=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2)" != "$WB" ]; then
  say "installing wasm-bindgen-cli $WB (a few minutes)"
  # --locked fails on this registry mirror (a pinned dependency is missing); the
  # wasm-bindgen crates themselves are pinned exactly either way.
  cargo install wasm-bindgen-cli --version "$WB" --locked 2>/dev/null || cargo install wasm-bindgen-cli --version "$WB"
fi

if ! [ -x node_modules/.bin/wasm-opt ] || ! [ -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
cargo fetch --locked >/dev/null
say "ok ($(cargo --version); $(wasm-bindgen --version); $(chromium --version 2>/dev/null | head -1))"
