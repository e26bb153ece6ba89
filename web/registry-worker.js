// Runs the registry in a Web Worker so the page never freezes while shard
// files are fetched, verified, decompressed and indexed.
//
// Protocol: the page posts {id, method, args}; the worker answers
// {id, ok: true, value} or {id, ok: false, error: {name, message}}.
// The first message must be {method: "open", args: [{dataUrl, mode}]}.
import init, { Registry } from "./pkg/registry_wasm.js";
import { loadShardFiles } from "./registry-data.js";
import "./registry-pieces.js"; // registry-data.js's import, listed here so it is fetched in parallel

let registry = null;
let openInfo = null;

async function open({ dataUrl, mode = "full", wasmUrl }) {
  await init({ module_or_path: wasmUrl ?? new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) });
  const started = performance.now();
  const { manifest, files } = await loadShardFiles(dataUrl, mode === "typeahead" ? ["summary", "names"] : ["all"]);
  registry = files.length === 1 ? new Registry(files[0]) : Registry.fromFiles(files);
  openInfo = { dataUrl, manifest };
  warmSoon();
  return { ...registry.info(), manifest, readyMs: performance.now() - started, bytes: files.reduce((n, f) => n + f.length, 0) };
}

// The registry of another release of the folder: every section the one
// held had, plus `section`; what the page was told at `open` is updated
// by the `release` message.
async function reopen(manifest, section) {
  const had = registry.info().hasRecords || section === "records";
  const { files } = await loadShardFiles(openInfo.dataUrl, had ? ["all"] : ["summary", "names"], manifest);
  const next = files.length === 1 ? new Registry(files[0]) : Registry.fromFiles(files);
  if (section === "domains") next.addDomains((await loadShardFiles(openInfo.dataUrl, ["domains"], manifest)).files[0]);
  const from = openInfo.manifest.release;
  registry.free?.();
  registry = next;
  openInfo = { ...openInfo, manifest };
  warmSoon();
  self.postMessage({ event: "release", from, to: manifest.release, info: { ...registry.info(), manifest } });
}

// With full records, build the external-id tables right after this message
// is answered rather than during the first id-like query (tens of ms; the
// worker is off the main thread, and messages queued meanwhile just wait).
function warmSoon() {
  if (!registry.info().hasRecords) return;
  const r = registry;
  setTimeout(() => {
    if (registry === r) r.warm();
  }, 0);
}

// Sections loaded after opening in typeahead mode, one download each at a
// time: the records when a method needs them, the domains when a suggest
// has an e-mail context (format 2's small domains file).
const pending = new Map(); // section → Promise while it downloads
async function ensureSection(section, present, add) {
  if (present()) return;
  if (!pending.has(section))
    pending.set(
      section,
      loadShardFiles(openInfo.dataUrl, [section], openInfo.manifest).then(async ({ manifest, files }) => {
        // The folder holds another release now (a deploy since `open`):
        // its sections do not fit the ones held, so all are loaded anew.
        if (manifest !== openInfo.manifest) await reopen(manifest, section);
        else add(files[0]);
      }),
    );
  try {
    await pending.get(section);
  } finally {
    pending.delete(section);
  }
}
const ensureRecords = () =>
  ensureSection("records", () => registry.info().hasRecords, (file) => {
    registry.addRecords(file);
    warmSoon();
  });
const ensureDomains = () => ensureSection("domains", () => registry.hasDomains(), (file) => registry.addDomains(file));

const NEEDS_RECORDS = new Set(["get", "request", "search", "advanced", "affiliation"]);

self.onmessage = async ({ data: { id, method, args = [] } }) => {
  try {
    let value;
    if (method === "open") value = await open(...args);
    else {
      if (!registry) throw new Error("the registry is not open yet");
      if (typeof registry[method] !== "function" || method.startsWith("_") || method === "free")
        throw new Error(`unknown method '${method}'`);
      // Typeahead mode: an external id (ISNI, GRID, Wikidata, FundRef) is
      // only in the records, so such a suggest loads them first.
      if (NEEDS_RECORDS.has(method) || (method === "suggest" && registry.suggestNeedsRecords(String(args[0] ?? ""))))
        await ensureRecords();
      if (method === "suggest" && args[1]?.emailDomain) await ensureDomains();
      value = registry[method](...args);
    }
    self.postMessage({ id, ok: true, value });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { name: e?.name ?? "Error", message: e?.message ?? String(e) } });
  }
};
