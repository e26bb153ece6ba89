#!/usr/bin/env bash
# Runs every check and test. The last line is the test runner's summary.
set -euo pipefail
started=$(date +%s)
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh

echo "== format"
cargo fmt --all --check
echo "== lint"
cargo clippy --workspace --all-targets --locked -- -D warnings
echo "== core compiles for the browser (wasm32, no std I/O)"
if rustup target list --installed 2>/dev/null | grep -q wasm32-unknown-unknown; then
  cargo build -p registry-core --target wasm32-unknown-unknown --locked
else
  echo "wasm32 target not installed: skipped (CI installs it)"
fi
echo "== tests (native; ../shared data used when present)"
cargo test --workspace --locked 2>&1 | tee target/test-output.txt
echo "== done in $(( $(date +%s) - started )) s"
# One closing line for the whole run, counted over every test binary.
awk '/^test result:/ { p += $4; f += $6; s += $8 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0) }' target/test-output.txt
