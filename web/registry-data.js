// Fetching shard files named in a manifest, with SHA-256 verification.
// Shared by the Worker and the service worker (which also import
// registry-pieces.js themselves, so it is fetched beside this file, not after).
// The manifest is read by the one reader of the runtime (registry-pieces.js),
// re-exported here.
import { BYTE_CAPS, fetchManifest, newerRelease, readCapped, sha256Hex } from "./registry-pieces.js";
export { fetchManifest };

/**
 * The manifest entries that hold `sections`. ["all"] = every section, as the
 * three per-section files when the manifest has them (so the browser, the
 * service worker's cache and typeahead mode share the same files), else the
 * single full file.
 */
export function pickFiles(manifest, sections) {
  const single = (s) => manifest.files.find((x) => x.sections.length === 1 && x.sections[0] === s);
  if (sections.includes("all")) {
    const parts = ["summary", "names", "records"].map(single);
    if (parts.every(Boolean)) return parts;
    const full = manifest.files.find((f) => f.sections.length >= 3 && f.sections.includes("records"));
    if (!full) throw new Error("the manifest lists neither section files nor a full shard file");
    return [full];
  }
  return sections.map((s) => {
    const f = single(s);
    if (!f) throw new Error(`the manifest lists no '${s}' file`);
    return f;
  });
}

/**
 * Fetches and verifies one file; throws naming the file on any mismatch.
 * An installed PWA that updated by a delta holds the file's stored image
 * instead (sw.js: the same sections, uncompressed), which the manifest
 * names by its own size and SHA-256 (`entry.stored`).
 */
export async function fetchVerified(dataUrl, entry) {
  const url = new URL(entry.name, dataUrl);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
  const sizes = [entry.bytes, entry.stored?.bytes].filter((n) => n != null);
  // Reading stops past the size the manifest states: a longer body is wrong anyway.
  const bytes = await readCapped(res, Math.min(Math.max(...sizes), BYTE_CAPS.section), `${entry.name} (the manifest says ${entry.bytes} bytes)`);
  if (!sizes.includes(bytes.length)) throw new Error(`${entry.name}: ${bytes.length} bytes, the manifest says ${entry.bytes}`);
  const hash = await sha256Hex(bytes);
  if (hash !== entry.sha256 && hash !== entry.stored?.sha256)
    throw new Error(`${entry.name}: SHA-256 mismatch (damaged download or stale cache)`);
  return bytes;
}

/**
 * Loads the files holding `sections` for the release in `manifest`
 * (fetched when not given). When a file of a given manifest cannot be
 * had and the folder now holds another release (a deploy while the page
 * was open: the old release's files are gone), the new release's files
 * are loaded instead: the answer's `manifest` is then not the one given,
 * and files loaded earlier from the old one must not be mixed with these.
 */
export async function loadShardFiles(dataUrl, sections, manifest) {
  manifest ??= await fetchManifest(dataUrl);
  const entries = pickFiles(manifest, sections);
  try {
    const files = await Promise.all(entries.map((e) => fetchVerified(dataUrl, e)));
    return { manifest, files };
  } catch (e) {
    const newer = await newerRelease(manifest, dataUrl);
    if (!newer) throw e;
    return loadShardFiles(dataUrl, sections, newer.manifest);
  }
}
