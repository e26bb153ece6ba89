#!/usr/bin/env bash
# Packs the widget as an npm package (code only; the data folder is the
# integrator's): target/npm/registry-picker/ from a site built by
# scripts/build-web.sh (SITE, default target/site), then `npm pack` →
# target/npm/registry-picker-<version>.tgz (printed).
set -euo pipefail
cd "$(dirname "$0")/.."
SITE=${SITE:-target/site}
[ -f "$SITE/registry-picker.js" ] || { echo "no site in $SITE: run scripts/build-web.sh first" >&2; exit 1; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
license=$(sed -n 's/^license = "\(.*\)"/\1/p' Cargo.toml | head -1)
out=target/npm/registry-picker
rm -rf target/npm && mkdir -p "$out/ui" "$out/pkg"
# registry.js imports registry-pieces.js (main-thread suggestions, openRegistryEarly), and so does
# registry-data.js (the one manifest reader); registry-pieces.js loads registry-search.js for results
# pages (`request` of a `?query=` URL).
cp "$SITE/registry-picker.js" "$SITE/registry.js" "$SITE/registry-pieces.js" "$SITE/registry-search.js" "$SITE/registry-worker.js" "$SITE/registry-data.js" "$out/"
cp "$SITE"/pkg/registry_wasm.js "$SITE"/pkg/registry_wasm_bg.wasm "$out/pkg/"
# The ui/ files the loader names (widget UI, suggest-only registry, pieces client, CSS).
for f in $(grep -o '"ui/[^"]*"' "$SITE/registry-picker.js" | tr -d '"'); do cp "$SITE/$f" "$out/ui/"; done
cp web/npm/index.d.ts web/npm/README.md "$out/"
cat > "$out/package.json" <<JSON
{
  "name": "registry-picker",
  "version": "$version",
  "description": "<registry-picker>: an organization picker for HTML forms, searching a research-organization registry in the browser (WebAssembly).",
  "license": "$license",
  "type": "module",
  "main": "./registry-picker.js",
  "types": "./index.d.ts",
  "exports": {
    ".": { "types": "./index.d.ts", "default": "./registry-picker.js" },
    "./registry.js": { "types": "./index.d.ts", "default": "./registry.js" },
    "./package.json": "./package.json"
  },
  "sideEffects": ["./registry-picker.js"],
  "files": ["registry-picker.js", "registry.js", "registry-pieces.js", "registry-search.js", "registry-worker.js", "registry-data.js", "ui/", "pkg/", "index.d.ts", "README.md"],
  "keywords": ["organization", "affiliation", "autocomplete", "web-component", "wasm", "form"]
}
JSON
tgz=$(cd target/npm && npm pack ./registry-picker --silent)
echo "npm: target/npm/$tgz ($(wc -c < "target/npm/$tgz") B)"
# For <script type="module" src="…/registry-picker.js" integrity="…" crossorigin>:
echo "SRI of registry-picker.js: $(node -e 'process.stdout.write("sha384-" + require("crypto").createHash("sha384").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$out/registry-picker.js")"
