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

wasm_opt_ok() {
  local v; v=$(wasm-opt --version | cut -d' ' -f3)
  [ "$v" -ge 116 ] || { echo "wasm-opt $v is too old (Debian's 108 breaks wasm-bindgen output); run npm ci" >&2; exit 1; }
}
wasm_opt_ok
# A folder of its own per run: two builds into different sites at once
# (a benchmark's and a test's) must not read each other's half-written files.
mkdir -p "$TD"
tmp=$(mktemp -d "$TD/ui-bindgen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# bindgen <wasm> <out-name> [wasm-opt flags…]: wasm-bindgen --target web, then wasm-opt -Oz.
bindgen() {
  local wasm=$1 name=$2; shift 2
  wasm-bindgen --target web --no-typescript --out-dir "$tmp" --out-name "$name" "$wasm"
  wasm-opt -Oz --strip-debug "$@" "$tmp/${name}_bg.wasm" -o "$tmp/${name}_bg.wasm"
}
# The app (search page, record view, widget) and, without the `app` feature,
# the widget alone: what registry-picker.js loads. The widget's with LLVM's
# default inlining, not .cargo/config.toml's higher threshold (RUSTFLAGS,
# even empty, replaces it): that one buys the registry's shard loading its
# speed, but costs the widget's UI wasm 2.5 KB brotli of the widget code's
# 220 KB budget (docs/benchmarks.md); the widget's typing measured the same
# (keystroke → list updated p50 3.6 ms, painted 8.5 ms, with or without).
# In its own cargo target dir, so that the other wasm builds keep their
# flags and artifacts. The app keeps the threshold: without it, its typing
# measured (tests/bench/ui-bench.mjs) 0.2 ms slower to update the list
# (p50) and 1.7 ms to paint, under load.
cargo build --locked -p registry-ui --target wasm32-unknown-unknown --profile wasm
bindgen "$TD/wasm32-unknown-unknown/wasm/registry-ui.wasm" registry_ui --strip-producers
CARGO_TARGET_DIR="$TD/widget" RUSTFLAGS= cargo build --locked -p registry-ui --no-default-features --target wasm32-unknown-unknown --profile wasm
bindgen "$TD/widget/wasm32-unknown-unknown/wasm/registry-ui.wasm" registry_widget --strip-producers
# The app's first paint (registry-first.js, registry-front.js): E2 and the
# typeahead over pieces without the router (registry-wasm, features `search`
# and `typeahead`: the front door's suggestions and Enter's results from one
# wasm, 160 KB brotli where the two apart were 235 KB), and the widget's
# registry: typeahead pieces only (feature `typeahead`). Their own cargo
# target dir, so that the full build's artifact (build-web.sh) is not
# overwritten; each is bound right after its build (same output path).
# The first-paint files (and the front door's) are used online only: not in app-files.json.
CARGO_TARGET_DIR="$TD/suggest" cargo build --locked -p registry-wasm --no-default-features --features search,typeahead --target wasm32-unknown-unknown --profile wasm
bindgen "$TD/suggest/wasm32-unknown-unknown/wasm/registry_wasm.wasm" registry_first
CARGO_TARGET_DIR="$TD/suggest" cargo build --locked -p registry-wasm --no-default-features --features typeahead --target wasm32-unknown-unknown --profile wasm
bindgen "$TD/suggest/wasm32-unknown-unknown/wasm/registry_wasm.wasm" registry_suggest

# The shipped JS is minified (esbuild, transform only: same module, same
# exports): the widget's code budget is counted in brotli bytes, and the
# comments are for the sources in web/, not for every visitor's phone.
minify() { esbuild "$1" --minify --log-level=warning --outfile="$1.min" && mv "$1.min" "$1"; }
# registry-pieces.js from ui/: its default wasm is the site's pkg/.
sed -e 's|"\./pkg/|"../pkg/|g' web/registry-pieces.js > "$tmp/registry-pieces.js"
for f in registry_ui registry_widget registry_suggest registry_first registry-pieces; do minify "$tmp/$f.js"; done

# Content-hashed names: ui/<stem>.<16 hex of SHA-256>.<ext> (immutable).
hashed() { # src stem ext → prints the new name
  local h; h=$(sha256sum "$1" | cut -c1-16)
  cp "$1" "$OUT/ui/$2.$h.$3"
  echo "$2.$h.$3"
}
rm -rf "$OUT/ui" && mkdir -p "$OUT/ui"
wasm=$(hashed "$tmp/registry_ui_bg.wasm" registry_ui_bg wasm)
js=$(hashed "$tmp/registry_ui.js" registry_ui js)
widget_wasm=$(hashed "$tmp/registry_widget_bg.wasm" registry_widget_bg wasm)
widget_js=$(hashed "$tmp/registry_widget.js" registry_widget js)
suggest_wasm=$(hashed "$tmp/registry_suggest_bg.wasm" registry_suggest_bg wasm)
suggest_js=$(hashed "$tmp/registry_suggest.js" registry_suggest js)
first_wasm=$(hashed "$tmp/registry_first_bg.wasm" registry_first_bg wasm)
first_js=$(hashed "$tmp/registry_first.js" registry_first js)
pieces_js=$(hashed "$tmp/registry-pieces.js" registry-pieces js)
# A results link's first paint loads registry-first.js → registry-search.js
# → registry-pieces.js: from ui/ under content-hashed names too, importing
# each other by them, so that a warm visit revalidates none of them (a
# round trip each on a host that says `no-cache` for unhashed files).
sed -e "s|\"\./registry-pieces\.js\"|\"./$pieces_js\"|" -e 's|"\./pkg/|"../pkg/|g' web/registry-search.js > "$tmp/registry-search.js"
minify "$tmp/registry-search.js"
search_js=$(hashed "$tmp/registry-search.js" registry-search js)
sed -e "s|\"\./registry-search\.js\"|\"./$search_js\"|" web/registry-first.js > "$tmp/registry-first.js"
minify "$tmp/registry-first.js"
first_app_js=$(hashed "$tmp/registry-first.js" registry-first js)
# The front door (the search box before the app, index.html) imports both.
sed -e "s|\"\./registry-pieces\.js\"|\"./$pieces_js\"|" -e "s|\"\./registry-first\.js\"|\"./$first_app_js\"|" web/registry-front.js > "$tmp/registry-front.js"
minify "$tmp/registry-front.js"
front_js=$(hashed "$tmp/registry-front.js" registry-front js)
# The stylesheets minified as the JS is: picker.css is part of the
# widget's code budget (~0.7 KB brotli less), and app.css is precached.
for f in app picker; do esbuild "crates/ui/style/$f.css" --minify --log-level=warning --outfile="$tmp/$f.css"; done
app_css=$(hashed "$tmp/app.css" app css)
picker_css=$(hashed "$tmp/picker.css" picker css)
# Subresource-integrity values of every file the widget loader loads (its
# wasm, JS modules and stylesheet): pinning the loader (an SRI hash on its
# script tag) pins them too.
sri() { node -e 'process.stdout.write("sha384-" + require("crypto").createHash("sha384").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$OUT/ui/$1"; }
widget_wasm_sri=$(sri "$widget_wasm")
suggest_wasm_sri=$(sri "$suggest_wasm")
widget_js_sri=$(sri "$widget_js")
suggest_js_sri=$(sri "$suggest_js")
pieces_js_sri=$(sri "$pieces_js")
picker_css_sri=$(sri "$picker_css")
subst() {
  sed -e "s|__UI_JS__|$js|g" -e "s|__UI_WASM__|$wasm|g" -e "s|__APP_CSS__|$app_css|g" -e "s|__PICKER_CSS__|$picker_css|g" \
    -e "s|__WIDGET_JS__|$widget_js|g" -e "s|__WIDGET_WASM__|$widget_wasm|g" -e "s|__SUGGEST_JS__|$suggest_js|g" \
    -e "s|__SUGGEST_WASM__|$suggest_wasm|g" -e "s|__PIECES_JS__|$pieces_js|g" \
    -e "s|__FIRST_JS__|$first_js|g" -e "s|__FIRST_WASM__|$first_wasm|g" \
    -e "s|__FIRST_APP_JS__|$first_app_js|g" -e "s|__SEARCH_JS__|$search_js|g" -e "s|__FRONT_JS__|$front_js|g" \
    -e "s|__WIDGET_WASM_SRI__|$widget_wasm_sri|g" -e "s|__SUGGEST_WASM_SRI__|$suggest_wasm_sri|g" \
    -e "s|__WIDGET_JS_SRI__|$widget_js_sri|g" -e "s|__SUGGEST_JS_SRI__|$suggest_js_sri|g" \
    -e "s|__PIECES_JS_SRI__|$pieces_js_sri|g" -e "s|__PICKER_CSS_SRI__|$picker_css_sri|g" "$1" > "$2"
}
subst index.html "$OUT/index.html"
# index.html's stylesheets inline (minified, ~5 KB brotli): its search box
# is usable from the first paint, which would otherwise wait one more round
# trip for them (~0.2 s on a phone's first visit). The files stay in ui/
# (the widget loads picker.css).
node -e '
const fs = require("fs"), { execFileSync } = require("child_process");
const [html, dir] = process.argv.slice(1);
const css = (f) => execFileSync("esbuild", [`${dir}/${f}`, "--minify", "--log-level=warning"], { encoding: "utf8" }).trim();
const page = fs.readFileSync(html, "utf8").replace(/<link rel="stylesheet" href="(ui\/[^"]+\.css)">/g, (_, f) => `<style>${css(f)}</style>`);
if (page.includes("rel=\"stylesheet\"")) throw new Error("index.html: a stylesheet was not inlined");
fs.writeFileSync(html, page);' "$OUT/index.html" "$OUT"
subst web/registry-picker.js "$OUT/registry-picker.js"
minify "$OUT/registry-picker.js"
cp web/static/manifest.webmanifest web/static/widget-demo.html "$OUT/"
mkdir -p "$OUT/icons" && cp web/static/icons/* "$OUT/icons/"

cat > "$OUT/app-files.json" <<JSON
["ui/$js", "ui/$wasm", "ui/$app_css", "ui/$picker_css", "ui/$widget_js", "ui/$widget_wasm", "ui/$suggest_js", "ui/$suggest_wasm", "ui/$pieces_js", "registry-picker.js", "manifest.webmanifest",
 "widget-demo.html", "api.html", "icons/icon.svg", "icons/icon-192.png", "icons/icon-512.png", "icons/icon-maskable-512.png"]
JSON
size() { wc -c < "$1" | tr -d ' '; }
for f in "$wasm" "$widget_wasm" "$suggest_wasm" "$first_wasm"; do
  echo "ui: $OUT/ui/$f $(size "$OUT/ui/$f") B raw, $(gzip -9c "$OUT/ui/$f" | wc -c) B gzip"
done
