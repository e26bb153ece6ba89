#!/usr/bin/env node
// Issue 6's browser benchmark: our registry (Rust → wasm) against FlexSearch
// and MiniSearch on the full dump, in headless Chromium. One command:
//
//   node tests/bench/browser-bench.mjs [--site target/bench-site] [--data FILE]
//                                      [--every 36] [--every-typed 720] [--runs 5] [--passes 3]
//                                      [--codegen]
//
// --codegen also builds the registry wasm under other code-generation settings
// (target/codegen/) and prints its size against its load time (section 2b).
// Without --site it builds the site into target/bench-site from the dump with
// scripts/build-web.sh. See tests/bench/README.md for what each figure means.
// Prints a report; asserts nothing (the targets are printed next to the figures).
import fs from "node:fs";
import fsp from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import zlib from "node:zlib";
import { promisify } from "node:util";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { Index as FlexIndex, Charset as FlexCharset } from "flexsearch";
import MiniSearch from "minisearch";
import { CHROMIUM_ARGS } from "../server.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const HERE = path.join(ROOT, "tests/bench");
const started = performance.now();
const loadAtStart = os.loadavg();

// ---------------------------------------------------------------- options
function parseArgs(argv) {
  const o = { site: null, data: path.resolve(ROOT, "../shared/data/registry-v2.json.gz"), every: 36, everyTyped: 720, runs: 5, passes: 3, limit: 10, codegen: false };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => inline ?? argv[++i];
    if (k === "--site") o.site = path.resolve(val());
    else if (k === "--data") o.data = path.resolve(val());
    else if (k === "--every") o.every = Number(val());
    else if (k === "--every-typed") o.everyTyped = Number(val());
    else if (k === "--runs") o.runs = Number(val());
    else if (k === "--passes") o.passes = Number(val());
    else if (k === "--codegen") o.codegen = true;
    else if (k === "-h" || k === "--help") {
      console.log(fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n").slice(1, 12).join("\n").replace(/^\/\/ ?/gm, ""));
      process.exit(0);
    } else fail(`unknown argument '${argv[i]}' (try --help)`);
  }
  for (const k of ["every", "everyTyped", "runs", "passes"])
    if (!Number.isInteger(o[k]) || o[k] < 1 || o[k] > 100000) fail(`--${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())} must be a positive integer`);
  return o;
}

function fail(message) {
  console.error(`browser-bench: ${message}`);
  process.exit(1);
}

const log = (m) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${m}\n`);

// ---------------------------------------------------------------- cleanup + watchdog
const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch {}
  }
}
// Building the --codegen variants takes up to ~10 more minutes the first time.
const WATCHDOG_MS = (process.argv.includes("--codegen") ? 30 : 12) * 60_000;
const watchdog = setTimeout(async () => {
  console.error(`browser-bench: gave up after ${WATCHDOG_MS / 60000} minutes`);
  await cleanup();
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, async () => { await cleanup(); process.exit(130); });

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000}s`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- site build
async function buildSite(data) {
  const out = path.join(ROOT, "target/bench-site");
  await run("bash", ["scripts/build-web.sh"], { OUT: out, DATA: data });
  return out;
}

/** Runs a command in the repository; on failure the error carries the last lines it printed. */
function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    cleanups.push(() => child.exitCode === null && child.kill("SIGTERM"));
    let tail = "";
    const keep = (d) => (tail = (tail + d).slice(-8000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) return resolve();
      const last = tail.split("\n").slice(-25).join("\n");
      reject(new Error(`${cmd} ${args.join(" ")} failed (exit ${code}); last lines:\n${last}`));
    });
  });
}

// ---------------------------------------------------------------- codegen variants
// The registry wasm under other code-generation settings: what the load time
// would be if the size target did not hold the wasm to opt-level "z". The
// shipped setting comes from .cargo/config.toml; RUSTFLAGS (even empty)
// replaces it.
const CODEGEN = [
  { name: "shipped", label: '"z", inline-threshold 25 (shipped)', env: {} },
  { name: "z", label: '"z", LLVM\'s default inlining', env: { RUSTFLAGS: "" } },
  { name: "z-inline75", label: '"z", inline-threshold 75', env: { RUSTFLAGS: "-C llvm-args=-inline-threshold=75" } },
  { name: "s", label: 'opt-level "s"', env: { RUSTFLAGS: "", CARGO_PROFILE_WASM_OPT_LEVEL: "s" } },
  { name: "core3", label: 'registry-core at 3, the rest "z"', env: { RUSTFLAGS: "" }, config: "profile.wasm.package.registry-core.opt-level=3" },
  { name: "o3", label: "opt-level 3", env: { RUSTFLAGS: "", CARGO_PROFILE_WASM_OPT_LEVEL: "3" } },
];

/** Builds one variant into target/codegen/<name>/pkg the way scripts/build-web.sh builds the shipped one. */
async function buildVariant(v) {
  const dir = path.join(ROOT, "target/codegen", v.name);
  const bin = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo"), "bin");
  const env = { ...v.env, PATH: `${bin}:${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}` };
  const config = v.config ? ["--config", v.config] : [];
  await run("cargo", ["build", "--locked", "-q", "-p", "registry-wasm", "--target", "wasm32-unknown-unknown", "--profile", "wasm", "--target-dir", path.join(dir, "target"), ...config], env);
  const pkg = path.join(dir, "pkg");
  await fsp.rm(pkg, { recursive: true, force: true });
  await run("wasm-bindgen", ["--target", "web", "--no-typescript", "--out-dir", pkg, "--out-name", "registry_wasm", path.join(dir, "target/wasm32-unknown-unknown/wasm/registry_wasm.wasm")], env);
  const wasm = path.join(pkg, "registry_wasm_bg.wasm");
  await run("wasm-opt", ["-Oz", "--strip-debug", wasm, "-o", wasm], env);
  return { ...v, pkg: `/codegen/${v.name}/pkg/`, brotli: zlib.brotliCompressSync(fs.readFileSync(wasm), { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length };
}

// ---------------------------------------------------------------- query set
const NAMES_PER_RECORD = 32; // the peers' document id = dump index * 32 + name ordinal
const MAX_KEYS = 24;
const stripAccents = (s) => s.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");

/**
 * Deterministic: every `every`-th record of the dump (by dump order) is a target.
 * Its display name typed keystroke by keystroke (k = 1..6 chars, counting code
 * points), the complete display name, its first acronym, and the
 * accent-stripped display name when that differs; every `everyTyped`-th record
 * also types keystrokes 7..24. Each occurrence: {q, target (dump index), bucket}.
 */
function querySet(dump, every, everyTyped) {
  const occ = [];
  let targets = 0;
  for (let i = 0; i < dump.length; i += every) {
    targets++;
    const r = dump[i];
    const display = (r.names.find((n) => n.types.includes("ror_display")) ?? r.names[0]).value;
    const chars = Array.from(display);
    const kmax = Math.min(chars.length - 1, i % everyTyped === 0 ? MAX_KEYS : 6);
    for (let k = 1; k <= kmax; k++) occ.push({ q: chars.slice(0, k).join(""), target: i, bucket: k <= 6 ? `k=${k}` : "k=7-24" });
    occ.push({ q: display, target: i, bucket: "full" });
    const acronym = r.names.find((n) => n.types.includes("acronym"));
    if (acronym) occ.push({ q: acronym.value, target: i, bucket: "acronym" });
    const folded = stripAccents(display);
    if (folded !== display) occ.push({ q: folded, target: i, bucket: "folded" });
  }
  return { occ, targets };
}

/** One document per distinct name of every record (display, labels, aliases, acronyms). */
function peerDocs(dump) {
  const docs = [];
  dump.forEach((r, i) => {
    const seen = new Set();
    r.names.forEach((n, j) => {
      if (j >= NAMES_PER_RECORD) throw new Error(`record ${r.id} has more than ${NAMES_PER_RECORD} names`);
      if (!seen.has(n.value)) docs.push({ id: i * NAMES_PER_RECORD + j, n: n.value });
      seen.add(n.value);
    });
  });
  return docs;
}

// The same options as bench.html (FlexSearch 0.8 README: tokenize "forward" +
// Charset.LatinBalance, which folds case and accents; MiniSearch README:
// prefix search, processTerm folding diacritics and case).
const fold = (term) => term.normalize("NFD").replace(/\p{Diacritic}/gu, "").toLowerCase();
const MINI_OPTIONS = { fields: ["n"], processTerm: fold, searchOptions: { prefix: true } };

function serializeFlex(docs) {
  const index = new FlexIndex({ tokenize: "forward", encoder: FlexCharset.LatinBalance });
  for (const d of docs) index.add(d.id, d.n);
  const lines = [];
  index.export((key, data) => {
    if (/[\t\n]/.test(key) || data.includes("\n")) throw new Error("unexpected FlexSearch export chunk");
    lines.push(`${key}\t${data}`);
  });
  return Buffer.from(lines.join("\n"));
}

function serializeMini(docs) {
  const index = new MiniSearch(MINI_OPTIONS);
  index.addAll(docs);
  return Buffer.from(JSON.stringify(index));
}

// ---------------------------------------------------------------- sizes
const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);
const CACHE_FILE = path.join(ROOT, "target/bench-cache/compressed-sizes.json");

/** {raw, gz, br} of a buffer: gzip level 9, brotli quality 11 (cached by content hash: q11 is slow). */
async function compressedSizes(buf, cache) {
  const key = crypto.createHash("sha256").update(buf).digest("hex");
  if (!cache[key]) {
    const [g, b] = await Promise.all([
      gzip(buf, { level: 9 }),
      brotli(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }),
    ]);
    cache[key] = { gz: g.length, br: b.length };
  }
  return { raw: buf.length, ...cache[key] };
}

// ---------------------------------------------------------------- server
const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".wasm": "application/wasm" };

/** Static server: /bench/ → tests/bench, /site/ → the site, /peers/ → peer indexes, /nm/ → node_modules (peers only). Cross-origin isolated. */
async function serve(mounts) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    const mount = Object.keys(mounts).find((m) => url.pathname.startsWith(m));
    const file = mount && path.resolve(mounts[mount], "." + decodeURIComponent(url.pathname.slice(mount.length - 1)));
    if (!file || !file.startsWith(path.resolve(mounts[mount]))) return res.writeHead(404).end();
    try {
      const body = await fsp.readFile(file);
      res.writeHead(200, {
        "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
        "cache-control": "no-store",
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
        "cross-origin-resource-policy": "same-origin",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

// ---------------------------------------------------------------- stats
const quantile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] : NaN);
const median = (xs) => quantile([...xs].sort((a, b) => a - b), 0.5);
const loadStats = (loads) => ({
  median: median(loads.map((l) => l.totalMs)),
  construct: median(loads.map((l) => l.constructMs)),
  first: median(loads.map((l) => l.firstQueryMs)),
  cpu: median(loads.map((l) => l.cpuMs)),
  all: loads.map((l) => l.totalMs),
});
function latency(times) {
  const s = Float64Array.from(times).sort();
  return { n: s.length, p50: quantile(s, 0.5), p99: quantile(s, 0.99), max: s[s.length - 1] };
}

// ---------------------------------------------------------------- browser phases
async function newPage(browser, base) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  // Chromium logs every 404 as a console error without its URL: report the URL instead (the favicon is expected).
  page.on("console", (m) => m.type() === "error" && !/^Failed to load resource/.test(m.text()) && errors.push(m.text()));
  page.on("response", (r) => r.status() >= 400 && !r.url().endsWith("/favicon.ico") && errors.push(`HTTP ${r.status()} ${r.url()}`));
  await page.goto(`${base}/bench/bench.html`);
  await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 });
  const cdp = await context.newCDPSession(page);
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    return (await cdp.send("Runtime.getHeapUsage")).usedSize;
  };
  // Main-thread CPU time (ThreadTime, seconds): immune to other processes taking the cores.
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const cpu = async () => (await cdp.send("Performance.getMetrics")).metrics.find((m) => m.name === "ThreadTime").value * 1000;
  return { page, heap, cpu, errors, close: () => context.close() };
}

const FIRST_QUERY = "univ";

/** prepare → heap baseline → load #1 (kept) → heap → loads #2..runs (dropped); each after a forced GC. */
async function measureLoad(p, engine, urls, runs, limit, pkg = "/site/pkg/") {
  const prep = await withTimeout(p.page.evaluate(([e, u, k]) => window.B.prepare(e, u, k), [engine, urls, pkg]), 120_000, `${engine} prepare`);
  const loadOnce = async (keep) => {
    const c0 = await p.cpu();
    const r = await withTimeout(p.page.evaluate(([q, l, k]) => window.B.load(q, l, k), [FIRST_QUERY, limit, keep]), 120_000, `${engine} load`);
    r.cpuMs = (await p.cpu()) - c0;
    return r;
  };
  const heap0 = await p.heap();
  const loads = [await loadOnce(true)];
  const heap1 = await p.heap();
  for (let i = 1; i < runs; i++) {
    await p.heap(); // GC: no run pays for the previous one's garbage
    loads.push(await loadOnce(false));
  }
  return { prep, loads, jsHeapDelta: heap1 - heap0, wasmMemoryAfterLoad: loads[0].wasmMemory, wasmMemoryAfterInit: prep.wasmMemory };
}

/**
 * Runs the distinct queries in batches (a 200-query warm-up first, untimed), in
 * up to `passes` passes; a query's time is its median over the passes (this
 * damps interference from other processes). An engine whose first pass takes
 * over PASS_BUDGET_MS gets one pass only (bounded run time; MiniSearch).
 */
const PASS_BUDGET_MS = 30_000;
async function runQueries(p, engine, distinct, limit, passes, fn = "run") {
  const warm = distinct.slice(0, 200);
  await withTimeout(p.page.evaluate(([qs, l]) => window.B.run(qs, l, 5), [warm, limit]), 120_000, `${engine} warm-up`);
  const perPass = [];
  let tops = [], statuses = [], errors = {};
  for (let pass = 0; pass < passes; pass++) {
    const times = [];
    const t0 = performance.now();
    for (let i = 0; i < distinct.length; i += BATCH) {
      const batch = distinct.slice(i, i + BATCH);
      const r = await withTimeout(
        fn === "run"
          ? p.page.evaluate(([qs, l]) => window.B.run(qs, l, 5), [batch, limit])
          : p.page.evaluate(([qs]) => window.B.e2(qs, 5), [batch]),
        240_000,
        `${engine} ${fn}`,
      );
      times.push(...r.times);
      if (pass === 0) {
        tops.push(...r.tops);
        if (r.statuses) statuses.push(...r.statuses);
        Object.assign(errors, r.errors);
      }
      if (performance.now() - t0 > 15_000 && (i / BATCH) % 4 === 3)
        log(`  ${engine} ${fn}: ${Math.min(i + BATCH, distinct.length)}/${distinct.length} queries`);
    }
    perPass.push(times);
    if (performance.now() - t0 > PASS_BUDGET_MS) break;
  }
  const times = distinct.map((_, i) => median(perPass.map((t) => t[i])));
  return { times, tops, statuses, errors, passes: perPass.length };
}
const BATCH = 500;

// ---------------------------------------------------------------- report helpers
const kb = (n) => (n / 1024).toFixed(1).padStart(9) + " KB";
const mb = (n) => (n / 1048576).toFixed(1) + " MB";
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3)) + " ms";
const pct = (x) => (100 * x).toFixed(1) + "%";
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const verdict = (ok) => (ok ? "MET" : "NOT MET");

// ---------------------------------------------------------------- main
async function main() {
  const opt = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opt.data))
    fail(`the dump ${opt.data} is absent: it is needed for the query set and the peers' indexes (pass --data FILE)`);
  if (opt.site && !fs.existsSync(path.join(opt.site, "data/manifest.json")))
    fail(`${opt.site}/data/manifest.json is absent: build the site first (OUT=${opt.site} DATA=${opt.data} bash scripts/build-web.sh) or omit --site`);

  // The site build (cargo + registry build) runs while Node builds the peers' indexes.
  let building = null;
  if (!opt.site) {
    log(`building target/bench-site from ${path.relative(ROOT, opt.data)} (scripts/build-web.sh) …`);
    building = buildSite(opt.data);
    building.catch(() => {});
  }

  log("reading the dump …");
  let dump = JSON.parse(zlib.gunzipSync(fs.readFileSync(opt.data)));
  const ids = dump.map((r) => r.id);
  const { occ, targets } = querySet(dump, opt.every, opt.everyTyped);
  const distinct = [...new Set(occ.map((o) => o.q))];
  const docs = peerDocs(dump);
  dump = null;
  log(`query set: ${targets} targets, ${occ.length} queries (${distinct.length} distinct); peers: ${docs.length} name documents`);

  const tmp = await fsp.mkdtemp(path.join(os.tmpdir(), "registry-bench-"));
  cleanups.push(() => fsp.rm(tmp, { recursive: true, force: true }));
  log("building and serializing the FlexSearch and MiniSearch indexes …");
  let t = performance.now();
  const flexBuf = serializeFlex(docs);
  const flexBuildMs = performance.now() - t;
  t = performance.now();
  const miniBuf = serializeMini(docs);
  const miniBuildMs = performance.now() - t;
  await fsp.writeFile(path.join(tmp, "flex.index"), flexBuf);
  await fsp.writeFile(path.join(tmp, "mini.json"), miniBuf);

  const cache = fs.existsSync(CACHE_FILE) ? JSON.parse(fs.readFileSync(CACHE_FILE, "utf8")) : {};
  const NM = path.join(ROOT, "node_modules");
  const files = {
    flexLib: path.join(NM, "flexsearch/dist/flexsearch.bundle.module.min.mjs"),
    miniLib: path.join(NM, "minisearch/dist/es/index.js"),
  };
  log("compressing (gzip -9, brotli q11; cached by content hash in target/bench-cache) …");
  const peerSizesP = Promise.all([
    compressedSizes(flexBuf, cache), compressedSizes(miniBuf, cache),
    compressedSizes(fs.readFileSync(files.flexLib), cache), compressedSizes(fs.readFileSync(files.miniLib), cache),
  ]);
  const [site] = await Promise.all([building ?? opt.site, peerSizesP]);
  if (building) log(`site built: ${path.relative(ROOT, site)}`);
  const variants = [];
  if (opt.codegen) {
    for (const v of CODEGEN) {
      log(`building the wasm with ${v.label} (target/codegen/${v.name}) …`);
      variants.push(await buildVariant(v));
    }
  }
  const [flexIndexSz, miniIndexSz, flexLibSz, miniLibSz] = await peerSizesP;

  const manifestPath = path.join(site, "data/manifest.json");
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
  const part = (s) => manifest.files.find((f) => f.sections.length === 1 && f.sections[0] === s);
  const full = manifest.files.find((f) => f.sections.length >= 3 && f.sections.includes("records"));
  if (!full || !part("summary") || !part("names")) fail(`${manifestPath} lists no full/summary/names files`);
  const shard = (f) => ({ raw: f.bytes, gz: f.bytes, br: f.bytes }); // zstd inside: served as is
  const sz = async (rel) => compressedSizes(fs.readFileSync(path.join(site, rel)), cache);
  const ours = {
    wasm: await sz("pkg/registry_wasm_bg.wasm"),
    glue: await sz("pkg/registry_wasm.js"),
    runtime: [await sz("registry.js"), await sz("registry-worker.js"), await sz("registry-data.js")],
    manifest: await sz("data/manifest.json"),
    summary: shard(part("summary")), names: shard(part("names")), records: shard(part("records")), full: shard(full),
  };
  await fsp.mkdir(path.dirname(CACHE_FILE), { recursive: true });
  await fsp.writeFile(CACHE_FILE, JSON.stringify(cache));
  const sum = (...xs) => xs.flat().reduce((a, x) => ({ raw: a.raw + x.raw, gz: a.gz + x.gz, br: a.br + x.br }), { raw: 0, gz: 0, br: 0 });
  const js = sum(ours.glue, ours.runtime);
  const bytes = {
    ours_typeahead: { parts: { "summary+names shards": sum(ours.summary, ours.names), "wasm": ours.wasm, "JS (glue+runtime)": js, "manifest.json": ours.manifest }, total: sum(ours.summary, ours.names, ours.wasm, js, ours.manifest) },
    ours_full: { parts: { "full shard": ours.full, "wasm": ours.wasm, "JS (glue+runtime)": js, "manifest.json": ours.manifest }, total: sum(ours.full, ours.wasm, js, ours.manifest) },
    flex: { parts: { "serialized index": flexIndexSz, "library (bundle.module.min)": flexLibSz }, total: sum(flexIndexSz, flexLibSz) },
    mini: { parts: { "serialized index": miniIndexSz, "library (dist/es, unminified)": miniLibSz }, total: sum(miniIndexSz, miniLibSz) },
  };

  // ------------------------------------------------------------ browser
  const server = await serve({ "/bench/": HERE, "/site/": site, "/peers/": tmp, "/nm/": NM, "/codegen/": path.join(ROOT, "target/codegen") });
  cleanups.push(() => server.close());
  log("launching Chromium …");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  cleanups.push(() => browser.close());
  const version = browser.version();
  const R = {};
  const dataUrl = (f) => `/site/data/${f.name}`;
  const typeaheadUrls = [dataUrl(part("summary")), dataUrl(part("names"))];
  const pageErrors = [];

  // Ours, typeahead files (summary + names): load, heap, suggest.
  {
    log("ours (typeahead: summary + names) …");
    const p = await newPage(browser, server.url);
    const load = await measureLoad(p, "ours", typeaheadUrls, opt.runs, opt.limit);
    const q = await runQueries(p, "ours", distinct, opt.limit, opt.passes);
    R.ours = { load, ...q, isolated: load.prep.crossOriginIsolated };
    pageErrors.push(...p.errors);
    await p.close();
  }
  // Ours, full shard: load, heap, E2.
  const e2Queries = [...new Set(occ.filter((o) => ["full", "acronym", "folded"].includes(o.bucket)).map((o) => o.q))];
  {
    log("ours (full shard) + E2 …");
    const p = await newPage(browser, server.url);
    const load = await measureLoad(p, "ours", [dataUrl(full)], opt.runs, opt.limit);
    const e2 = await runQueries(p, "ours-e2", e2Queries, opt.limit, opt.passes, "e2");
    R.oursFull = { load, e2 };
    pageErrors.push(...p.errors);
    await p.close();
  }
  // Ours through the real runtime (Worker, fetch + SHA-256 + load), for reference.
  {
    log("ours via the Worker runtime (web/registry.js) …");
    const p = await newPage(browser, server.url);
    const typeahead = await withTimeout(p.page.evaluate(() => window.B.workerOpen("typeahead")), 120_000, "worker open");
    const sample = distinct.slice(0, 2000);
    const w = await withTimeout(p.page.evaluate(([qs, l]) => window.B.workerRun(qs, l), [sample, opt.limit]), 240_000, "worker suggest");
    const fullOpen = await withTimeout(p.page.evaluate(() => window.B.workerOpen("full")), 120_000, "worker open");
    await p.page.evaluate(() => window.B.workerClose());
    R.worker = { typeahead, full: fullOpen, suggest: latency(w.times), n: sample.length };
    pageErrors.push(...p.errors);
    await p.close();
  }
  for (const [engine, url] of [["flex", "/peers/flex.index"], ["mini", "/peers/mini.json"]]) {
    log(`${engine === "flex" ? "FlexSearch" : "MiniSearch"} …`);
    const p = await newPage(browser, server.url);
    const load = await measureLoad(p, engine, [url], opt.runs, opt.limit);
    const q = await runQueries(p, engine, distinct, opt.limit, opt.passes);
    R[engine] = { load, ...q };
    pageErrors.push(...p.errors);
    await p.close();
  }
  // Ours, typeahead files, with each codegen variant: load only.
  for (const v of variants) {
    log(`ours (typeahead) with ${v.label} …`);
    const p = await newPage(browser, server.url);
    v.load = loadStats((await measureLoad(p, "ours", typeaheadUrls, opt.runs, opt.limit, v.pkg)).loads);
    pageErrors.push(...p.errors);
    await p.close();
  }
  await cleanup();
  clearTimeout(watchdog);

  // ------------------------------------------------------------ figures
  const qIndex = new Map(distinct.map((q, i) => [q, i]));
  const keyOf = { ours: (k) => k, flex: (k) => ids[k], mini: (k) => ids[k] };
  const BUCKETS = ["k=1", "k=2", "k=3", "k=4", "k=5", "k=6", "k=7-24", "full", "acronym", "folded"];
  const engines = ["ours", "flex", "mini"];
  const NAMES = { ours: "ours (wasm)", flex: "FlexSearch 0.8.212", mini: "MiniSearch 7.2.0" };
  const F = {};
  for (const e of engines) {
    const tops = R[e].tops.map((t) => t.map(keyOf[e]));
    const per = Object.fromEntries([...BUCKETS, "all"].map((b) => [b, { n: 0, at1: 0, at5: 0, times: [] }]));
    for (const o of occ) {
      const i = qIndex.get(o.q);
      const top = tops[i];
      for (const b of [o.bucket, "all"]) {
        const s = per[b];
        s.n++;
        s.times.push(R[e].times[i]);
        if (top[0] === ids[o.target]) s.at1++;
        if (top.slice(0, 5).includes(ids[o.target])) s.at5++;
      }
    }
    const loads = R[e].load.loads;
    F[e] = {
      per,
      lat: latency(per.all.times),
      load: loadStats(loads),
    };
  }
  const e2lat = latency(R.oursFull.e2.times);
  const e2ok = (() => {
    const top = R.oursFull.e2.tops;
    const ix = new Map(e2Queries.map((q, i) => [q, i]));
    let n = 0, at1 = 0, at5 = 0, bad = 0;
    for (const o of occ) {
      if (!ix.has(o.q)) continue;
      const t = top[ix.get(o.q)];
      n++;
      if (t[0] === ids[o.target]) at1++;
      if (t.includes(ids[o.target])) at5++;
    }
    for (const s of R.oursFull.e2.statuses) if (s !== 200) bad++;
    return { n, at1, at5, bad };
  })();
  const oursFullLoad = loadStats(R.oursFull.load.loads);
  const fasterLoad = ["flex", "mini"].sort((a, b) => F[a].load.median - F[b].load.median)[0];

  // ------------------------------------------------------------ report
  const out = [];
  const w = (s = "") => out.push(s);
  w(`=== registry browser benchmark — ${new Date().toISOString().slice(0, 10)} — Chromium ${version} (headless), ${os.cpus().length} cores ===`);
  const la = (x) => x.map((v) => v.toFixed(1)).join(" ");
  w(`load average (1/5/15 min) at start: ${la(loadAtStart)}, at end: ${la(os.loadavg())} — other processes skew timings; compare within one run`);
  w(`data: ${path.relative(ROOT, opt.data)} → ${manifest.record_count} records (release ${manifest.release}); site: ${path.relative(ROOT, site) || site}`);
  w(`query set: every ${opt.every}th record of the dump = ${targets} targets; display name typed k=1..6 chars, the complete name, first acronym,`);
  w(`  accent-stripped name; every ${opt.everyTyped}th record also types k=7..24. ${occ.length} queries, ${distinct.length} distinct (each distinct`);
  w(`  query runs once per engine; its time and result count for every occurrence). Top ${opt.limit} asked, one result per record.`);
  w(`timing: main thread of the page, cross-origin isolated (performance.now() ~5 µs): ${R.ours.isolated}; 200-query warm-up first;`);
  w(`  per-query time = median over passes: ours ${R.ours.passes}, FlexSearch ${R.flex.passes}, MiniSearch ${R.mini.passes}, E2 ${R.oursFull.e2.passes} (one pass when a pass exceeds ${PASS_BUDGET_MS / 1000} s).`);
  w(`peers: one document per distinct name (${docs.length}); FlexSearch Index {tokenize:"forward", encoder:Charset.LatinBalance},`);
  w(`  search(q, ${opt.limit * 5}); MiniSearch {fields:["n"], processTerm: NFD − \\p{Diacritic}, lowercase; searchOptions:{prefix:true}}.`);
  w(`  Peer index build in Node (not measured in the page): FlexSearch ${(flexBuildMs / 1000).toFixed(1)} s, MiniSearch ${(miniBuildMs / 1000).toFixed(1)} s.`);
  w();
  w("1. Bytes transferred (shards are zstd inside: served as is; JS/wasm/JSON as gzip -9 / brotli q11)");
  w(`   ${pad("", 42)}${lpad("raw", 13)}${lpad("gzip", 13)}${lpad("brotli", 13)}`);
  for (const [k, label] of [["ours_typeahead", "ours, typeahead mode"], ["ours_full", "ours, full mode"], ["flex", "FlexSearch"], ["mini", "MiniSearch"]]) {
    const b = bytes[k];
    w(`   ${pad(label + " — total", 42)}${kb(b.total.raw)}${kb(b.total.gz)}${kb(b.total.br)}`);
    for (const [n, s] of Object.entries(b.parts)) w(`     ${pad(n, 40)}${kb(s.raw)}${kb(s.gz)}${kb(s.br)}`);
  }
  w(`   (ours, typeahead mode, later on demand: records shard ${kb(ours.records.raw).trim()})`);
  w(`   target: registry wasm ≤ 150 KB brotli: ${kb(ours.wasm.br).trim()} → ${verdict(ours.wasm.br <= 150 * 1024)}`);
  w();
  w(`2. Shard bytes → first result (bytes already in memory → load/index → first query "${FIRST_QUERY}"), median of ${opt.runs}, main thread`);
  w(`   ${pad("", 34)}${lpad("median", 11)}${lpad("load", 11)}${lpad("1st query", 11)}${lpad("CPU", 11)}   runs (wall ms)`);
  const loadRow = (label, l) => w(`   ${pad(label, 34)}${lpad(ms(l.median), 11)}${lpad(ms(l.construct), 11)}${lpad(ms(l.first), 11)}${lpad(ms(l.cpu), 11)}   ${l.all.map((x) => x.toFixed(0)).join(" ")}`);
  loadRow("ours, typeahead (summary+names)", F.ours.load);
  loadRow("ours, full shard", oursFullLoad);
  loadRow("FlexSearch (import)", F.flex.load);
  loadRow("MiniSearch (loadJSON)", F.mini.load);
  w("   (median = wall time load + 1st query; load and 1st query are their own medians; CPU = main-thread CPU time of the run, median)");
  w(`   For reference, the real runtime (Worker: fetch from localhost + SHA-256 + load), readyMs: typeahead ${ms(R.worker.typeahead.readyMs)}, full ${ms(R.worker.full.readyMs)}`);
  w();
  if (variants.length) {
    w(`2b. The registry wasm's size against its load time, by code generation (typeahead files; ratio to ${NAMES[fasterLoad]}'s ${ms(F[fasterLoad].load.median)})`);
    w(`   ${pad("", 38)}${lpad("brotli", 12)}${lpad("median", 10)}${lpad("CPU", 10)}${lpad("ratio", 8)}   size ≤ 150 KB / ratio ≤ 0.2`);
    for (const v of variants) {
      const r = v.load.median / F[fasterLoad].load.median;
      w(`   ${pad(v.label, 38)}${kb(v.brotli).slice(-12)}${lpad(ms(v.load.median), 10)}${lpad(ms(v.load.cpu), 10)}${lpad(r.toFixed(3), 8)}   ${v.brotli <= 150 * 1024 ? "yes" : "no "} / ${r <= 0.2 ? "yes" : "no"}`);
    }
    w();
  }
  w("3. Latency per keystroke (all queries of the set), main thread");
  w(`   ${pad("", 34)}${lpad("p50", 11)}${lpad("p99", 11)}${lpad("max", 11)}`);
  for (const e of engines) w(`   ${pad(NAMES[e] + " suggest", 34)}${lpad(ms(F[e].lat.p50), 11)}${lpad(ms(F[e].lat.p99), 11)}${lpad(ms(F[e].lat.max), 11)}`);
  w(`   ${pad("ours E2 request (JSON.parse incl.)", 34)}${lpad(ms(e2lat.p50), 11)}${lpad(ms(e2lat.p99), 11)}${lpad(ms(e2lat.max), 11)}   (${e2lat.n} distinct full/acronym/folded queries; ${e2ok.bad} non-200)`);
  w(`   ${pad("ours suggest via the Worker", 34)}${lpad(ms(R.worker.suggest.p50), 11)}${lpad(ms(R.worker.suggest.p99), 11)}${lpad(ms(R.worker.suggest.max), 11)}   (round trip, first ${R.worker.n} distinct queries)`);
  w("   p50 / p99 by bucket:");
  w(`   ${pad("", 10)}${engines.map((e) => lpad(NAMES[e].split(" ")[0], 22)).join("")}`);
  for (const b of BUCKETS) w(`   ${pad(b, 10)}${engines.map((e) => { const l = latency(F[e].per[b].times); return lpad(`${ms(l.p50)} / ${ms(l.p99)}`, 22); }).join("")}`);
  w();
  w("4. Memory after load");
  const wm = (x) => (x == null ? "—" : mb(x));
  w(`   ours typeahead: wasm memory ${wm(R.ours.load.wasmMemoryAfterLoad)} (after init ${wm(R.ours.load.wasmMemoryAfterInit)}), JS heap +${mb(R.ours.load.jsHeapDelta)}`);
  w(`   ours full:      wasm memory ${wm(R.oursFull.load.wasmMemoryAfterLoad)} (after init ${wm(R.oursFull.load.wasmMemoryAfterInit)}), JS heap +${mb(R.oursFull.load.jsHeapDelta)}`);
  w(`   FlexSearch:     JS heap +${mb(R.flex.load.jsHeapDelta)}`);
  w(`   MiniSearch:     JS heap +${mb(R.mini.load.jsHeapDelta)}`);
  w("   (JS heap = V8 used size after a forced GC, loaded index kept minus before loading; wasm memory = WebAssembly.Memory byteLength,");
  w("    a high-water mark: it includes the peak while decoding; the fetched bytes themselves are excluded everywhere)");
  w();
  w(`5. success@1 / success@5 (target record in the top 1 / top 5)`);
  w(`   ${pad("bucket", 10)}${lpad("n", 6)}${engines.map((e) => lpad(NAMES[e].split(" ")[0], 18)).join("")}`);
  for (const b of [...BUCKETS, "all"]) {
    const n = F.ours.per[b].n;
    if (!n) continue;
    w(`   ${pad(b, 10)}${lpad(n, 6)}${engines.map((e) => lpad(`${pct(F[e].per[b].at1 / n)} / ${pct(F[e].per[b].at5 / n)}`, 18)).join("")}`);
  }
  w(`   ours E2 (full/acronym/folded queries, n=${e2ok.n}): ${pct(e2ok.at1 / e2ok.n)} / ${pct(e2ok.at5 / e2ok.n)}`);
  w();
  w("6. Ratios and targets (not asserted)");
  const fasterLat = ["flex", "mini"].sort((a, b) => F[a].lat.p99 - F[b].lat.p99)[0];
  const betterOk = ["flex", "mini"].sort((a, b) => F[b].per.all.at5 - F[a].per.all.at5)[0];
  const r1 = F.ours.lat.p99 / F[fasterLat].lat.p99;
  const r2 = F.ours.load.median / F[fasterLoad].load.median;
  w(`   suggest p99: ours ${ms(F.ours.lat.p99)} / ${NAMES[fasterLat]} ${ms(F[fasterLat].lat.p99)} = ${r1.toFixed(3)}  (target ≤ 0.200) → ${verdict(r1 <= 0.2)}`);
  w(`   bytes → first result: ours typeahead ${ms(F.ours.load.median)} / ${NAMES[fasterLoad]} ${ms(F[fasterLoad].load.median)} = ${r2.toFixed(3)}  (target ≤ 0.200) → ${verdict(r2 <= 0.2)}`);
  w(`     (main-thread CPU: ours typeahead ${ms(F.ours.load.cpu)} / ${ms(F[fasterLoad].load.cpu)} = ${(F.ours.load.cpu / F[fasterLoad].load.cpu).toFixed(3)};` +
    ` ours full shard: wall ${ms(oursFullLoad.median)} → ${(oursFullLoad.median / F[fasterLoad].load.median).toFixed(3)}, CPU ${(oursFullLoad.cpu / F[fasterLoad].load.cpu).toFixed(3)})`);
  w(`   success@5 overall: ours ${pct(F.ours.per.all.at5 / F.ours.per.all.n)} vs ${NAMES[betterOk]} ${pct(F[betterOk].per.all.at5 / F.ours.per.all.n)}  (target ≥) → ${verdict(F.ours.per.all.at5 >= F[betterOk].per.all.at5)}`);
  w(`   registry wasm brotli: ${kb(ours.wasm.br).trim()}  (target ≤ 150 KB) → ${verdict(ours.wasm.br <= 150 * 1024)}`);
  if (pageErrors.length) {
    w();
    w(`page errors (${pageErrors.length}): ${pageErrors.slice(0, 5).join(" | ")}`);
  }
  w();
  w(`finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(out.join("\n"));

  // Diagnostics for the engine's owners (stderr): our misses on complete names,
  // acronym misses, E2 errors.
  const short = (x) => String(x).replace("https://ror.org/", "");
  const diag = [];
  for (const o of occ) {
    if (!["full", "folded", "acronym"].includes(o.bucket)) continue;
    const top = R.ours.tops[qIndex.get(o.q)];
    const want = ids[o.target];
    if (o.bucket === "acronym" ? !top.includes(want) : top[0] !== want)
      diag.push(`  ${o.bucket} ${o.bucket === "acronym" ? "@5" : "@1"} miss: "${o.q}" → want ${short(want)}, got [${top.map(short).join(" ")}]`);
  }
  const e2err = Object.entries(R.oursFull.e2.errors);
  const byMsg = {};
  for (const [q, m] of e2err) {
    const reserved = m.match(/reserved character '(.+?)'/);
    (byMsg[reserved ? `${m.slice(0, 3)} reserved character ${reserved[1]}` : m.slice(0, 120)] ??= []).push(q);
  }
  for (const [m, qs] of Object.entries(byMsg)) diag.push(`  E2 ${qs.length}× ${m.slice(0, 160)}  e.g. ${qs.slice(0, 3).map((q) => JSON.stringify(q)).join(", ")}`);
  if (diag.length) log(`diagnostics (${diag.length}):\n${diag.slice(0, 60).join("\n")}`);
}

main().then(
  () => process.exit(0),
  async (e) => {
    console.error(`browser-bench: ${e?.stack ?? e}`);
    await cleanup();
    process.exit(1);
  },
);
