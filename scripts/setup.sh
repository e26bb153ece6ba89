#!/usr/bin/env bash
# Installs what a fresh machine lacks (idempotent; skips what is present).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

have() { command -v "$1" >/dev/null 2>&1; }

have cargo || { echo "setup: cargo not found: install Rust with rustup first" >&2; exit 1; }
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
cargo fetch --locked >/dev/null
echo "setup: ok ($(cargo --version))"
