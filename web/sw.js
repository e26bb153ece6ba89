// Service worker: offline app, local answers for the API URLs, atomic data
// updates. Registered as a module worker from the site root:
//   navigator.serviceWorker.register("./sw.js", { type: "module" })
//
// * GET <scope>v1/organizations…, v2/organizations…, organizations… (and
//   v2/heartbeat, and another version's path, `v3/…`, for its JSON error) are
//   answered by the local registry (the same router, status codes and JSON as
//   every other front end), online or offline. Until the offline copy of
//   the data is complete, a URL naming one record is answered from its
//   record piece (a few kilobytes, registry-pieces.js RecordPieces), and a
//   results page (`?query=…`) from the E2 pieces (registry-search.js) and
//   its records' pieces, instead of waiting for the whole data; what the
//   pieces cannot answer exactly waits for it.
// * The offline copy is downloaded at install, which the page asks for
//   once it has shown its answer and is idle (index.html): it never
//   competes with the answer's bytes.
// * Data files are content-hashed and immutable; a data release lives in its
//   own cache "registry-data-<build id>". An update downloads and verifies
//   every file of the new release into a new cache and only then moves the
//   "current" pointer; a failed or partial download leaves the old release
//   working and removes the partial cache. A file for which the new
//   manifest lists a delta from the installed release's file is made from
//   it instead (a few percent of its bytes), checked by the same manifest.
// * App files: network first, cache fallback (offline after the first visit).
//   The app cache holds the app's own files (PRECACHE and app-files.json)
//   and nothing else: a URL with a query (`?q=…`, `?id=…`) never gets an
//   entry; offline, a navigation with a query is answered by its page
//   without the query (the app reads the query itself). This worker's own
//   wasm is cache first (wasmReady): the API URLs answer offline also after
//   the worker restarts offline.
// * The app's script, style, wasm and icon files are routed by the browser
//   (static routing, `addRoutes`: network raced against this worker), so
//   they never wait for this worker's thread while it computes an API
//   answer (a synchronous wasm call) or parses the whole data.
import init, { PiecesSearch, Registry, applyDelta } from "./pkg/registry_wasm.js";
import { fetchManifest, fetchVerified, pickFiles } from "./registry-data.js";
import { BYTE_CAPS, RecordPieces, listAnswer, readCappedJson, sha256Hex } from "./registry-pieces.js";
import { startPiecesSearch } from "./registry-search.js";

const ROOT = new URL("./", self.location.href);
const DATA = new URL("data/", ROOT);
const APP_CACHE = "registry-app";
const META_CACHE = "registry-meta";
const DATA_PREFIX = "registry-data-";
// The router's paths, and any other version's (`v3/…`), which the router
// answers with its JSON error rather than the app's plain 404.
const API = /^(v\d+(\/|$)|organizations(\/|$)|heartbeat$)/;
const CURRENT = new URL("__current", ROOT).href;

let registryPromise = null;

async function current() {
  const res = await (await caches.open(META_CACHE)).match(CURRENT);
  return res ? res.json() : null;
}

async function setCurrent(value) {
  const meta = await caches.open(META_CACHE);
  await meta.put(CURRENT, new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } }));
}

/**
 * Downloads a release into its own cache; resolves to its pointer, or throws
 * leaving nothing behind. A file the release held can be updated by a delta
 * is made from it (`byDelta`), any other is downloaded.
 */
async function download(manifest) {
  const name = DATA_PREFIX + manifest.build_id;
  const cache = await caches.open(name);
  const held = await heldRelease();
  try {
    for (const entry of pickFiles(manifest, ["all"])) {
      const url = new URL(entry.name, DATA).href;
      if (await cache.match(url)) continue;
      const bytes = (await byDelta(entry, held)) ?? (await fetchVerified(DATA, entry));
      await cache.put(url, new Response(bytes, { headers: { "content-type": "application/octet-stream" } }));
    }
    await keepMap();
    await cache.put(new URL("manifest.json", DATA).href, new Response(JSON.stringify(manifest), {
      headers: { "content-type": "application/json" },
    }));
    return { cache: name, build_id: manifest.build_id, release: manifest.release, record_count: manifest.record_count };
  } catch (e) {
    await caches.delete(name);
    throw e;
  }
}

/**
 * The world map (world-map.json, 83 KB brotli) joins the offline copy, so a
 * map shown for the first time offline is drawn: pages fetch it only when
 * they show a map, and this copy is made once a page has shown its answer.
 * A map that cannot be fetched leaves the data's copy as it is.
 */
async function keepMap() {
  const cache = await caches.open(APP_CACHE);
  const url = new URL("world-map.json", ROOT);
  if (await cache.match(url)) return;
  await cache.add(url).catch((e) => console.warn("registry: the world map was not saved for offline use:", e));
}

/** The installed release: its cache and manifest, or null. */
async function heldRelease() {
  const cur = await current();
  if (!cur) return null;
  const cache = await caches.open(cur.cache);
  const res = await cache.match(new URL("manifest.json", DATA).href);
  return res ? { cache, manifest: await res.json() } : null;
}

/**
 * The new file's stored image (its sections uncompressed, which loads as
 * the file does) made from the held release's file of the same sections
 * and the delta the new manifest lists from it: a few percent of the
 * file's bytes. Checked by the manifest's SHA-256 of the image, as a
 * download is by the file's. Null when no delta fits or one fails (the
 * caller downloads the file): a delta only ever saves bytes.
 */
async function byDelta(entry, held) {
  if (!held || !entry.stored || !entry.deltas?.length) return null;
  const old = held.manifest.files.find((f) => f.sections.join() === entry.sections.join());
  const delta = old && entry.deltas.find((d) => d.from === old.sha256);
  if (!delta || delta.bytes >= entry.bytes) return null;
  try {
    const res = await held.cache.match(new URL(old.name, DATA).href);
    if (!res) return null;
    const [oldBytes, deltaBytes] = await Promise.all([res.arrayBuffer(), fetchVerified(DATA, delta), wasmReady()]);
    const image = applyDelta(new Uint8Array(oldBytes), deltaBytes, entry.stored.bytes);
    if (image.length !== entry.stored.bytes || (await sha256Hex(image)) !== entry.stored.sha256)
      throw new Error("its result differs from the release's (SHA-256)");
    return image;
  } catch (e) {
    console.warn(`registry: the delta for ${entry.name} from release ${delta.from_release} was not used (${e.message}); downloading the file`);
    return null;
  }
}

async function dropOldData(keep) {
  for (const key of await caches.keys()) if (key.startsWith(DATA_PREFIX) && key !== keep) await caches.delete(key);
}

let staged = null; // a downloaded release waiting for the page's go-ahead

/**
 * Looks for a new release; downloads it in the background and tells the pages
 * (one check at a time). A check asked while one runs gets one more after it,
 * shared by every request meanwhile: the running one may have read the
 * manifest before the deploy the request is about.
 */
let checking = null;
let again = null;
function checkForUpdate() {
  if (!checking) {
    checking = check().finally(() => (checking = null));
    return checking;
  }
  again ??= checking
    .catch(() => {})
    .then(() => {
      again = null;
      return checkForUpdate();
    });
  return again;
}

async function check() {
  const manifest = await fetchManifest(DATA);
  const cur = await current();
  if (cur && cur.build_id === manifest.build_id) return { updateAvailable: false, release: cur.release };
  // Downloaded already by an earlier check, waiting for the page's go-ahead:
  // offered again, for the pages opened since that check was told.
  if (staged?.build_id === manifest.build_id) {
    await broadcast({ type: "update-ready", release: staged.release, record_count: staged.record_count });
    return { updateAvailable: true, release: staged.release };
  }
  const next = await download(manifest);
  if (!cur) {
    await setCurrent(next);
    return { updateAvailable: false, release: next.release };
  }
  staged = next;
  await broadcast({ type: "update-ready", release: next.release, record_count: next.record_count });
  return { updateAvailable: true, release: next.release };
}

async function applyUpdate() {
  if (!staged) return false;
  await setCurrent(staged);
  await dropOldData(staged.cache);
  registryPromise = null;
  await broadcast({ type: "data-updated", release: staged.release, record_count: staged.record_count });
  staged = null;
  return true;
}

async function broadcast(message) {
  for (const client of await self.clients.matchAll({ includeUncontrolled: true })) client.postMessage(message);
}

// The registry's wasm, from the app cache first: this worker's own fetch()
// never passes through its fetch handler, so a URL given to init() would go
// to the network, and after a restart while offline no API URL could be
// answered. The cached copy is the one install fetched with this worker's
// modules (or a page's later fetch of the same file); one that does not
// instantiate with them (a deploy caught between install and activate) is
// fetched again. Its modules (pkg/registry_wasm.js and the others imported
// above) need nothing here: the browser stores a module worker's imports
// with the worker and starts it from them, online or not.
const WASM = new URL("./pkg/registry_wasm_bg.wasm", ROOT).href;
let wasmPromise = null;
function wasmReady() {
  wasmPromise ??= (async () => {
    const cache = await caches.open(APP_CACHE);
    const hit = await cache.match(WASM);
    if (hit) {
      try {
        return await init({ module_or_path: hit });
      } catch (e) {
        console.warn("registry: the cached wasm did not load, fetching it:", e);
      }
    }
    const res = await fetch(WASM);
    // A precached file install missed (it tolerates failures) is kept now.
    if (!hit && res.ok) await cache.put(WASM, res.clone()).catch(() => {});
    return init({ module_or_path: res });
  })();
  wasmPromise.catch(() => (wasmPromise = null));
  return wasmPromise;
}

async function loadRegistry() {
  await wasmReady();
  let cur = await current();
  if (!cur) {
    await checkForUpdate();
    cur = await current();
  }
  const cache = await caches.open(cur.cache);
  const manifest = await (await cache.match(new URL("manifest.json", DATA).href)).json();
  const files = [];
  for (const entry of pickFiles(manifest, ["all"])) {
    const res = await cache.match(new URL(entry.name, DATA).href);
    if (!res) throw new Error("the cached data release is incomplete");
    files.push(new Uint8Array(await res.arrayBuffer()));
  }
  return { registry: Registry.fromFiles(files), release: cur.release };
}

// Answers from the server's current release's pieces, for the time the
// offline copy is not complete (a first visit): record pages and results.
let piecesPromise = null;
function serverPieces() {
  piecesPromise ??= (async () => {
    const manifest = await fetchManifest(DATA);
    const module = wasmReady().then(() => ({ PiecesSearch, Registry, applyDelta }));
    module.catch(() => {});
    const search = manifest.pieces?.search?.stats ? startPiecesSearch({ dataUrl: DATA, manifest, wasm: module }) : null;
    return { manifest, search, records: new RecordPieces(DATA, manifest, () => module) };
  })();
  piecesPromise.catch(() => (piecesPromise = null));
  return piecesPromise;
}

/** `{status, body, release}` from pieces, or null when the whole registry must answer. */
async function answerFromPieces(pathAndQuery) {
  try {
    const { manifest, search, records } = await serverPieces();
    const answer = (await records.answer(pathAndQuery)) ?? (search && (await listAnswer(pathAndQuery, search, records)));
    return answer && { ...answer, release: manifest.release };
  } catch {
    return null; // offline, or data without pieces: the whole registry answers
  }
}

async function answerApi(url) {
  const rel = url.pathname.slice(ROOT.pathname.length);
  const pathAndQuery = "/" + rel + url.search;
  const json = (status, body, release) =>
    new Response(body, { status, headers: { "content-type": "application/json; charset=utf-8", "x-registry-release": release } });
  if (!registryPromise && !(await current())) {
    const answer = await answerFromPieces(pathAndQuery);
    if (answer) return json(answer.status, answer.body, answer.release);
  }
  registryPromise ??= loadRegistry().catch((e) => {
    registryPromise = null;
    throw e;
  });
  try {
    const { registry, release } = await registryPromise;
    const { status, body } = registry.request(pathAndQuery);
    return json(status, body, release);
  } catch (e) {
    const body = JSON.stringify({ errors: [`the local registry is unavailable: ${e.message}`] });
    return new Response(body, { status: 503, headers: { "content-type": "application/json; charset=utf-8" } });
  }
}

async function appFile(request) {
  const cache = await caches.open(APP_CACHE);
  // A page is one entry whatever its query; a file with a query (a
  // cache-buster) is not the app's file.
  const url = new URL(request.url);
  const key = request.mode === "navigate" ? url.origin + url.pathname : url.search ? null : url.href;
  try {
    const res = await fetch(request);
    // Only entries install made are refreshed: the cache holds the app's files, nothing a visitor's URLs add;
    // and the map file, fetched only when a map is shown: kept then, so what was shown works offline.
    if (res.ok && key && (key === new URL("world-map.json", ROOT).href || (await cache.match(key)))) await cache.put(key, res.clone());
    return res;
  } catch (e) {
    const hit = key && (await cache.match(key));
    if (hit) return hit;
    throw e;
  }
}

// The installed release answers every data URL, its manifest included: the
// page's Worker and the API URLs then use the same release until the user
// applies an update (checkForUpdate fetches the server's manifest itself).
async function dataFile(request) {
  const cur = await current();
  if (cur) {
    const hit = await (await caches.open(cur.cache)).match(request.url);
    if (hit) return hit;
  }
  return fetch(request);
}

const PRECACHE = [
  "./", "./index.html", "./registry.js", "./registry-worker.js", "./registry-data.js", "./registry-pieces.js", "./sw-control.js",
  "./registry-map.js", "./registry-world.js", "./registry-draw.js", "./registry-years.js", "./registry-dots.js", "./pkg/registry_wasm.js", "./pkg/registry_wasm_bg.wasm",
  // The "Match a list" page and its Worker (the data they read is the offline copy's).
  "./match.html", "./match.js", "./match-worker.js",
];

// Files whose answer never needs this worker's thread while it is online.
const STATIC_ROUTES = ["ui/*", "pkg/*", "icons/*", "*.js", "*.css", "*.webmanifest"];

self.addEventListener("install", (event) => {
  // Where static routing is missing (other browsers), the fetch handler
  // answers these as before.
  if (event.addRoutes && globalThis.URLPattern)
    event.waitUntil(
      event
        .addRoutes(STATIC_ROUTES.map((p) => ({ condition: { urlPattern: new URLPattern({ pathname: ROOT.pathname + p }) }, source: "race-network-and-fetch-handler" })))
        .catch((e) => console.warn("registry: static routes not set, the fetch handler serves app files:", e)),
    );
  event.waitUntil((async () => {
    const cache = await caches.open(APP_CACHE);
    await Promise.allSettled(PRECACHE.map((p) => cache.add(new URL(p, ROOT))));
    let extra = [];
    try {
      const res = await fetch(new URL("app-files.json", ROOT), { cache: "no-cache" });
      extra = await readCappedJson(res, BYTE_CAPS.manifest, "app-files.json");
    } catch {}
    await Promise.allSettled(extra.map((p) => cache.add(new URL(p, ROOT))));
    // The world map (registry-map.js) when this visit has already fetched
    // it; else it comes with the offline copy of the data (keepMap).
    await cache.add(new Request(new URL("world-map.json", ROOT), { cache: "only-if-cached", mode: "same-origin" })).catch(() => {});
    // The data is not downloaded here: a page asks for it ("check-update")
    // once it controls the page, and meanwhile record URLs are answered
    // from their pieces; an API URL that needs the whole data downloads it
    // (loadRegistry).
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const cur = await current();
    if (cur) await dropOldData(cur.cache);
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== ROOT.origin || !url.pathname.startsWith(ROOT.pathname)) return;
  const rel = url.pathname.slice(ROOT.pathname.length);
  if (API.test(rel)) event.respondWith(answerApi(url));
  else if (url.href.startsWith(DATA.href)) event.respondWith(dataFile(event.request));
  else event.respondWith(appFile(event.request));
});

self.addEventListener("message", (event) => {
  // The reply echoes the request's `id`, so a page can tell its answer from another request's.
  const reply = (value) => event.source?.postMessage({ type: `${event.data?.type}-result`, id: event.data?.id, ...value });
  if (event.data?.type === "check-update")
    event.waitUntil(checkForUpdate().then(reply, (e) => reply({ error: e.message })));
  else if (event.data?.type === "apply-update") event.waitUntil(applyUpdate().then((applied) => reply({ applied })));
  // A page that loaded while this worker was activating is not controlled until claimed.
  else if (event.data?.type === "claim") event.waitUntil(self.clients.claim());
});
