// A shared link, on a first visit, in headless Chromium (fresh profiles):
// * `?id=` paints the record from its record piece while the whole data is
//   held at the server (it is never asked for before the answer), with its
//   relationships linked, and the raw JSON equals the whole registry's;
// * the service worker answers /v2/organizations/<id> and /v1 from the same
//   record pieces while its offline copy is not complete, and the same JSON
//   from the offline copy after;
// * the PWA is offline-ready after ONE visit: wait, go offline, reload:
//   the app, a record and a search answer.
// SITE_DIR / SITE_PREFIX select the site, like the rest of the suite.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, goOffline, pieceOf, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, DEMO, bare, display, offlineReady } from "./ui-helpers.mjs";

const NORTHFIELD = DEMO.find((r) => display(r) === "Northfield University");
const WHOLE = /^data\/[^/]+\.shard$/; // the whole registry's files (not pieces)
const pieceIn = (requested) => pieceOf(`http://x/${requested}`); // a pieces-folder file's name, or null

let server, browser;
let held = false;
let release = () => {};
const requested = [];

before(async () => {
  server = await serve(SITE, PREFIX, {
    hold: (rel, url) => {
      requested.push(rel + url.search);
      return held && WHOLE.test(rel) ? new Promise((r) => release.waiters.push(r)) : null;
    },
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  release();
  await browser?.close();
  await server?.close();
});

/** Holds the whole registry's files at the server until `release()`. */
function holdWhole() {
  held = true;
  const waiters = [];
  release = Object.assign(() => {
    held = false;
    for (const w of waiters.splice(0)) w();
  }, { waiters });
}

async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  return { context, page, errors };
}

/** The facet boxes' texts (the years aside), element by element: not
 *  innerText, whose line breaks depend on whether a box is laid out yet. */
const facetTexts = (page) =>
  page.locator(".facets fieldset:not([data-facet=established])").evaluateAll((boxes) =>
    boxes.map((box) =>
      [...box.querySelectorAll("*")]
        .filter((e) => e.children.length === 0)
        .map((e) => e.textContent.trim())
        .filter(Boolean)
        .join(" | "),
    ),
  );

test("?id= paints the record from its record piece, before any whole-data file is asked for", async () => {
  const { context, page, errors } = await freshPage();
  holdWhole();
  requested.length = 0;
  try {
    await page.goto(server.url + `?id=${bare(NORTHFIELD.id)}`);
    await page.waitForSelector("#record-title");
    assert.match(await page.locator("#record-title").innerText(), /^Northfield University/);
    // The whole data is held at the server: the name came without it. It
    // is asked for only after the answer (the page's answered() and idle).
    // (The title may be the card's early paint: the record piece is
    // asked for beside it, and its table shows once it is in.)
    await page.waitForSelector("table.locations");
    const before = [...requested];
    const piece = before.findIndex((r) => pieceIn(r) === "r-041q.shard");
    assert.ok(piece >= 0, before.join(" "));
    const firstWhole = before.findIndex((r) => WHOLE.test(r));
    assert.ok(firstWhole === -1 || firstWhole > piece, `whole data asked for before the record piece: ${before.join(" ")}`);
    // Relationships are links to their records' pages.
    const rels = await page.locator("section[aria-labelledby=h-rel] a").evaluateAll((a) => a.map((x) => new URL(x.href).search));
    assert.equal(rels.length, NORTHFIELD.relationships.length);
    for (const r of NORTHFIELD.relationships) assert.ok(rels.includes(`?id=${bare(r.id)}`), JSON.stringify(rels));
    // A related record opens the same way (its own piece).
    const link = page.locator("section[aria-labelledby=h-rel] a").first();
    const relatedId = await link.evaluate((a) => new URL(a.href).searchParams.get("id"));
    const related = DEMO.find((r) => bare(r.id) === relatedId);
    await link.click();
    await page.waitForFunction((t) => document.getElementById("record-title")?.textContent.startsWith(t + " "), display(related));
    await page.waitForSelector("table.locations");
    await page.goBack();
    await page.waitForFunction(() => /^Northfield University/.test(document.getElementById("record-title")?.textContent ?? ""));
    // The raw v2 JSON shown is the whole registry's answer.
    await page.getByRole("button", { name: "View v2 JSON" }).click();
    const shown = JSON.parse(await page.locator("pre.raw").innerText());
    release();
    const whole = await page.evaluate(async (id) => {
      const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
      const r = await openRegistry({ dataUrl: new URL("data/", document.baseURI) });
      const out = await r.request(`/v2/organizations/${id}`);
      r.close();
      return JSON.parse(out.body);
    }, bare(NORTHFIELD.id));
    assert.deepEqual(shown, whole);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("?q= paints its results and facet counts from pieces, before any whole-data file is asked for; equal to the whole registry's", async () => {
  const { context, page, errors } = await freshPage();
  holdWhole();
  requested.length = 0;
  try {
    // A typed query (the last word unfinished) with a facet selected: the
    // page's own reading (mode=typed) and the facet's own count request.
    await page.goto(server.url + "?q=northf&country=ng");
    await page.waitForSelector(".result");
    const shown = async () => {
      // (A facet box not yet shown has no rendered text: its lines would run together.)
      await page.locator(".facets fieldset[data-facet=country]").waitFor({ state: "visible" });
      return {
        names: await page.locator(".result h3 a").allInnerTexts(),
        total: await page.locator("#results-h").getAttribute("data-total"),
        // The years facet counts with the whole registry (histogram=established), after the answer.
        facets: await facetTexts(page),
      };
    };
    const fromPieces = await shown();
    assert.ok(fromPieces.names.includes("Northfield University"), JSON.stringify(fromPieces));
    // The whole data is held at the server, so the rows came without it;
    // and from the summaries the pieces answer with: no record piece.
    const before = [...requested];
    assert.ok(before.some((r) => pieceIn(r) === "search.stats"), before.join(" "));
    assert.deepEqual(before.filter((r) => /^r-[0-9a-z]+\.shard$/.test(pieceIn(r) ?? "")), []);
    // Then the same page from the whole registry: the same rows and counts.
    release();
    await offlineReady(page);
    await page.reload();
    await page.waitForSelector(".result");
    assert.deepEqual(await shown(), fromPieces);
    // And the raw answers: every list URL the page asks, pieces vs whole.
    const urls = [
      "/v2/organizations?query=northf&mode=typed&filter=country.country_code%3ANG",
      "/v2/organizations?query=northf&mode=typed&all_status",
      "/v2/organizations?query=university%20northfield&page=1",
      "/v1/organizations?query=caldera%20state&filter=types%3AEducation",
      "/v2/organizations?query=northfield&filter=nope%3Ax",
    ];
    const out = await page.evaluate(async (urls) => {
      const { openPieces } = await import(new URL("registry-pieces.js", document.baseURI).href);
      const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
      const searchModule = () => import(new URL("registry-search.js", document.baseURI).href);
      const pieces = await openPieces({ dataUrl: new URL("data/", document.baseURI), searchModule });
      const whole = await openRegistry({ dataUrl: new URL("data/", document.baseURI) });
      const res = [];
      for (const u of urls) res.push({ u, pieces: await pieces.list(u), whole: await whole.request(u) });
      whole.close();
      return res;
    }, urls);
    for (const { u, pieces, whole } of out) {
      assert.ok(pieces, `${u}: answered from pieces`);
      assert.equal(pieces.status, whole.status, u);
      const strip = (b) => ({ ...JSON.parse(b), time_taken: 0 });
      assert.deepEqual(strip(pieces.body), strip(whole.body), u);
    }
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("?q= paints rows and facet counts with the small first-paint wasm before the app's code is fetched; the app takes over with the same page, no \"Loading…\" in between", async () => {
  const { context, page, errors } = await freshPage();
  // The app's UI wasm, the full registry wasm and the whole data are held;
  // each request's time is kept, to compare with the paint's.
  let free;
  const freed = new Promise((r) => (free = r));
  const asked = [];
  const APP_CODE = /^(ui\/registry_ui_bg\.[0-9a-f]{16}\.wasm|pkg\/registry_wasm_bg\.wasm)$/;
  const slow = await serve(SITE, PREFIX, {
    hold: (rel) => {
      asked.push({ rel, at: Date.now() });
      return APP_CODE.test(rel) || WHOLE.test(rel) ? freed : null;
    },
  });
  try {
    // When the first row appears (epoch ms), and whether "Loading…" is
    // ever shown after it.
    await page.addInitScript(() => {
      window.__paint = { rows: null, loadingAfter: false };
      new MutationObserver(() => {
        if (window.__paint.rows === null && document.querySelector(".result")) window.__paint.rows = Date.now();
        // Once painted, the rows never leave the screen (an app mounting
        // with an empty or loading results column would show a flash).
        if (window.__paint.rows !== null && (!document.querySelector(".result") || document.querySelector("#app > p.loading, #main > p.loading, .results-col > p.loading, .load-failed")))
          window.__paint.loadingAfter = true;
      }).observe(document, { subtree: true, childList: true });
    });
    await page.goto(slow.url + "?q=university");
    await page.waitForSelector(".result");
    const shown = async () => {
      // (A facet box not yet shown has no rendered text: its lines would run together.)
      await page.locator(".facets fieldset[data-facet=country]").waitFor({ state: "visible" });
      return {
        names: await page.locator(".result h3 a").allInnerTexts(),
        ids: await page.locator(".result .rid").allInnerTexts(),
        meta: await page.locator(".result .meta").allInnerTexts(),
        total: await page.locator("#results-h").getAttribute("data-total"),
        // (The years facet comes with the app: the whole registry counts it.)
        facets: await facetTexts(page),
        next: await page.locator(".pager").getAttribute("hidden"),
      };
    };
    const early = await shown();
    const painted = await page.evaluate(() => window.__paint.rows);
    assert.ok(early.names.length > 0 && Number(early.total) >= early.names.length, JSON.stringify(early));
    assert.match(early.facets.join("\n"), /Country[\s\S]*Type[\s\S]*Status[\s\S]*Continent/);
    assert.ok(asked.some((a) => /^ui\/registry_first_bg\.[0-9a-f]{16}\.wasm$/.test(a.rel)), asked.map((a) => a.rel).join(" "));
    // Nothing of the app's own code or the whole data was asked for before the paint.
    const early_ = asked.filter((a) => (APP_CODE.test(a.rel) || WHOLE.test(a.rel)) && a.at < painted);
    assert.deepEqual(early_.map((a) => a.rel), []);
    // The app arrives and answers the same page (from pieces and record
    // pieces, then its offline copy), with no "Loading…" in between.
    free();
    await page.waitForFunction(() => /^data:/.test(document.getElementById("release")?.textContent ?? ""));
    await offlineReady(page);
    assert.deepEqual(await shown(), early);
    assert.equal(await page.evaluate(() => window.__paint.loadingAfter), false);
    // And it is the app now: a facet box filters.
    await page.locator("#f-type-education").check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("filter") === "type:education");
    assert.deepEqual(errors, []);
  } finally {
    free();
    await context.close();
    await slow.close();
  }
});

test("?id= paints the record's name before any wasm has arrived, then the full record under it", async () => {
  const { context, page, errors } = await freshPage();
  let wasm;
  const wasmHeld = new Promise((r) => (wasm = r));
  const slow = await serve(SITE, PREFIX, { hold: (rel) => (/\.wasm$/.test(rel) ? wasmHeld : null) });
  try {
    await page.goto(slow.url + `?id=${bare(NORTHFIELD.id)}`);
    await page.waitForFunction(() => document.getElementById("record-title")?.textContent === "Northfield University");
    wasm();
    await page.waitForSelector("table.locations");
    assert.match(await page.locator("#record-title").innerText(), /^Northfield University/);
    assert.deepEqual(errors, []);
  } finally {
    wasm();
    await context.close();
    await slow.close();
  }
});

test("the service worker answers record URLs from record pieces until its offline copy is complete, the same JSON after", async () => {
  const { context, page, errors } = await freshPage();
  holdWhole();
  try {
    await page.goto(server.url + `?id=${bare(NORTHFIELD.id)}`);
    await page.waitForSelector("#record-title");
    await page.waitForFunction(() => window.registryReady.then(() => navigator.serviceWorker.controller !== null), null, { timeout: 30_000 });
    const urls = [
      ...DEMO.slice(0, 6).flatMap((r) => [`v2/organizations/${bare(r.id)}`, `v1/organizations/${encodeURIComponent(r.id)}`]),
      // Results pages too (E2, the search page's reading, v1, filters).
      "v2/organizations?query=northfield%20university",
      "v2/organizations?query=cald&mode=typed&filter=types%3Aeducation",
      "v1/organizations?query=state&page=1",
    ];
    const ask = () =>
      page.evaluate(async (urls) => {
        const out = [];
        for (const u of urls) {
          const res = await fetch(u);
          // time_taken is the one member that may differ between two answers.
          const body = JSON.parse(await res.text());
          if ("time_taken" in body) body.time_taken = 0;
          out.push({ u, status: res.status, body, release: res.headers.get("x-registry-release") });
        }
        return out;
      }, urls);
    const fromPieces = await ask();
    assert.ok(fromPieces.every((r) => r.status === 200 && r.release === "demo"), JSON.stringify(fromPieces.map((r) => [r.u, r.status])));
    release();
    await offlineReady(page);
    const fromCopy = await ask();
    assert.deepEqual(fromCopy, fromPieces);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("offline-ready after one visit: offline, a reload shows the app, a record and a search answer", async () => {
  const { context, page, errors } = await freshPage();
  const id = bare(DEMO.find((r) => display(r) === "Caldera State University").id);
  try {
    await page.goto(server.url + `?id=${id}`);
    await page.waitForSelector("#record-title");
    await offlineReady(page);
    await goOffline(context, page);
    await page.reload();
    await page.waitForFunction(() => /^Caldera State University/.test(document.getElementById("record-title")?.textContent ?? ""));
    await page.waitForSelector("table.locations");
    await page.goto(server.url + "?q=northfield");
    await page.waitForSelector(".result");
    const names = await page.locator(".result h3 a").allInnerTexts();
    assert.ok(names.some((n) => n === "Northfield University"), JSON.stringify(names));
    await page.locator("#q-input").fill("caldera");
    await page.waitForFunction(() => [...document.querySelectorAll("#q-list [role=option] .cb-name")].some((e) => e.textContent === "Caldera State University"));
    assert.deepEqual(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e)), []);
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});

test("a shared link with an unescaped / in its query (a full id URL, ror.org/…, a DOI, and/or) works", async () => {
  const { context, page, errors } = await freshPage();
  const id = bare(NORTHFIELD.id);
  const fundref = NORTHFIELD.external_ids.find((e) => e.type === "fundref").preferred;
  try {
    for (const q of [`?id=https://ror.org/${id}`, `?id=ror.org/${id}`]) {
      await page.goto(server.url + q);
      await page.waitForSelector("table.locations, .load-failed, .record .error");
      assert.equal(await page.locator(".load-failed").count(), 0, `${q}: ${await page.locator("#app").innerText()}`);
      assert.match(await page.locator("#record-title").innerText(), /^Northfield University/, q);
    }
    // A funder DOI lists its record first.
    await page.goto(server.url + `?q=10.13039/${fundref}`);
    await page.waitForSelector(".result, .load-failed");
    assert.equal(await page.locator(".load-failed").count(), 0, await page.locator("#app").innerText());
    assert.equal(await page.locator(".result").first().getAttribute("data-id"), id);
    // A slash in plain words: a search like any other.
    await page.goto(server.url + "?q=and/or");
    // (registry-first.js may paint it first: wait for the app's own answer.)
    await page.waitForFunction(() => /records|could not/.test(document.getElementById("release")?.textContent ?? ""));
    await page.waitForSelector("#results-h, .load-failed");
    assert.equal(await page.locator(".load-failed").count(), 0, await page.locator("#app").innerText());
    assert.match(await page.locator("#release").innerText(), /records/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
