// Matches a list of affiliation strings off the main thread, with the
// registry wasm and data files the site already ships: the strings never
// leave the browser, and the page stays responsive while thousands are
// matched. Each answer is the router's E4 answer (`/v2/organizations?
// affiliation=…`, the same as the API and `registry match`) reduced to what
// a person reviewing the list needs, so full records are never posted back.
// It also tells the page how a file is laid out and which column to match,
// by the core's rule that `registry match` follows (the wasm's listLayout
// and guessColumn), so both read a file the same way.
//
// Protocol (seq, the request's number, comes back with its answer, so the
// page can drop answers to a run it cancelled):
// {type: "open", seq, dataUrl} → {type: "opened", seq, records, release};
// {type: "layout", seq, name, head} → {type: "layout", seq, delimiter}
// (",", ";", "\t", or undefined for one string a line; head is the start of
// the file, at least its first line that is not blank);
// {type: "column", seq, header, filled} → {type: "column", seq, column};
// {type: "match", seq, start, texts} → {type: "matched", seq, start, results}, one
// result per text: {candidates: [{id, name, score, chosen, matching_type,
// place}], error}; a failure → {type: "error", seq, message}.
import init, { Registry, listLayout, guessColumn } from "./pkg/registry_wasm.js";
import { loadShardFiles } from "./registry-data.js";

/** Longer strings are reported, not matched (as `registry match` does). */
const MAX_BYTES = 4096;
/** Candidates kept per string: enough to pick from. */
const KEEP = 5;

let registry = null;
const encoder = new TextEncoder();
let wasmReady = null;
/** The wasm, loaded once: reading a file needs it before any data is. */
const wasm = () => (wasmReady ??= init({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) }));

async function open(dataUrl) {
  await wasm();
  const { manifest, files } = await loadShardFiles(dataUrl, ["all"]);
  registry = files.length === 1 ? new Registry(files[0]) : Registry.fromFiles(files);
  return { records: registry.info().recordCount, release: manifest.release };
}

const displayName = (org) =>
  (org.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display")) ?? org.names[0])?.value ?? org.id;

/** "City, Country" of a location (the spec's `geo_details`; upstream's spelling also read). */
function place(location) {
  const g = location?.geo_details ?? location?.geonames_details;
  return [g?.name, g?.country_name].filter(Boolean).join(", ");
}

function matchOne(text) {
  const bytes = encoder.encode(text).length;
  if (bytes > MAX_BYTES) return { candidates: [], error: `${bytes} bytes, longer than an affiliation string can be (at most ${MAX_BYTES}); not matched` };
  if (!text.trim()) return { candidates: [] };
  const { status, body } = registry.request(`/v2/organizations?affiliation=${encodeURIComponent(text)}`);
  const answer = JSON.parse(body);
  if (status !== 200) return { candidates: [], error: answer.errors?.join("; ") ?? `status ${status}` };
  return {
    candidates: answer.items.slice(0, KEEP).map((item) => ({
      id: item.organization.id,
      name: displayName(item.organization),
      score: item.score,
      chosen: item.chosen,
      matching_type: item.matching_type,
      place: place(item.organization.locations?.[0]),
    })),
  };
}

/** The answer to one request of the page. */
async function answer(data) {
  switch (data.type) {
    case "open":
      return { type: "opened", ...(await open(data.dataUrl)) };
    case "layout":
      await wasm();
      return { type: "layout", delimiter: listLayout(data.name, data.head) };
    case "column":
      await wasm();
      return { type: "column", column: guessColumn(data.header, Uint8Array.from(data.filled, Number)) };
    case "match":
      if (!registry) throw new Error("the registry is not open yet");
      return { type: "matched", start: data.start, results: data.texts.map(matchOne) };
    default:
      throw new Error(`unknown request ${data.type}`);
  }
}

self.onmessage = async ({ data }) => {
  try {
    self.postMessage({ ...(await answer(data)), seq: data.seq });
  } catch (e) {
    self.postMessage({ type: "error", seq: data?.seq, message: e?.message ?? String(e) });
  }
};
