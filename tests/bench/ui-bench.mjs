// UI benchmark: the UI wasm size (raw, gzip -9, brotli -q 11) and
// keystroke-to-paint time in headless Chromium — from the keydown of each
// typed character to the next animation frame after the suggestion list
// updated for that text — p50/p95 over a typed query set.
//   node tests/bench/ui-bench.mjs            (SITE_DIR, default target/bench-site, else target/site)
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "../server.mjs";

const SITE = process.env.SITE_DIR ?? (fs.existsSync("target/bench-site/ui") ? "target/bench-site" : "target/site");
const QUERIES = (process.env.QUERIES ?? "university of tokyo|max planck|harvard medical|centre national|karolinska|univ cal|institut pasteur|mit|chan zuckerberg|东京|national institute of health|stanford")
  .split("|");

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
await page.evaluate(() => {
  // For each keydown: wait until the listbox shows the answer for the new
  // text (its data-for attribute names the text its options answer), then
  // the next animation frame.
  window.__samples = [];
  const input = document.getElementById("q-input");
  const list = document.getElementById("q-list");
  input.addEventListener("keydown", () => {
    const t0 = performance.now();
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      obs.disconnect();
      const t1 = performance.now();
      requestAnimationFrame(() => window.__samples.push([performance.now() - t0, t1 - t0, input.value]));
    };
    const obs = new MutationObserver(() => list.dataset.for === input.value && finish());
    obs.observe(list, { attributes: true, attributeFilter: ["data-for"] });
    setTimeout(finish, 1000); // no visible change (same results): count the wait
  }, true);
});
const input = page.locator("#q-input");
for (let round = 0; round < 2; round++) {
  for (const q of QUERIES) {
    await input.fill("");
    await page.waitForTimeout(50);
    for (const ch of q) {
      await page.keyboard.type(ch);
      await page.waitForTimeout(60);
    }
  }
  if (round === 0) await page.evaluate(() => (window.__samples = [])); // first round warms up
}
const raw = await page.evaluate(() => window.__samples);
const samples = raw.map((x) => x[0]).sort((a, b) => a - b);
const updates = raw.map((x) => x[1]).sort((a, b) => a - b);
if (process.env.VERBOSE) console.log(raw.sort((a, b) => b[0] - a[0]).slice(0, 15));
const pct = (p) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
console.log(`data: ${release}`);
console.log(`keystroke-to-list-update: p50 ${updates[updates.length >> 1].toFixed(1)} ms, p95 ${updates[Math.floor(updates.length * 0.95)].toFixed(1)} ms`);
console.log(`keystroke-to-paint over ${samples.length} keystrokes: p50 ${pct(50).toFixed(1)} ms, p95 ${pct(95).toFixed(1)} ms, max ${samples.at(-1).toFixed(1)} ms`);
await browser.close();
await server.close();
