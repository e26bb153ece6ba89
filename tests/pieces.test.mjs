// The partitioned typeahead index in the browser: `registry-pieces.js`
// fetches the directory and the pieces a query needs, and answers exactly
// as the whole registry does (Worker `suggest`), with and without filters.
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
const PREFIX = process.env.SITE_PREFIX ?? "/";
let server, browser, page;
const errors = [];

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(30_000);
  watchErrors(page, errors);
  await page.goto(server.url + "api.html");
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test("pieces answer every keystroke like the whole registry, fetching a few kilobytes", async () => {
  const out = await page.evaluate(async () => {
    const { openPieces } = await import("./registry-pieces.js");
    const { openRegistry } = await import("./registry.js");
    const pieces = await openPieces({ dataUrl: "./data/" });
    const whole = await openRegistry({ dataUrl: new URL("./data/", location.href) });
    const names = [
      "Northfield University",
      "Université de Montclair-sur-Rhône",
      "Kilimani University of Agriculture",
      "東雲工科大学",
      "Hôpital Sainte-Brigitte",
      "O'Brien & Daughters",
      "zzqx",
    ];
    const filters = [[], ["types:education"], ["locations.geo_details.country_code:US"]];
    const view = (hits) => hits.map((h) => [h.summary.id, h.reason, h.matched.value, JSON.stringify(h.ranges16)]);
    let answered = 0, total = 0;
    const mismatches = [];
    let firstBytes = null;
    for (const name of names) {
      for (let n = 1; n <= Math.min(name.length, 12); n++) {
        const q = name.slice(0, n);
        for (const f of filters) {
          total++;
          const got = await pieces.suggest(q, { filters: f, limit: 10 });
          firstBytes ??= pieces.bytes();
          if (got === null) continue;
          answered++;
          const want = await whole.suggest(q, { filters: f, limit: 10 });
          if (JSON.stringify(view(got)) !== JSON.stringify(view(want))) mismatches.push({ q, f, got: view(got), want: view(want) });
        }
      }
    }
    // Synchronous answers once the piece is here; none for a new prefix.
    const now = pieces.suggestNow("Northfield University", { limit: 5 });
    return { answered, total, mismatches, firstBytes, now: now?.[0]?.summary.name, bytes: pieces.bytes() };
  });
  assert.deepEqual(out.mismatches, []);
  assert.ok(out.answered > out.total / 2, `${out.answered} of ${out.total}`);
  assert.equal(out.now, "Northfield University");
  // The first suggestion came from the directory and one piece, not the data.
  assert.ok(out.firstBytes < 20_000, `first suggestion after ${out.firstBytes} bytes`);
  assert.deepEqual(errors, []);
});
