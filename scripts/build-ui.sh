#!/usr/bin/env bash
# Builds the UI (crates/ui, Leptos CSR) into a site folder built by
# scripts/build-web.sh: the wasm (profile `wasm`, wasm-bindgen --target web,
# wasm-opt -Oz) and CSS under ui/ with content-hashed names, index.html and
# registry-picker.js pointing at them, and app-files.json (the files the
# service worker precaches for offline use).
#   usage: scripts/build-ui.sh [SITE_DIR]   (default: $OUT or target/site)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PWD/node_modules/.bin:$PATH"
OUT=${1:-${OUT:-target/site}}
TD=${CARGO_TARGET_DIR:-target}
mkdir -p "$OUT"

cargo build --locked -p registry-ui --target wasm32-unknown-unknown --profile wasm
tmp="$TD/ui-bindgen"
rm -rf "$tmp" && mkdir -p "$tmp"
wasm-bindgen --target web --no-typescript --out-dir "$tmp" --out-name registry_ui \
  "$TD/wasm32-unknown-unknown/wasm/registry-ui.wasm"
v=$(wasm-opt --version | cut -d' ' -f3)
[ "$v" -ge 116 ] || { echo "wasm-opt $v is too old (Debian's 108 breaks wasm-bindgen output); run npm ci" >&2; exit 1; }
wasm-opt -Oz --strip-debug --strip-producers "$tmp/registry_ui_bg.wasm" -o "$tmp/registry_ui_bg.wasm"

# Content-hashed names: ui/<stem>.<16 hex of SHA-256>.<ext> (immutable).
hashed() { # src stem ext → prints the new name
  local h; h=$(sha256sum "$1" | cut -c1-16)
  cp "$1" "$OUT/ui/$2.$h.$3"
  echo "$2.$h.$3"
}
rm -rf "$OUT/ui" && mkdir -p "$OUT/ui"
wasm=$(hashed "$tmp/registry_ui_bg.wasm" registry_ui_bg wasm)
js=$(hashed "$tmp/registry_ui.js" registry_ui js)
app_css=$(hashed crates/ui/style/app.css app css)
picker_css=$(hashed crates/ui/style/picker.css picker css)
subst() {
  sed -e "s|__UI_JS__|$js|g" -e "s|__UI_WASM__|$wasm|g" -e "s|__APP_CSS__|$app_css|g" -e "s|__PICKER_CSS__|$picker_css|g" "$1" > "$2"
}
subst index.html "$OUT/index.html"
subst web/registry-picker.js "$OUT/registry-picker.js"
cp web/static/manifest.webmanifest web/static/widget-demo.html "$OUT/"
mkdir -p "$OUT/icons" && cp web/static/icons/* "$OUT/icons/"

cat > "$OUT/app-files.json" <<JSON
["ui/$js", "ui/$wasm", "ui/$app_css", "ui/$picker_css", "registry-picker.js", "manifest.webmanifest",
 "widget-demo.html", "api.html", "icons/icon.svg", "icons/icon-192.png", "icons/icon-512.png", "icons/icon-maskable-512.png"]
JSON
size() { wc -c < "$1" | tr -d ' '; }
echo "ui: $OUT/ui/$wasm $(size "$OUT/ui/$wasm") B raw, $(gzip -9c "$OUT/ui/$wasm" | wc -c) B gzip; glue $(size "$OUT/ui/$js") B"
