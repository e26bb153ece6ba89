// The browser runtime end to end: the Worker API, the service worker
// answering /v1 and /v2 URLs, and both working offline after a reload.
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "./server.mjs";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
const PREFIX = process.env.SITE_PREFIX ?? "/";
let server, browser, context, page;
const errors = [];

// time_taken is a measurement, not data: everything else must be identical.
const stable = (body) => {
  const v = JSON.parse(body);
  if (v && typeof v === "object") delete v.time_taken;
  return v;
};

const URLS = [
  "v2/organizations?query=northfield",
  "v2/organizations?query=universite%20de%20montclair&filter=types:education",
  "v1/organizations?query=CSU&all_status",
  "v2/organizations/0bsd6jb11",
  "organizations?filter=locations.geo_details.continent_name:South%20America",
  "v2/organizations?page=0",
  "v2/organizations/0000000000",
  // Another version, a bad escape, the heartbeat: the router's JSON from the service worker too.
  "v3/organizations?query=x",
  "v2/organizations?query=%ZZ",
  "v2/heartbeat",
];

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  context = await browser.newContext();
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => errors.push(String(e)));
  // Chromium logs every 4xx fetch; the 400 and 404 answers asked for above are intended.
  const intended = /^Failed to load resource: the server responded with a status of (400|404) /;
  page.on("console", (m) => m.type() === "error" && !intended.test(m.text()) && errors.push(m.text()));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function viaServiceWorker(urls) {
  return page.evaluate(async (urls) => {
    // A bound: a page the worker never controls must fail here, not hang the suite.
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error("the service worker never took control")), 15_000));
    await Promise.race([window.registryReady, late]);
    const out = [];
    for (const u of urls) {
      const res = await fetch(u);
      out.push({ status: res.status, body: await res.text(), release: res.headers.get("x-registry-release") });
    }
    return out;
  }, urls);
}

async function viaWorker(urls) {
  return page.evaluate(async (urls) => {
    const { openRegistry } = await import("./registry.js");
    const r = await openRegistry({ dataUrl: new URL("./data/", location.href) });
    const out = [];
    for (const u of urls) out.push(await r.request("/" + u));
    const info = r.info;
    r.close();
    return { out, info };
  }, urls);
}

test("the Worker answers like the router and reports the data release", async () => {
  await page.goto(server.url + "api.html");
  const { out, info } = await viaWorker(URLS);
  assert.equal(info.release, "demo");
  assert.ok(info.recordCount >= 30);
  assert.equal(info.manifest.record_count, info.recordCount);
  assert.deepEqual(out.map((r) => r.status), [200, 200, 200, 200, 200, 400, 404, 404, 400, 200]);
  assert.match(JSON.parse(out[7].body).errors[0], /unknown API version 'v3'/);
  assert.match(JSON.parse(out[8].body).errors[0], /'query'.*'%ZZ'/);
  const first = JSON.parse(out[0].body);
  assert.ok(first.number_of_results >= 1);
  assert.ok(first.items[0].names.some((n) => /Northfield/.test(n.value)));
  assert.deepEqual(Object.keys(first.meta).sort(), ["continents", "countries", "statuses", "types"]);
  assert.equal(JSON.parse(out[3].body).id, "https://ror.org/0bsd6jb11");
});

test("the service worker answers /v1 and /v2 URLs with the same JSON as the Worker", async () => {
  await page.goto(server.url + "api.html");
  const sw = await viaServiceWorker(URLS);
  const { out } = await viaWorker(URLS);
  assert.deepEqual(sw.map((r) => r.status), out.map((r) => r.status));
  assert.deepEqual(sw.map((r) => stable(r.body)), out.map((r) => stable(r.body)));
  assert.ok(sw.every((r) => r.release === "demo"));
});

test("the API page shows any answer: JSON pretty-printed, a page that is no API answer as it came", async () => {
  await page.goto(server.url + "api.html");
  const send = async (path) => {
    await page.locator("#url").fill(path);
    await page.locator("#status").evaluate((e) => (e.textContent = "pending"));
    await page.locator("#form button").click();
    await page.waitForFunction(() => document.getElementById("status").textContent !== "pending");
    return { status: await page.locator("#status").innerText(), out: await page.locator("#out").innerText() };
  };
  const before = errors.length;
  const json = await send("v2/organizations/0bsd6jb11");
  assert.match(json.status, /^HTTP 200 · data demo$/);
  assert.equal(JSON.parse(json.out).id, "https://ror.org/0bsd6jb11");
  const page404 = await send("v3/organizations?query=x");
  assert.match(page404.status, /^HTTP 404 · data demo$/);
  assert.match(JSON.parse(page404.out).errors[0], /unknown API version/);
  const html = await send("index.html");
  assert.match(html.status, /^HTTP 200 · not an API answer$/);
  assert.match(html.out, /<!DOCTYPE html>/i, "the previous answer is not left on screen");
  assert.deepEqual(errors.slice(before), [], "no uncaught error");
});

test("typeahead mode answers suggest from summary + names, then loads records on demand", async () => {
  await page.goto(server.url + "api.html");
  const res = await page.evaluate(async () => {
    const { openRegistry } = await import("./registry.js");
    const r = await openRegistry({ dataUrl: new URL("./data/", location.href), mode: "typeahead" });
    const light = r.info;
    // Stale protection: the first suggest is superseded by the second.
    const first = r.suggest("nort").then(() => "resolved", (e) => e.name);
    const second = await r.suggest("northfield univ");
    const record = await r.get("0bsd6jb11");
    r.close();
    return { light, first: await first, top: second[0]?.summary?.name, record: record.id };
  });
  assert.equal(res.light.hasRecords, false);
  assert.ok(res.light.bytes > 0);
  assert.equal(res.first, "AbortError");
  assert.match(res.top, /Northfield/);
  assert.equal(res.record, "https://ror.org/0bsd6jb11");
});

test("suggestOnMainThread: once its piece is here, suggestNow answers synchronously like the Worker; external ids and stale answers", async () => {
  await page.goto(server.url + "api.html");
  const res = await page.evaluate(async () => {
    const { openRegistry, suggestReady } = await import("./registry.js");
    const dataUrl = new URL("./data/", location.href);
    const worker = await openRegistry({ dataUrl, mode: "typeahead" });
    const r = await openRegistry({ dataUrl, mode: "typeahead", suggestOnMainThread: true });
    const before = r.suggestNow("northfield"); // not built yet: null, use suggest
    const ready = await r.suggestOnMainThread;
    const page = await suggestReady();
    const names = (hits) => hits.map((h) => [h.summary.id, h.matched.value, JSON.stringify(h.ranges16)]);
    const out = { before, ready, page };
    out.same = [];
    out.firstFromWorker = r.suggestNow("nort", { limit: 8 }); // its piece is not here yet
    for (const q of ["nort", "northfield univ", "CSU", "0bsd6jb11", "montclair"]) {
      await r.pieces.suggest(q, { limit: 8 }); // the piece this query needs is here now
      const now = r.suggestNow(q, { limit: 8 });
      const viaWorker = await worker.suggest(q, { limit: 8 });
      out.same.push([q, Array.isArray(now), JSON.stringify(names(now)) === JSON.stringify(names(viaWorker)), now.length]);
    }
    await r.pieces.suggest("univ", {});
    const filtered = r.suggestNow("univ", { filters: ["types:education"], limit: 5 });
    out.filtered = filtered.every((h) => h.summary.types.includes("education")) && filtered.length > 0;
    out.bad = (() => { try { r.suggestNow("univ", { filters: ["nope:x"] }); return "no error"; } catch (e) { return e.message; } })();
    out.externalId = r.suggestNow("grid.710238.7"); // only in the records: the Worker answers
    // A Worker suggest still in flight is superseded by a main-thread one.
    await r.pieces.suggest("northfield", {});
    const pending = r.suggest("grid.710238.7").then(() => "resolved", (e) => e.name);
    const local = await r.suggest("northfield");
    out.stale = await pending;
    out.local = local.length;
    worker.close();
    r.close();
    return out;
  });
  assert.equal(res.before, null);
  assert.ok(res.ready && res.ready.pieces && res.ready.buildMs > 0 && res.ready.memoryBytes > 0, JSON.stringify(res.ready));
  assert.equal(res.firstFromWorker, null);
  assert.deepEqual(res.page, res.ready);
  for (const [q, isArray, same, n] of res.same) {
    assert.ok(isArray, q);
    assert.ok(same, `main thread and Worker differ for ${q}`);
    assert.ok(n > 0, q);
  }
  assert.ok(res.filtered);
  assert.notEqual(res.bad, "no error");
  assert.equal(res.externalId, null);
  assert.equal(res.stale, "AbortError");
  assert.ok(res.local > 0);
});

test("suggest's context options reach the Worker and the main-thread pieces alike; empty text offers only with a context", async () => {
  await page.goto(server.url + "api.html");
  const res = await page.evaluate(async () => {
    const { openRegistry } = await import("./registry.js");
    const dataUrl = new URL("./data/", location.href);
    const worker = await openRegistry({ dataUrl, mode: "typeahead" });
    const r = await openRegistry({ dataUrl, mode: "typeahead", suggestOnMainThread: true });
    await r.suggestOnMainThread;
    // The main thread answers from the pieces, which hold no e-mail domains:
    // such queries go to the Worker (suggest), which loads the domains file.
    const beforeDomains = r.suggestNow("", { emailDomain: "nfu.example" });
    const show = (hits) => hits.map((h) => [h.summary.name, h.reason, h.localized, h.remembered]);
    const caldera = "https://ror.org/0v5k8z998";
    const remembered = [caldera];
    // Page objects may carry anything: a function cannot be posted to a Worker.
    const ctx = { limit: 5, emailDomain: "jane@nfu.example", remembered, lang: "es", preferCountries: ["RU"], onPick() {} };
    const viaWorker = worker.suggest("", ctx);
    remembered.length = 0; // the call above keeps what it was given
    const offered = show(await viaWorker);
    await r.pieces.suggest("univ", {}); // the piece of "univ" is here: answered now
    const out = {
      emptyNoContext: [await worker.suggest(""), await r.suggest("")],
      offers: [offered, show(await r.suggest("", { ...ctx, remembered: [caldera] }))],
      typed: [
        show(await worker.suggest("univ", { limit: 3, remembered: [caldera], lang: "es" })),
        show(r.suggestNow("univ", { limit: 3, remembered: [caldera], lang: "es" })),
      ],
    };
    // Stale protection holds with a context: the older call rejects.
    const older = worker.suggest("", { emailDomain: "nfu.example" }).then(() => "resolved", (e) => e.name);
    await worker.suggest("north", { emailDomain: "nfu.example" });
    out.stale = await older;
    out.beforeDomains = beforeDomains;
    worker.close();
    r.close();
    return out;
  });
  assert.equal(res.beforeDomains, null, "e-mail domains: the Worker answers");
  assert.deepEqual(res.emptyNoContext, [[], []]);
  const offers = [
    ["Northfield University", "email_domain", "Universidad de Northfield", false],
    ["Caldera State University", "remembered", null, true],
  ];
  assert.deepEqual(res.offers, [offers, offers]);
  assert.deepEqual(res.typed[0], res.typed[1]);
  assert.deepEqual(res.typed[0][0], ["Caldera State University", "words", null, true]);
  assert.ok(res.typed[0].some(([, , localized]) => localized === "Universidad de Northfield"), JSON.stringify(res.typed));
  assert.equal(res.stale, "AbortError");
});

test("offline after the first visit: a reload still answers the same URLs identically", async () => {
  await page.goto(server.url + "api.html");
  const online = await viaServiceWorker(URLS);
  await context.setOffline(true);
  try {
    await page.reload();
    const offline = await viaServiceWorker(URLS);
    assert.deepEqual(offline.map((r) => r.status), online.map((r) => r.status));
    assert.deepEqual(offline.map((r) => stable(r.body)), online.map((r) => stable(r.body)));
    const { out } = await viaWorker(URLS.slice(0, 2));
    assert.deepEqual(out.map((r) => stable(r.body)), online.slice(0, 2).map((r) => stable(r.body)));
  } finally {
    await context.setOffline(false);
  }
});

test("no console errors", () => {
  assert.deepEqual(errors, []);
});
