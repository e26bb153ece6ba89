#!/usr/bin/env bash
# Sets up, builds the site (app + data) and serves it on http://127.0.0.1:$PORT/.
#   DATA=<dump or shard> (default: the demo data)   PORT=<port> (default 8080)
# The page runs the registry in the browser; the same server also answers the
# API natively (/v2/organizations?…) from the same shard.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
bash scripts/setup.sh
export DATA=${DATA:-data/demo/registry-demo.json}
export OUT=${OUT:-target/site}
bash scripts/build-web.sh
exec ./target/release/registry serve --data "$OUT/data" --root "$OUT" --port "${PORT:-8080}"
