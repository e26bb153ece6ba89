// FlexSearch as a static typeahead: the index is built and exported in Node,
// written as content-hashed chunk files (immutable on the host) plus a small
// index.json naming them (revalidated), and imported by flex.html on load.
// Same index setup as tests/bench/browser-bench.mjs: one document per
// distinct name of every record, id = record index × 32 + name ordinal.
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { Index, Charset } from "flexsearch";

const NAMES_PER_RECORD = 32;

const hash16 = (s) => crypto.createHash("sha256").update(s).digest("hex").slice(0, 16);

/** Writes dir/index.json, dir/chunk-<n>.<hash>.json and dir/names.<hash>.json; returns {docs, files}. */
export function writeFlexIndex(records, dir) {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const index = new Index({ tokenize: "forward", encoder: Charset.LatinBalance });
  const display = new Array(records.length);
  let docs = 0;
  records.forEach((r, i) => {
    const seen = new Set();
    r.names.slice(0, NAMES_PER_RECORD).forEach((n, j) => {
      if (seen.has(n.value)) return;
      seen.add(n.value);
      index.add(i * NAMES_PER_RECORD + j, n.value);
      docs++;
    });
    const d = r.names.find((n) => n.types.includes("registry_display") || n.types.includes("ror_display"));
    display[i] = (d ?? r.names[0]).value;
  });
  const chunks = [];
  index.export((key, data) => {
    const file = `chunk-${chunks.length}.${hash16(data)}.json`;
    fs.writeFileSync(path.join(dir, file), data);
    chunks.push({ key, file });
  });
  // What the page needs to show a result: the display name per record.
  const namesText = JSON.stringify(display);
  const names = `names.${hash16(namesText)}.json`;
  fs.writeFileSync(path.join(dir, names), namesText);
  fs.writeFileSync(path.join(dir, "index.json"), JSON.stringify({ namesPerRecord: NAMES_PER_RECORD, names, chunks }));
  return { docs, chunks: chunks.length };
}
