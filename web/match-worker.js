// Matches a list of affiliation strings off the main thread, with the
// registry wasm and data files the site already ships: the strings never
// leave the browser, and the page stays responsive while thousands are
// matched. Each answer is the router's E4 answer (`/v2/organizations?
// affiliation=…`, the same as the API and `registry match`) reduced to what
// a person reviewing the list needs, so full records are never posted back.
//
// Protocol: {type: "open", dataUrl} → {type: "opened", records, release};
// {type: "match", seq, start, texts} → {type: "matched", seq, start, results}, one
// result per text: {candidates: [{id, name, score, chosen, matching_type,
// place}], error}; a failure → {type: "error", seq, message} (seq, the
// request's number, lets the page drop answers to a run it cancelled).
import init, { Registry } from "./pkg/registry_wasm.js";
import { loadShardFiles } from "./registry-data.js";

/** Longer strings are reported, not matched (as `registry match` does). */
const MAX_BYTES = 4096;
/** Candidates kept per string: enough to pick from. */
const KEEP = 5;

let registry = null;
const encoder = new TextEncoder();

async function open(dataUrl) {
  await init({ module_or_path: new URL("./pkg/registry_wasm_bg.wasm", import.meta.url) });
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

self.onmessage = async ({ data }) => {
  try {
    if (data.type === "open") self.postMessage({ type: "opened", ...(await open(data.dataUrl)) });
    else if (data.type === "match") {
      if (!registry) throw new Error("the registry is not open yet");
      self.postMessage({ type: "matched", seq: data.seq, start: data.start, results: data.texts.map(matchOne) });
    }
  } catch (e) {
    self.postMessage({ type: "error", seq: data?.seq, message: e?.message ?? String(e) });
  }
};
