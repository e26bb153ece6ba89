// UI benchmark: the UI wasm size (raw, gzip -9, brotli -q 11) and, in
// headless Chromium on the built site, what each typed character costs:
//
// * keystroke-to-paint (suggestions): from the keystroke's event timestamp
//   (keydown, or the input event for text typed without keys, e.g. CJK) to
//   the first frame painted after the listbox shows the answer for the new
//   text (its data-for attribute names the text its options answer):
//   requestAnimationFrame after the update, then a MessageChannel message,
//   which runs after that frame's paint. "frame" is the rAF time itself.
//   The floor: a keystroke lands at a random point of the 16.7 ms frame
//   interval, so even an answer computed inside the input handler paints
//   0–16.7 ms (plus the frame's own work) later.
// * frames missed: a sample whose frame began (the rAF timestamp, its vsync
//   time) more than one frame interval after the keystroke was not painted
//   in the first frame after it.
// * event timing (INP-style): the PerformanceObserver `event` entries of each
//   key interaction (keydown/keypress/keyup/input, grouped by interactionId):
//   `duration` = event timestamp → next paint after its handlers (8 ms
//   granularity; Chromium reports only entries ≥ 16 ms, so interactions
//   without an entry took < 16 ms).
// * keystroke-to-results: the same, until the results list and facet counts
//   answer the new text (`.results-col[data-for]`).
//
// The clearing between queries is not a keystroke sample (nothing to suggest).
//   node tests/bench/ui-bench.mjs            (SITE_DIR, default target/bench-site, else target/site)
//   VERBOSE=1 also lists the slowest samples; ROUNDS=n measured rounds (default 1, after a warm-up round).
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "../server.mjs";

const SITE = process.env.SITE_DIR ?? (fs.existsSync("target/bench-site/ui") ? "target/bench-site" : "target/site");
const QUERIES = (process.env.QUERIES ?? "university of tokyo|max planck|harvard medical|centre national|karolinska|univ cal|institut pasteur|mit|chan zuckerberg|东京|national institute of health|stanford")
  .split("|");
const ROUNDS = Number(process.env.ROUNDS ?? 1);

const ui = path.join(SITE, "ui");
const wasm = fs.readdirSync(ui).find((f) => f.endsWith(".wasm"));
const js = fs.readdirSync(ui).find((f) => f.startsWith("registry_ui.") && f.endsWith(".js"));
const sizes = (file) => {
  const b = fs.readFileSync(path.join(ui, file));
  return {
    raw: b.length,
    gzip: zlib.gzipSync(b, { level: 9 }).length,
    brotli: zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
};
const fmt = (s) => `${s.raw} B raw, ${s.gzip} B gzip, ${s.brotli} B brotli`;
console.log(`UI wasm ${wasm}: ${fmt(sizes(wasm))}`);
console.log(`UI glue ${js}: ${fmt(sizes(js))}`);

const server = await serve(path.resolve(SITE), "/");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
const page = await browser.newPage({ viewport: { width: 1100, height: 850 } });
await page.goto(server.url);
await page.waitForFunction(() => /records/.test(document.getElementById("release")?.textContent ?? ""), null, { timeout: 120_000 });
const release = await page.locator("#release").innerText();
await page.waitForSelector(".results-col");
// The typeahead answers on the main thread once registry.js has built its
// suggest-only instance (when the page is idle after loading).
const mainThread = await page.evaluate(() =>
  Promise.race([
    import(new URL("registry.js", document.baseURI).href).then((m) => m.suggestReady()),
    new Promise((r) => setTimeout(() => r(null), 30_000)),
  ]),
);
await page.evaluate(() => {
  window.__samples = [];
  window.__events = new Map(); // interactionId → {duration, processing}
  const input = document.getElementById("q-input");
  const list = document.getElementById("q-list");
  const col = document.querySelector(".results-col");
  // Calls back with (frame, paint): the rAF time, then a time after that frame's paint.
  const afterPaint = (cb) =>
    requestAnimationFrame((vsync) => {
      const frame = performance.now();
      const ch = new MessageChannel();
      ch.port1.onmessage = () => cb(frame, performance.now(), vsync);
      ch.port2.postMessage(null);
    });
  // Resolves when `ok()` holds, checked now and on each data-for change of `el`.
  const when = (el, ok) =>
    new Promise((resolve) => {
      if (ok()) return resolve(performance.now());
      const obs = new MutationObserver(() => {
        if (!ok()) return;
        obs.disconnect();
        resolve(performance.now());
      });
      obs.observe(el, { attributes: true, attributeFilter: ["data-for"] });
      setTimeout(() => (obs.disconnect(), resolve(null)), 3000);
    });
  let keyAt = null;
  input.addEventListener("keydown", (e) => (keyAt = e.timeStamp), true);
  input.addEventListener("input", (e) => {
    const t0 = keyAt ?? e.timeStamp;
    keyAt = null;
    const text = input.value;
    if (!text.trim()) return;
    const s = { text, handler: performance.now() - t0, update: null, frame: null, paint: null, vsync: null, results: null, superseded: false };
    window.__samples.push(s);
    // The list answers this text, or a newer text when typing outran it.
    when(list, () => list.dataset.for === text || (input.value !== text && list.dataset.for === input.value)).then((t) => {
      if (t === null) return;
      s.superseded = list.dataset.for !== text;
      s.update = t - t0;
      afterPaint((f, p, v) => ((s.frame = f - t0), (s.paint = p - t0), (s.vsync = v - t0)));
    });
    when(col, () => col.dataset.for === text || (input.value !== text && col.dataset.for === input.value)).then((t) => {
      if (t !== null) afterPaint((_, p) => (s.results = p - t0));
    });
  }, true);
  new PerformanceObserver((l) => {
    for (const e of l.getEntries()) {
      if (!e.interactionId || !/^key|input/.test(e.name)) continue;
      const x = window.__events.get(e.interactionId) ?? { duration: 0, processing: 0 };
      x.duration = Math.max(x.duration, e.duration);
      x.processing = Math.max(x.processing, e.processingEnd - e.startTime);
      window.__events.set(e.interactionId, x);
    }
  }).observe({ type: "event", durationThreshold: 16 });
});
const input = page.locator("#q-input");
let typed = 0;
for (let round = 0; round <= ROUNDS; round++) {
  for (const q of QUERIES) {
    await input.fill("");
    await page.waitForTimeout(50);
    for (const ch of q) {
      await page.keyboard.type(ch);
      if (round > 0 && ch.charCodeAt(0) < 128) typed++; // others are inserted as text: no key interaction
      await page.waitForTimeout(60);
    }
  }
  await page.waitForTimeout(300);
  if (round === 0) await page.evaluate(() => ((window.__samples = []), window.__events.clear())); // the first round warms up
}
const raw = await page.evaluate(() => window.__samples);
const events = await page.evaluate(() => [...window.__events.values()]);
await browser.close();
await server.close();

const sorted = (xs) => xs.filter((x) => x !== null).sort((a, b) => a - b);
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const line = (label, xs) => {
  const s = sorted(xs);
  const missing = xs.length - s.length;
  if (!s.length) return `${label}: never shown (${missing} keystrokes)`;
  return `${label} over ${s.length} keystrokes: p50 ${pct(s, 50).toFixed(1)} ms, p95 ${pct(s, 95).toFixed(1)} ms, max ${s.at(-1).toFixed(1)} ms${missing ? ` (${missing} never shown)` : ""}`;
};
if (process.env.VERBOSE) console.log(raw.sort((a, b) => (b.paint ?? 1e9) - (a.paint ?? 1e9)).slice(0, 15));
console.log(`data: ${release}`);
console.log(
  mainThread
    ? `main-thread suggest instance: built in ${mainThread.cpuMs.toFixed(1)} ms of main-thread work over ${mainThread.buildMs.toFixed(0)} ms, ${mainThread.slices} idle slices, longest task ${mainThread.longestTaskMs.toFixed(1)} ms, wasm memory ${(mainThread.memoryBytes / 2 ** 20).toFixed(1)} MiB, from ${mainThread.bytes} B of shard files`
    : "main-thread suggest instance: not ready (suggestions came from the Worker)",
);
console.log(line("keystroke-to-input-handler (browser's input delivery)", raw.map((s) => s.handler)));
console.log(line("keystroke-to-list-update", raw.map((s) => s.update)));
console.log(line("keystroke-to-frame (rAF)", raw.map((s) => s.frame)));
console.log(line("keystroke-to-paint", raw.map((s) => s.paint)));
const FRAME = 1000 / 60;
const framed = raw.filter((s) => s.vsync !== null);
const missed = framed.map((s) => Math.max(0, Math.floor(s.vsync / FRAME)));
console.log(
  `frames missed: ${missed.filter((m) => m > 0).length} of ${framed.length} keystrokes painted after the first frame following them` +
    ` (1 frame late: ${missed.filter((m) => m === 1).length}, 2+: ${missed.filter((m) => m > 1).length})`,
);
const superseded = raw.filter((s) => s.superseded).length;
if (superseded) console.log(`  (${superseded} keystrokes were answered only by a later keystroke's list)`);
console.log(line("keystroke-to-results (list + facets painted)", raw.map((s) => s.results)));
// Interactions without an entry took < 16 ms (Chromium's smallest threshold).
const slow = sorted(events.map((e) => e.duration));
const all = [...Array(Math.max(0, typed - slow.length)).fill(0), ...slow];
const p95 = pct(all, 95);
console.log(
  `event timing (INP-style) over ${typed} typed characters: ${slow.length} interactions ≥ 16 ms, ` +
    `p95 ${p95 < 16 ? "< 16" : p95} ms, max ${slow.length ? slow.at(-1) : "< 16"} ms` +
    (slow.length ? `; processing end p95 of those ${pct(sorted(events.map((e) => e.processing)), 95).toFixed(1)} ms` : ""),
);
