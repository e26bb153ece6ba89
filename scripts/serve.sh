#!/usr/bin/env bash
# Builds the shard from the demo data (or DATA=<dump|shard>) and prints its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh
DATA=${DATA:-data/demo/registry-demo.json}
OUT=${OUT:-target/site/data}
cargo build --release --locked -p registry-cli
./target/release/registry build "$DATA" -o "$OUT" --release "${RELEASE:-demo}"
./target/release/registry info "$OUT"
