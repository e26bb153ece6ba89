#!/usr/bin/env node
// Cold-start benchmark (issue #13, items 4–5): how long after navigation a
// user who types at once sees the organization they mean, on an emulated
// network, for three ways to build a typeahead, side by side:
//
//   widget      the registry's <registry-picker> (widget-demo.html of `registry site`)
//   API         a page asking `registry serve` per keystroke (/v2/organizations?query=<words> <last>*)
//   FlexSearch  a page importing a serialized FlexSearch index on load
//   app         (only with --pages …,app) the registry browser's search box (index.html)
//
// and shared links (issue #21; pages id-app,id-api,q-app,q-api,enter-app,enter-api):
//   id-*        `?id=<id>`: the record's name painted (the app: index.html;
//               the API page: one /v2/organizations/<id> request)
//   q-*         `?q=university of cambridge`: first result row and facet counts painted
//   enter-*     the front door (issue #38 item 3): the search page without a query; the
//               box usable (painted), type "cambridge" (80 ms a key), the suggestion
//               "University of Cambridge" painted (waited for, ≤ 10 s), Enter one key
//               interval later, the first result row painted
//               (the app: index.html; the API page: a box asking the API per keystroke
//               and for the results on Enter, cold/pages/front.html)
//   for the app's cold visit also: time and bytes until offline-ready (the
//   service worker's copy of the whole data complete); warm = second visit.
//
//   node tests/bench/cold-start.mjs [--data FILE] [--scale 1,4] [--profiles mobile,broadband]
//                                   [--runs 3] [--api-runs N] [--key-delay 80] [--pages widget,api,flex[,app]]
//                                   [--link-q "university of cambridge"]  (the q-* pages' query)
//                                   [--targets harv]  (only these typed targets: harv,stanf,sorbon)
//                                   [--reuse]  (a scale's synth dump and site data already in target/cold-bench/x<N>/; the app is copied in anew)
//                                   [--enter suggested|typed]  (enter-*: Enter once the organization is suggested (default), or one key interval after the typing)
//                                   [--site-dir DIR[,DIR…]]  (once per --scale, in its order: measure these built sites as they are)
//   node tests/bench/cold-start.mjs --pages id-app,id-api,q-app,q-api,enter-app,enter-api
//   node tests/bench/cold-start.mjs --scale 1,4 --profiles mobile --pages enter-app,enter-api --reuse   (the front door alone)
//   node tests/bench/cold-start.mjs --scale 1 --site-dir target/bench/b1b,target/bench/f1b --pages widget,api --profiles mobile
//       (a site built with --previous against a fresh build of the same release, runs interleaved)
//   WATERFALL=1 …: every request of each visit (start–end ms, bytes), on stderr
//
// --scale N: `registry synth --factor N` on the dump first (N×1 = the dump itself).
// Builds what it needs: scripts/build-web.sh (the app, into target/cold-app),
// then per scale `registry site` and the FlexSearch export into
// target/cold-bench/x<N>/ (printed). Prints a table; asserts nothing.
//
// --site-dir: the sites of a scale (folders written by `registry site`) are
// measured as they are, app included: nothing is built, the scale is only the
// label, and the API page asks `registry serve` over each site's data/. Two or
// more sites of a scale are measured side by side, each visit of a run on
// every site before the next visit, so that the machine's load hits them
// alike; each gets its own table. `deltas` counts the pack ranges read as a
// delta from a kept base (`?f=<name>&delta`, sites built with --previous).
// FlexSearch needs the dump, so it is not measured with --site-dir.
// See tests/bench/README.md for what each figure means.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../server.mjs";
import { startServer } from "./cold/server.mjs";
import { writeFlexIndex } from "./cold/flex-index.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const started = performance.now();
const log = (m) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)}s] ${m}\n`);

// ---------------------------------------------------------------- options
const PROFILES = {
  // Chromium's throttling: latency is added per request; throughput in bytes/s.
  mobile: { latency: 150, down: 1.6e6, up: 750e3, label: "150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up" },
  broadband: { latency: 40, down: 10e6, up: 5e6, label: "40 ms RTT, 10 Mbit/s down, 5 Mbit/s up" },
};
// Targets typed by the user: the query, and the display name that must appear
// (in the first 10 of all three pages at ×1 and ×4; FlexSearch does not list
// "Max Planck Society" for "max pla", for instance).
const TARGETS = [
  { query: "harv", name: "Harvard University" },
  { query: "stanf", name: "Stanford University" },
  { query: "sorbon", name: "Sorbonne Université" },
];
const LATE_MS = 4000;

function parseArgs(argv) {
  const o = { data: path.resolve(ROOT, "../shared/data/registry-v2.json.gz"), scales: [1], profiles: ["mobile", "broadband"], runs: 3, keyDelay: 80, pages: ["widget", "api", "flex"] };
  for (let i = 0; i < argv.length; i++) {
    const [k, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => inline ?? argv[++i];
    if (k === "--data") o.data = path.resolve(val());
    else if (k === "--scale") o.scales = val().split(",").map(Number);
    else if (k === "--profiles") o.profiles = val().split(",");
    else if (k === "--runs") o.runs = Number(val());
    else if (k === "--api-runs") o.apiRuns = Number(val());
    else if (k === "--key-delay") o.keyDelay = Number(val());
    else if (k === "--pages") o.pages = val().split(",");
    else if (k === "--link-q") LINK_Q = val();
    else if (k === "--targets") o.targets = val().split(",");
    else if (k === "--reuse") o.reuse = true;
    else if (k === "--enter") o.enter = val();
    else if (k === "--site-dir") (o.siteDirs ??= []).push(val().split(",").map((d) => path.resolve(d)));
    else if (k === "-h" || k === "--help") {
      const lines = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
      console.log(lines.slice(1, lines.findIndex((l) => l.startsWith("import "))).join("\n").replace(/^\/\/ ?/gm, ""));
      process.exit(0);
    } else fail(`unknown argument '${argv[i]}' (try --help)`);
  }
  if (!o.scales.every((s) => Number.isInteger(s) && s >= 1 && s <= 64)) fail("--scale takes integers 1–64, e.g. 1,4");
  if (!o.profiles.every((p) => PROFILES[p])) fail(`--profiles: one or more of ${Object.keys(PROFILES).join(",")}`);
  if (!o.pages.every((p) => PAGES.some((d) => d.key === p) || LINKS.some((d) => d.key === p)))
    fail(`--pages: one or more of ${[...PAGES, ...LINKS].map((d) => d.key).join(",")}`);
  if (o.targets) {
    const unknown = o.targets.filter((q) => !TARGETS.some((t) => t.query === q));
    if (unknown.length || !o.targets.length) fail(`--targets: one or more of ${TARGETS.map((t) => t.query).join(",")}`);
    TARGETS.splice(0, TARGETS.length, ...o.targets.map((q) => TARGETS.find((t) => t.query === q)));
  }
  if (!Number.isInteger(o.runs) || o.runs < 1) fail("--runs must be a positive integer");
  o.enter ??= "suggested";
  if (!["suggested", "typed"].includes(o.enter)) fail("--enter: suggested or typed");
  o.apiRuns ??= o.runs;
  if (!Number.isInteger(o.apiRuns) || o.apiRuns < 1) fail("--api-runs must be a positive integer");
  if (!(o.keyDelay >= 0)) fail("--key-delay must be ≥ 0 (ms between keystrokes)");
  if (o.siteDirs) checkSiteDirs(o);
  else if (!fs.existsSync(o.data)) fail(`the dump ${o.data} is absent (pass --data FILE)`);
  return o;
}

/** --site-dir: one list per scale, each folder a built site, and no page that needs the dump. */
function checkSiteDirs(o) {
  if (o.siteDirs.length !== o.scales.length)
    fail(`--site-dir: give it once per --scale (${o.scales.length} scale(s), ${o.siteDirs.length} --site-dir), in the same order`);
  if (o.reuse) fail("--site-dir measures the sites as they are: leave out --reuse");
  if (o.pages.includes("flex")) fail("--site-dir: the FlexSearch page needs the dump; leave flex out of --pages");
  for (const dir of o.siteDirs.flat())
    if (!fs.existsSync(path.join(dir, "data/manifest.json")) || !fs.existsSync(path.join(dir, "index.html")))
      fail(`--site-dir: ${dir} is not a site (no index.html and data/manifest.json; build one with \`registry site <dump> -o ${dir}\`)`);
}

function fail(message) {
  console.error(`cold-start: ${message}`);
  process.exit(1);
}

// ---------------------------------------------------------------- cleanup
const cleanups = [];
async function cleanup() {
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch {}
  }
}
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, async () => { await cleanup(); process.exit(130); });

/** Runs a command in the repository; failures carry its last lines. */
function run(cmd, args, env = {}) {
  return new Promise((resolve, reject) => {
    const bin = path.join(process.env.CARGO_HOME ?? path.join(os.homedir(), ".cargo"), "bin");
    const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, PATH: `${bin}:${path.join(ROOT, "node_modules/.bin")}:${process.env.PATH}`, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const keep = (d) => (tail = (tail + d).slice(-6000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(tail) : reject(new Error(`${cmd} ${args.join(" ")} failed (exit ${code}):\n${tail.split("\n").slice(-20).join("\n")}`))));
  });
}

/** `registry serve` on a free port; resolves to its origin once it listens. */
function startApi(data) {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(ROOT, "target/release/registry"), ["serve", "--data", data, "--port", "0", "-q"], { stdio: ["ignore", "pipe", "inherit"] });
    cleanups.push(() => child.exitCode === null && child.kill("SIGTERM"));
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/[\d.:]+)/);
      if (m) resolve(m[1]);
    });
    child.on("exit", (code) => reject(new Error(`registry serve exited (${code})`)));
  });
}

// ---------------------------------------------------------------- build
/** Brotli bytes of the widget's code: registry-picker.js and every ui/ file it names. */
function widgetCodeBytes(site) {
  const loader = fs.readFileSync(path.join(site, "registry-picker.js"));
  const names = [...loader.toString().matchAll(/"(ui\/[^"]+)"/g)].map((m) => m[1]);
  const br = (b) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  return br(loader) + names.reduce((n, f) => n + br(fs.readFileSync(path.join(site, f))), 0);
}

/** Site + FlexSearch export for one scale, in target/cold-bench/x<N>/. */
async function prepareScale(opt, scale, app) {
  const dir = path.join(ROOT, `target/cold-bench/x${scale}`);
  fs.mkdirSync(dir, { recursive: true });
  let dump = opt.data;
  if (scale > 1) {
    dump = path.join(dir, `registry-x${scale}.json.gz`);
    if (!(opt.reuse && fs.existsSync(dump))) {
      log(`registry synth --factor ${scale} → ${path.relative(ROOT, dump)} …`);
      await run("target/release/registry", ["synth", opt.data, "--factor", String(scale), "-o", dump, "-q"]);
    }
  }
  const site = path.join(dir, "site");
  if (opt.reuse && fs.existsSync(path.join(site, "data/manifest.json"))) {
    // The data as it is; the app as just built (what is measured).
    log(`--reuse: the data of ${path.relative(ROOT, site)}, the app of ${path.relative(ROOT, app)}`);
    fs.cpSync(app, site, { recursive: true, filter: (src) => path.relative(app, src).split(path.sep)[0] !== "data" });
  } else {
    log(`registry site ${path.relative(ROOT, dump)} → ${path.relative(ROOT, site)} …`);
    await run("target/release/registry", ["site", dump, "-o", site, "--app", app, "-q"]);
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(site, "data/manifest.json"), "utf8"));
  // The FlexSearch page's index only when that page is measured (minutes at ×4).
  if (!opt.pages.includes("flex")) return { dir, site, flexDir: null, records: manifest.record_count, flex: null, manifest };
  log("FlexSearch: building and exporting the index …");
  const raw = fs.readFileSync(dump);
  const records = JSON.parse(raw[0] === 0x1f ? zlib.gunzipSync(raw) : raw);
  const flex = writeFlexIndex(records, path.join(dir, "flex"));
  return { dir, site, flexDir: path.join(dir, "flex"), records: records.length, flex, manifest };
}

/** A site given by --site-dir, measured as it is. */
function givenSite(site) {
  const manifest = JSON.parse(fs.readFileSync(path.join(site, "data/manifest.json"), "utf8"));
  return { dir: site, site, flexDir: null, records: manifest.record_count, flex: null, manifest };
}

// ---------------------------------------------------------------- the pages
const PAGES = [
  { key: "widget", label: "widget (registry-picker)", url: "/site/widget-demo.html", input: "#affiliation input:not([type=hidden])", list: "#affiliation [role=listbox]" },
  { key: "api", label: "API per keystroke", url: "/cold/api.html", input: "#q", list: "#list" },
  { key: "flex", label: "FlexSearch (serialized)", url: "/cold/flex.html", input: "#q", list: "#list" },
  // Not in the default set: the registry browser's search box (its first visit loads the whole data).
  { key: "app", label: "app search box (index)", url: "/site/index.html", input: "#q-input", list: "#q-list" },
];

/**
 * Runs in the page before its scripts: records when the input becomes
 * usable (present, enabled) and when the target name is first shown in the
 * listbox, then painted (the frame after the DOM change: rAF → task).
 */
function probe(cfg) {
  const C = (window.__cold = { usable: null, shown: null, painted: null });
  const check = () => {
    if (C.usable === null) {
      const input = document.querySelector(cfg.input);
      if (input && !input.disabled) C.usable = performance.now();
    }
    if (C.shown === null) {
      const list = document.querySelector(cfg.list);
      if (list && !list.hidden && [...list.querySelectorAll("[role=option] .cb-name")].some((n) => n.textContent.trim() === cfg.target)) {
        C.shown = performance.now();
        requestAnimationFrame(() => setTimeout(() => (C.painted = performance.now()), 0));
      }
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["disabled", "hidden"] });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isData = (u) => /\/data\//.test(u);
// A pack range holding a file's delta from its kept base (docs/pieces.md).
const isDelta = (u) => /\/data\/packs\/[^?]*\?(.*&)?delta(&|$)/.test(u);

/** CDP helpers for one page: emulation, network accounting, memory of the page and its workers. */
async function instrument(context, page, profile) {
  const cdp = await context.newCDPSession(page);
  const p = PROFILES[profile];
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: p.latency, downloadThroughput: p.down / 8, uploadThroughput: p.up / 8 });
  // Every request of the page and its Workers, as Playwright reports it
  // (the page's CDP session does not see a module Worker's requests).
  const done = []; // {at: epoch ms, request}
  page.on("requestfinished", (r) => done.push({ at: Date.now(), request: r }));
  // Workers, for memory: non-flattened auto-attach, messages through this session.
  const workers = new Map();
  const waiting = new Map();
  let nextId = 1;
  cdp.on("Target.attachedToTarget", (e) => workers.set(e.sessionId, e.targetInfo));
  cdp.on("Target.detachedFromTarget", (e) => workers.delete(e.sessionId));
  cdp.on("Target.receivedMessageFromTarget", (e) => {
    const m = JSON.parse(e.message);
    if (m.id && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
  // A Worker that does not answer within 10 s (busy, or gone) is left out, not waited for.
  const inWorker = (sessionId) => (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => (waiting.delete(id), reject(new Error(`${method}: no answer from the worker`))), 10_000);
      waiting.set(id, (m) => (clearTimeout(timer), m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
      cdp.send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });

  /**
   * Bytes received in requests that ended by `until` (epoch ms): CDP's
   * encodedDataLength (compressed body + headers; 0 for a cache hit, the
   * headers for a 304), which Playwright splits into body + headers.
   */
  async function bytesUntil(until, only = () => true) {
    let n = 0;
    for (const { at, request } of done) {
      if (!only(request.url())) continue;
      // The browser's own end time: Playwright's event can reach Node after the paint.
      const t = request.timing();
      if ((t.responseEnd >= 0 ? t.startTime + t.responseEnd : at) > until) continue;
      const s = await request.sizes().catch(() => null);
      if (s) n += Math.max(0, s.responseBodySize + s.responseHeadersSize);
    }
    return n;
  }

  /** Each finished request (start and end in ms after `origin`, bytes, URL), in start order: where a first paint's time goes. */
  async function waterfall(origin) {
    const rows = [];
    for (const { at, request } of done) {
      const t = request.timing();
      const s = await request.sizes().catch(() => null);
      const end = t.responseEnd >= 0 ? t.startTime + t.responseEnd : at;
      rows.push({ start: t.startTime - origin, end: end - origin, bytes: s ? s.responseBodySize + s.responseHeadersSize : 0, url: request.url() });
    }
    return rows.sort((a, b) => a.start - b.start);
  }

  /** JS heap used (after a GC) and the byteLength of every live WebAssembly.Memory, page and workers. */
  async function memory() {
    const measure = async (send) => {
      await send("HeapProfiler.collectGarbage").catch(() => {});
      const heap = (await send("Runtime.getHeapUsage")).usedSize;
      const proto = await send("Runtime.evaluate", { expression: "WebAssembly.Memory.prototype" });
      const q = await send("Runtime.queryObjects", { prototypeObjectId: proto.result.objectId });
      const r = await send("Runtime.callFunctionOn", { objectId: q.objects.objectId, functionDeclaration: "function () { return this.reduce((n, m) => n + m.buffer.byteLength, 0); }", returnByValue: true });
      return { heap, wasm: r.result.value };
    };
    const page = await measure((m, prm) => cdp.send(m, prm));
    let workerHeap = 0, workerWasm = 0;
    for (const [sid, info] of workers) {
      if (info.type !== "worker") continue;
      try {
        const w = await measure(inWorker(sid));
        workerHeap += w.heap;
        workerWasm += w.wasm;
      } catch {}
    }
    return { pageHeap: page.heap, pageWasm: page.wasm, workerHeap, workerWasm, workers: [...workers.values()].filter((w) => w.type === "worker").length };
  }
  /** Requests (whose URL passes `only`) that ended by `until`. */
  function requestsUntil(until, only = () => true) {
    return done.filter(({ at, request }) => {
      const t = request.timing();
      return only(request.url()) && (t.responseEnd >= 0 ? t.startTime + t.responseEnd : at) <= until;
    }).length;
  }
  return { waterfall, bytesUntil, requestsUntil, memory };
}

/**
 * One visit: navigate, wait until the input is usable, type the target's
 * query (at once, or from `typeAt` ms after navigation), wait until the
 * target's name is painted in the listbox. Times are page times (ms since
 * navigation start).
 */
async function visit(context, server, pageDef, target, profile, opt, typeAt = 0, kind = "cold") {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    const tools = await instrument(context, page, profile);
    await page.addInitScript(probe, { input: pageDef.input, list: pageDef.list, target: target.name });
    await page.goto(server.url + pageDef.url, { waitUntil: "commit", timeout: 120_000 });
    await page.waitForFunction(() => window.__cold?.usable != null, null, { polling: 10, timeout: 600_000 });
    if (typeAt) {
      const now = await page.evaluate(() => performance.now());
      if (now < typeAt) await sleep(typeAt - now);
    }
    const typedAt = await page.evaluate(() => performance.now());
    await page.focus(pageDef.input);
    await page.keyboard.type(target.query, { delay: opt.keyDelay });
    // Typing is over: an answer that has not come in 60 s is not coming.
    await page.waitForFunction(() => window.__cold.painted != null, null, { polling: 10, timeout: 60_000 });
    const c = await page.evaluate(() => ({ ...window.__cold, origin: performance.timeOrigin }));
    const bytes = await tools.bytesUntil(c.origin + c.painted);
    const dataBytes = await tools.bytesUntil(c.origin + c.painted, isData);
    const deltas = tools.requestsUntil(c.origin + c.painted, isDelta);
    // WATERFALL=1: every request of the visit, to see what the paint waited for.
    if (process.env.WATERFALL) {
      log(`  ${pageDef.key} ${kind} "${target.query}": typed from ${typedAt.toFixed(0)} ms`);
      for (const w of await tools.waterfall(c.origin))
        log(`    ${lpad(w.start.toFixed(0), 6)}–${pad(w.end.toFixed(0), 6)} ${lpad(kb(w.bytes), 9)}  ${w.url.replace(server.url, "")}${w.end > c.painted ? "  (after the paint)" : ""}`);
      log(`    shown at ${c.shown.toFixed(0)} ms, painted at ${c.painted.toFixed(0)} ms`);
    }
    const mem = await tools.memory();
    return { usable: c.usable, typedAt, painted: c.painted, bytes, dataBytes, deltas, ...mem, errors };
  } catch (e) {
    errors.push(e.message.split("\n")[0]);
    log(`  ${pageDef.key} ${profile}: ${errors.at(-1)}`);
    return { failed: true, errors };
  } finally {
    await page.close().catch(() => {});
  }
}

async function launch(userDataDir) {
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    args: CHROMIUM_ARGS.filter((a) => a !== "--headless"),
    headless: true,
  });
  return context;
}

/** Cold (fresh profile), warm (same profile, second visit), late (fresh profile, typing from 4 s). */
async function measurePage(server, pageDef, target, profile, opt) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cold-start-"));
  try {
    let context = await launch(path.join(tmp, "a"));
    const cold = await visit(context, server, pageDef, target, profile, opt);
    const warm = await visit(context, server, pageDef, target, profile, opt, 0, "warm");
    await context.close();
    context = await launch(path.join(tmp, "b"));
    const late = await visit(context, server, pageDef, target, profile, opt, LATE_MS, "late");
    await context.close();
    return { cold, warm, late };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- shared links
const LINK_ID = "03vek6s52"; // a record page (Harvard University in the real data, as in the issue; ×4 keeps every real record)
let LINK_Q = "university of cambridge"; // --link-q
const ENTER = { query: "cambridge", name: "University of Cambridge" };
const LINKS = [
  { key: "id-app", label: "?id= app", kind: "id", url: () => `/site/index.html?id=${LINK_ID}`, app: true },
  { key: "id-api", label: "?id= API page", kind: "id", url: () => `/cold/link.html?id=${LINK_ID}` },
  { key: "q-app", label: "?q= app", kind: "q", url: () => `/site/index.html?q=${encodeURIComponent(LINK_Q)}`, app: true },
  { key: "q-api", label: "?q= API page", kind: "q", url: () => `/cold/link.html?q=${encodeURIComponent(LINK_Q)}` },
  { key: "enter-app", label: "front door: app", kind: "enter", url: () => "/site/index.html", input: "#q-input", list: "#q-list", app: true },
  { key: "enter-api", label: "front door: API page", kind: "enter", url: () => "/cold/front.html", input: "#q", list: "#list" },
];

/**
 * Runs in the page before its scripts: when the record's name, the first
 * result row, the facet counts, the suggestion (`cfg.name` in `cfg.list`)
 * and the search box (`cfg.input`, present and enabled) are painted.
 */
function linkProbe(cfg) {
  const C = (window.__link = { name: null, record: null, rows: null, facets: null, suggest: null, usable: null });
  const painted = (k) => requestAnimationFrame(() => setTimeout(() => (C[k] ??= performance.now()), 0));
  const seen = {};
  const once = (k, cond) => !seen[k] && cond() && ((seen[k] = true), painted(k));
  const check = () => {
    once("name", () => document.getElementById("record-title")?.textContent.trim().startsWith(cfg.name));
    once("record", () => document.querySelector(".record table.locations") !== null);
    once("rows", () => document.querySelector(".result") !== null);
    once("facets", () => document.querySelector(".facets [data-facet] li, #facets li") !== null);
    once("suggest", () => [...document.querySelectorAll(`${cfg.list} [role=option] .cb-name`)].some((n) => n.textContent.trim() === cfg.name));
    // Usable: there and enabled, painted (a stylesheet that blocks rendering counts).
    once("usable", () => document.querySelector(`${cfg.input}:not([disabled])`) !== null);
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

/** Whether the service worker's offline copy is complete (its data cache holds the manifest, written last), and its size in bytes. */
async function offlineCopy() {
  if (!navigator.serviceWorker?.controller) return null;
  let complete = false;
  let bytes = 0;
  for (const key of await caches.keys()) {
    const cache = await caches.open(key);
    if (key.startsWith("registry-data-") && (await cache.match(new URL("data/manifest.json", document.baseURI).href))) complete = true;
    for (const req of await cache.keys()) bytes += (await (await cache.match(req)).arrayBuffer()).byteLength;
  }
  return complete ? bytes : null;
}

/** One visit of a shared link: times of the answer's paint, bytes and data requests before it, memory; on `offline`, until the offline copy is complete. */
async function visitLink(context, server, def, name, profile, opt, { offline = false } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    const tools = await instrument(context, page, profile);
    await page.addInitScript(linkProbe, { name, input: def.input ?? "#q-input", list: def.list ?? "#q-list" });
    await page.goto(server.url + def.url(), { waitUntil: "commit", timeout: 120_000 });
    const wait = (cond) => page.waitForFunction(cond, null, { polling: 10, timeout: 300_000 });
    let suggestBeforeEnter = null;
    let enterAt = null;
    // (The app's full record follows its name: waited for too, and reported apart.)
    if (def.kind === "id") await wait(() => window.__link.name != null && (!document.querySelector("#app") || window.__link.record != null));
    else if (def.kind === "q") await wait(() => window.__link.rows != null && window.__link.facets != null);
    else {
      await wait(() => window.__link.usable != null);
      await page.focus(def.input);
      await page.keyboard.type(ENTER.query, { delay: opt.keyDelay });
      // Enter once the organization is suggested (as a person who sees it
      // would), one key interval after it is painted, or 10 s after the
      // last key: the suggestion's time is not cut short by an Enter that
      // supersedes it (the API page aborts a keystroke's request at the next
      // key, so its suggestion comes one round trip after the typing).
      // (--enter typed: at once, as a person who knows what to search for.)
      if (opt.enter === "suggested") await page.waitForFunction(() => window.__link.suggest != null, null, { polling: 10, timeout: 10_000 }).catch(() => {});
      await sleep(opt.keyDelay);
      suggestBeforeEnter = await page.evaluate(() => window.__link.suggest != null);
      enterAt = await page.evaluate(() => performance.now());
      await page.keyboard.press("Enter");
      await wait(() => window.__link.rows != null);
    }
    const c = await page.evaluate(() => ({ ...window.__link, origin: performance.timeOrigin }));
    const answer = def.kind === "id" ? c.name : def.kind === "q" ? Math.max(c.rows, c.facets) : c.rows;
    const until = c.origin + answer;
    const bytes = await tools.bytesUntil(until);
    const data = await tools.bytesUntil(until, isData);
    const mem = await tools.memory();
    // WATERFALL=1: every request of the visit, to see what the answer waited for.
    if (process.env.WATERFALL)
      for (const w of await tools.waterfall(c.origin))
        log(`    ${lpad(w.start.toFixed(0), 6)}–${pad(w.end.toFixed(0), 6)} ${lpad(kb(w.bytes), 9)}  ${w.url.replace(server.url, "")}${w.end > answer ? "  (after the answer)" : ""}`);
    if (process.env.WATERFALL) log(`    answer at ${answer.toFixed(0)} ms (rows ${c.rows?.toFixed(0)}, facets ${c.facets?.toFixed(0)}, name ${c.name?.toFixed(0)})`);
    const out = { answer, record: c.record, suggest: c.suggest, usable: c.usable, enterAt, suggestBeforeEnter, bytes, dataBytes: data, dataRequests: tools.requestsUntil(until, isData), deltas: tools.requestsUntil(until, isDelta), ...mem, errors };
    if (offline) {
      // Polled here: waitForFunction takes the promise of an async predicate for a truthy answer.
      for (const end = Date.now() + 600_000; out.offlineBytes == null && Date.now() < end; await sleep(250))
        out.offlineBytes = await page.evaluate(offlineCopy);
      out.offlineAt = out.offlineBytes == null ? NaN : await page.evaluate(() => performance.now());
      out.offlinePageBytes = await tools.bytesUntil(Date.now());
    }
    return out;
  } catch (e) {
    errors.push(e.message.split("\n")[0]);
    log(`  ${def.key} ${profile}: ${errors.at(-1)}`);
    return { failed: true, errors };
  } finally {
    await page.close().catch(() => {});
  }
}

/** Cold (fresh profile; the app's visit waits for offline-ready too) and warm (second visit, same profile). */
async function measureLink(server, def, name, profile, opt) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cold-link-"));
  try {
    const context = await launch(path.join(tmp, "a"));
    const cold = await visitLink(context, server, def, name, profile, opt, { offline: def.app });
    const warm = await visitLink(context, server, def, name, profile, opt);
    await context.close();
    return { cold, warm };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function summarizeLinks(runs) {
  const m = (f) => median(runs.map(f));
  return {
    cold: m((r) => r.cold.answer),
    record: m((r) => r.cold.record ?? NaN),
    bytes: m((r) => r.cold.bytes),
    dataBytes: m((r) => r.cold.dataBytes),
    dataRequests: m((r) => r.cold.dataRequests),
    deltas: m((r) => r.cold.deltas),
    warm: m((r) => r.warm.answer),
    pageWasm: m((r) => r.cold.pageWasm),
    workerWasm: m((r) => r.cold.workerWasm),
    offlineAt: m((r) => r.cold.offlineAt),
    offlineBytes: m((r) => r.cold.offlineBytes),
    offlinePageBytes: m((r) => r.cold.offlinePageBytes),
    suggested: runs.filter((r) => r.cold.suggestBeforeEnter).length,
    suggest: m((r) => r.cold.suggest ?? NaN),
    usable: m((r) => r.cold.usable ?? NaN),
    enterAt: m((r) => r.cold.enterAt ?? NaN),
    afterEnter: m((r) => (r.cold.enterAt == null ? NaN : r.cold.answer - r.cold.enterAt)),
    runs: runs.length,
    failed: runs.reduce((n, r) => n + [r.cold, r.warm].filter((v) => v.failed).length, 0),
  };
}

function reportLinks(w, byProfile, opt) {
  const r = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "—");
  for (const [profile, pages] of Object.entries(byProfile)) {
    if (!LINKS.some((d) => pages[d.key])) continue;
    w(`${profile} (${PROFILES[profile].label}) — shared links`);
    w(`  ${pad("", 24)}${lpad("cold", 9)}${lpad("bytes", 10)}${lpad("data", 10)}${lpad("data req", 10)}${lpad("deltas", 8)}${lpad("warm", 9)}${lpad("wasm", 9)}${lpad("workers", 10)}${lpad("offline at", 12)}${lpad("copy", 10)}`);
    for (const def of LINKS) {
      const s = pages[def.key];
      if (!s) continue;
      w(`  ${pad(def.label, 24)}${lpad(ms(s.cold), 9)}${lpad(kb(s.bytes), 10)}${lpad(kb(s.dataBytes), 10)}${lpad(count(s.dataRequests), 10)}${lpad(count(s.deltas), 8)}${lpad(ms(s.warm), 9)}${lpad(mb(s.pageWasm), 9)}${lpad(mb(s.workerWasm), 10)}${lpad(ms(s.offlineAt), 12)}${lpad(mb(s.offlineBytes), 10)}${s.failed ? `  (${s.failed} visit(s) failed)` : ""}`);
    }
    const [ia, ip, qa, qp, en, ep] = ["id-app", "id-api", "q-app", "q-api", "enter-app", "enter-api"].map((k) => pages[k]);
    if (ia && ip) w(`  ?id= app / API: cold ${r(ia.cold, ip.cold)} (target ≤ 5×), warm ${r(ia.warm, ip.warm)} (≤ 1.5×)`);
    if (qa && qp) w(`  ?q= app / API: cold ${r(qa.cold, qp.cold)} (target ≤ 6×), warm ${r(qa.warm, qp.warm)} (≤ 1.5×)`);
    if (ia && Number.isFinite(ia.record)) w(`  ?id= app: the full record (every field) painted at ${ms(ia.record)}`);
    if (en || ep) w(`  front door: Enter ${opt.enter === "suggested" ? "once the organization is suggested (≤ 10 s after the typing)" : "one key interval after the typing (--enter typed)"}`);
    for (const [label, e] of [["app", en], ["API page", ep]])
      if (e) w(`  front door, ${pad(label + ":", 10)} box usable ${ms(e.usable)}, "${ENTER.name}" suggested in ${e.suggested} of ${e.runs} cold visit(s) (painted at ${ms(e.suggest)}), Enter at ${ms(e.enterAt)}, results at ${ms(e.cold)} (${ms(e.afterEnter)} after Enter)`);
    if (en && ep) {
      const verdict = (ok) => (ok ? "met" : "NOT met");
      w(`  front door app / API page (issue #38): box usable ${ms(en.usable)} vs ${ms(ep.usable)} (≤ API + 100 ms: ${verdict(en.usable <= ep.usable + 100)}),` +
        ` first suggestion ${Number.isFinite(en.suggest / ep.suggest) ? `${r(en.suggest, ep.suggest)} (≤ 1.5×: ${verdict(en.suggest <= 1.5 * ep.suggest)})` : "— (not shown before Enter on both pages: measured with --enter suggested)"}, results ${r(en.cold, ep.cold)} (≤ 2×: ${verdict(en.cold <= 2 * ep.cold)}); warm results ${r(en.warm, ep.warm)}`);
    }
  }
}

// ---------------------------------------------------------------- report
const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : "—");
const kb = (x) => (Number.isFinite(x) ? `${(x / 1024).toFixed(0)} KB` : "—");
const mb = (x) => (Number.isFinite(x) ? `${(x / 1048576).toFixed(1)} MB` : "—");
const count = (x) => (Number.isFinite(x) ? String(x) : "—");
const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);

function summarize(runs) {
  const m = (f) => median(runs.map(f));
  return {
    cold: m((r) => r.cold.painted),
    usable: m((r) => r.cold.usable),
    coldBytes: m((r) => r.cold.bytes),
    dataBytes: m((r) => r.cold.dataBytes),
    deltas: m((r) => r.cold.deltas),
    warm: m((r) => r.warm.painted),
    warmBytes: m((r) => r.warm.bytes),
    late: m((r) => r.late.painted - LATE_MS),
    pageHeap: m((r) => r.cold.pageHeap),
    workerHeap: m((r) => r.cold.workerHeap),
    pageWasm: m((r) => r.cold.pageWasm),
    workerWasm: m((r) => r.cold.workerWasm),
    failed: runs.reduce((n, r) => n + [r.cold, r.warm, r.late].filter((v) => v.failed).length, 0),
  };
}

function report(opt, results, meta) {
  const out = [];
  const w = (s = "") => out.push(s);
  w(`=== cold-start benchmark — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC — Chromium ${meta.version} (headless), ${os.cpus().length} cores, load ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} ===`);
  w(`targets typed (${opt.keyDelay} ms between keys; run r types target r mod ${TARGETS.length}): ${TARGETS.map((t) => `"${t.query}" → ${t.name}`).join(", ")}`);
  w(`medians over ${opt.runs} run(s)${opt.apiRuns !== opt.runs ? ` (the API page: ${opt.apiRuns})` : ""}; painted = navigation → the target's name painted in the listbox; late = typing from ${LATE_MS / 1000} s, reported after that mark`);
  for (const { scale, info, byProfile } of results) {
    w();
    w(`--- ×${scale}: ${info.records.toLocaleString("en")} records (site ${path.relative(ROOT, info.site)}; summary+names ${kb(info.typeaheadBytes)}${info.flex ? `, FlexSearch export ${kb(info.flexBrotli)} brotli in ${info.flex.chunks} chunks` : ""}) ---`);
    w(`widget code (registry-picker.js and the ui/ files it names: JS, wasm, CSS), brotli: ${info.widgetCode.toLocaleString("en")} B (target ≤ 220 KB)`);
    for (const [profile, pages] of Object.entries(byProfile)) {
      if (!PAGES.some((d) => pages[d.key])) continue;
      w(`${profile} (${PROFILES[profile].label})`);
      w(`  ${pad("", 26)}${lpad("cold", 9)}${lpad("usable", 9)}${lpad("bytes", 10)}${lpad("data", 10)}${lpad("deltas", 8)}${lpad("warm", 9)}${lpad("bytes", 10)}${lpad("late", 9)}${lpad("JS heap", 10)}${lpad("workers", 10)}${lpad("wasm", 9)}${lpad("workers", 10)}`);
      for (const def of PAGES) {
        const s = pages[def.key];
        if (!s) continue;
        w(`  ${pad(def.label, 26)}${lpad(ms(s.cold), 9)}${lpad(ms(s.usable), 9)}${lpad(kb(s.coldBytes), 10)}${lpad(kb(s.dataBytes), 10)}${lpad(count(s.deltas), 8)}${lpad(ms(s.warm), 9)}${lpad(kb(s.warmBytes), 10)}${lpad(ms(s.late), 9)}${lpad(mb(s.pageHeap), 10)}${lpad(mb(s.workerHeap), 10)}${lpad(mb(s.pageWasm), 9)}${lpad(mb(s.workerWasm), 10)}${s.failed ? `  (${s.failed} visit(s) failed)` : ""}`);
      }
      const W = pages.widget, A = pages.api;
      if (!W || !A) continue;
      const r = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "—");
      const verdict = (ok) => (ok ? "met" : "NOT met");
      w(`  widget / API: cold ${r(W.cold, A.cold)} (issue #21: ≤ 2.3× on mobile, aim 2.0×: ${verdict(W.cold <= 2.3 * A.cold)}), warm ${r(W.warm, A.warm)} (≤ 1.0×: ${verdict(W.warm <= A.warm)}),` +
        ` late ${r(W.late, A.late)} (≤ 0.5×: ${verdict(W.late <= 0.5 * A.late)}), usable ${ms(W.usable)} vs ${ms(A.usable)} (≤ 1.1× API + 100 ms = ${ms(1.1 * A.usable + 100)}: ${verdict(W.usable <= 1.1 * A.usable + 100)})`);
    }
  }
  for (const { scale, info, byProfile } of results) {
    if (!Object.values(byProfile).some((pages) => LINKS.some((d) => pages[d.key]))) continue;
    w();
    w(`--- ×${scale}: shared links (?id=${LINK_ID}, ?q=${LINK_Q}; site ${path.relative(ROOT, info.site)}) ---`);
    reportLinks(w, byProfile, opt);
  }
  w();
  w("shared links: cold = navigation → the record's name (id), the first row and the facet counts (q), the first row after Enter (enter) painted;");
  w('front door (enter): usable = the search box painted; suggested = "University of Cambridge" first painted in its list while typing; results = the first row painted after Enter;');
  w("data = bytes of /data/ requests before it; offline at = the app's cold visit until the service worker's copy is complete; copy = its size.");
  w("cold/warm/late/usable: median page times (ms after navigation start; late: after the 4 s mark). bytes: encoded bytes (compressed bodies + headers)");
  w("received in requests finished before the target was painted (warm: same profile, second visit); data: of them, /data/ requests;");
  w("deltas: pack ranges read as a delta from a kept base (a site built with --previous), cold visit. JS heap: the page's V8 heap used");
  w("after a GC, right after the paint (cold visit); workers: the same summed over its Web Workers; wasm: byteLength of every live");
  w("WebAssembly.Memory (Runtime.queryObjects), in the page and summed over its Workers.");
  if (meta.errors.length) w(`page errors: ${meta.errors.slice(0, 5).join(" | ")}`);
  w(`finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log(out.join("\n"));
}

// ---------------------------------------------------------------- main
async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const app = path.join(ROOT, "target/cold-app");
  if (!opt.siteDirs) {
    log(`building the app into ${path.relative(ROOT, app)} (scripts/build-web.sh) …`);
    await run("bash", ["scripts/build-web.sh"], { OUT: app });
  }
  const results = [];
  const meta = { errors: [], version: "?" };
  for (const [i, scale] of opt.scales.entries()) {
    const infos = opt.siteDirs ? opt.siteDirs[i].map(givenSite) : [await prepareScale(opt, scale, app)];
    const sites = [];
    for (const info of infos) sites.push({ info, server: await serveSite(info, scale), byProfile: {} });
    for (const profile of opt.profiles) await measureProfile(sites, scale, profile, opt, meta);
    for (const { info, byProfile } of sites) results.push({ scale, info, byProfile });
    await cleanup();
  }
  const probeBrowser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  meta.version = probeBrowser.version();
  await probeBrowser.close();
  report(opt, results, meta);
}

/** `registry serve` over the site's data and the static server for it; fills in the figures the report gives of the site. */
async function serveSite(info, scale) {
  log(`×${scale}: ${info.records} records${info.flex ? `, FlexSearch ${info.flex.docs} documents in ${info.flex.chunks} chunks` : ""}; starting registry serve …`);
  const apiOrigin = await startApi(path.join(info.site, "data"));
  log("precompressing (brotli) …");
  const flexLib = path.join(ROOT, "node_modules/flexsearch/dist");
  const server = await startServer({
    mounts: { "/site/": info.site, "/cold/": path.join(ROOT, "tests/bench/cold/pages"), ...(info.flexDir ? { "/flex/": info.flexDir, "/nm/": flexLib } : {}) },
    apiOrigin,
  });
  cleanups.push(() => server.close());
  const sizeOf = (prefix) => [...server.files].filter(([u]) => u.startsWith(prefix)).reduce((n, [, f]) => n + (f.br ?? f.body).length, 0);
  info.flexBrotli = sizeOf("/flex/");
  info.typeaheadBytes = info.manifest.files.filter((f) => f.sections.length === 1 && ["summary", "names"].includes(f.sections[0])).reduce((n, f) => n + f.bytes, 0);
  info.widgetCode = widgetCodeBytes(info.site);
  log(`serving ${server.url} (site ${path.relative(ROOT, info.site)}, API ${apiOrigin})`);
  const rec = await (await fetch(`${apiOrigin}/v2/organizations/${LINK_ID}`)).json();
  info.linkName = (rec.names ?? []).find((n) => n.types.includes("ror_display") || n.types.includes("registry_display"))?.value ?? "?";
  return server;
}

/**
 * Every page of one profile on each site of a scale. A visit is made on
 * every site before the next one, so that a change of the machine's load
 * between runs weighs on all the sites alike.
 */
async function measureProfile(sites, scale, profile, opt, meta) {
  const label = (info) => (sites.length > 1 ? ` ${path.relative(ROOT, info.site)}` : "");
  const runs = sites.map(() => Object.fromEntries(PAGES.map((p) => [p.key, []])));
  // The API page's time is the typing's plus one round trip, so the
  // jitter of when typing starts weighs on it most: --api-runs gives it more runs.
  const runsOf = (def) => (def.key === "api" ? opt.apiRuns : opt.runs);
  for (let r = 0; r < Math.max(opt.runs, opt.apiRuns); r++) {
    const target = TARGETS[r % TARGETS.length];
    for (const def of PAGES.filter((d) => opt.pages.includes(d.key) && r < runsOf(d))) {
      for (const [s, { info, server }] of sites.entries()) {
        log(`×${scale}${label(info)} ${profile} run ${r + 1}/${runsOf(def)}: ${def.key}, "${target.query}" …`);
        const m = await measurePage(server, def, target, profile, opt);
        for (const v of [m.cold, m.warm, m.late]) meta.errors.push(...v.errors.map((e) => `${def.key}: ${e}`));
        const f = (v) => (v.failed ? "failed" : `${Math.round(v.painted)} ms, ${(v.bytes / 1024).toFixed(0)} KB`);
        log(`  cold ${f(m.cold)} (${m.cold.failed ? "" : `data ${(m.cold.dataBytes / 1024).toFixed(0)} KB, `}usable ${Math.round(m.cold.usable)} ms${m.cold.deltas ? `, ${m.cold.deltas} delta(s)` : ""}) · warm ${f(m.warm)} · late ${m.late.failed ? "failed" : Math.round(m.late.painted - LATE_MS) + " ms"}`);
        runs[s][def.key].push(m);
      }
    }
  }
  for (const [s, site] of sites.entries())
    site.byProfile[profile] = Object.fromEntries(Object.entries(runs[s]).filter(([, v]) => v.length).map(([k, v]) => [k, summarize(v)]));
  for (const def of LINKS.filter((d) => opt.pages.includes(d.key))) {
    const linkRuns = sites.map(() => []);
    for (let r = 0; r < opt.runs; r++) {
      for (const [s, { info, server }] of sites.entries()) {
        log(`×${scale}${label(info)} ${profile} run ${r + 1}/${opt.runs}: ${def.key} …`);
        const m = await measureLink(server, def, def.kind === "enter" ? ENTER.name : info.linkName, profile, opt);
        for (const v of [m.cold, m.warm]) meta.errors.push(...v.errors.map((e) => `${def.key}: ${e}`));
        const f = (v) => (v.failed ? "failed" : `${Math.round(v.answer)} ms, ${(v.bytes / 1024).toFixed(0)} KB (data ${(v.dataBytes / 1024).toFixed(0)} KB${v.deltas ? `, ${v.deltas} delta(s)` : ""})`);
        log(`  cold ${f(m.cold)}${m.cold.offlineAt ? ` · offline-ready ${Math.round(m.cold.offlineAt)} ms` : ""} · warm ${f(m.warm)}`);
        linkRuns[s].push(m);
      }
    }
    for (const [s, site] of sites.entries()) site.byProfile[profile][def.key] = summarizeLinks(linkRuns[s]);
  }
}

main().then(
  () => process.exit(0),
  async (e) => {
    console.error(`cold-start: ${e?.stack ?? e}`);
    await cleanup();
    process.exit(1);
  },
);
