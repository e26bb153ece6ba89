// Data releases and hostile data, end to end in headless Chromium. Builds its
// own small sites with `registry site` (the app from target/site, data from
// variants of the demo dump) and serves them from a folder whose target is
// swapped between page loads, as a static host receiving a new deploy:
// * a new release is offered ("Update now"), the old one keeps answering until
//   the user accepts, then the page shows the new release and its new record,
//   and the old release's cache is gone;
// * a broken deploy (files that fail their SHA-256) is not offered and leaves
//   the installed release working, with no partial cache left behind;
// * record text containing markup is shown as text in suggestions, results
//   and the record page, and never runs.
// Served under SITE_PREFIX (default "/"), like the rest of the suite.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "./server.mjs";
import { offlineReady } from "./ui-helpers.mjs";
import { releaseFolder, manifestOf } from "./release-sites.mjs";

const PREFIX = process.env.SITE_PREFIX ?? "/";
const DEMO = JSON.parse(fs.readFileSync("data/demo/registry-demo.json", "utf8"));
const display = (r) => r.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display")).value;

let folder, server, browser;
const site = (...args) => folder.site(...args);
const deploy = (dir) => folder.deploy(dir);

before(async () => {
  folder = releaseFolder("registry-release-");
  server = await serve(folder.live, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  folder?.remove();
});

/** A fresh profile (its own service worker), with page errors collected. */
async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { context, page, errors };
}

async function installed(page, release) {
  await page.goto(server.url);
  await page.waitForFunction((r) => new RegExp(`data: ${r}, \\d+ records`).test(document.getElementById("release")?.textContent ?? ""), release);
  await offlineReady(page, 20_000);
}

const dataCaches = (page) => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith("registry-data-")));

/**
 * Asks the service worker to look for a release now; resolves to its answer
 * (told apart by its id from the answer to the page's own check at load).
 */
const checkUpdate = (page) =>
  page.evaluate(() => new Promise((resolve) => {
    const id = `test-${Math.random()}`;
    const onMessage = ({ data }) => {
      if (data?.type !== "check-update-result" || data.id !== id) return;
      navigator.serviceWorker.removeEventListener("message", onMessage);
      resolve(data);
    };
    navigator.serviceWorker.addEventListener("message", onMessage);
    navigator.serviceWorker.controller.postMessage({ type: "check-update", id });
  }));

/**
 * Installs the release in folder `a` (named `release`) on `page`, deploys
 * folder `b`, and has the service worker find and download it; returns what
 * it asked the server meanwhile, a request a line.
 */
async function updateFound(page, a, release, b) {
  deploy(a);
  await installed(page, release);
  const from = server.requests.length;
  deploy(b);
  const answer = await checkUpdate(page);
  assert.equal(answer.updateAvailable, true, JSON.stringify(answer));
  return server.requests.slice(from).join("\n");
}

/** Accepts the release offered, as its user would: the page reloads on it. */
async function acceptUpdate(page, release) {
  await page.reload();
  await page.waitForSelector("#update:not([hidden])");
  await Promise.all([page.waitForEvent("load"), page.locator("#update-apply").click()]);
  await page.waitForFunction((r) => new RegExp(`data: ${r}, \\d+ records`).test(document.getElementById("release")?.textContent ?? ""), release);
}

/** The SHA-256 of each named data file in the service worker's current data cache. */
const cachedHashes = (page, names) =>
  page.evaluate(async (names) => {
    const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");
    const [key] = (await caches.keys()).filter((k) => k.startsWith("registry-data-"));
    const cache = await caches.open(key);
    const out = [];
    for (const n of names) {
      const res = await cache.match(new URL(`data/${n}`, document.baseURI).href);
      out.push(res ? hex(await crypto.subtle.digest("SHA-256", await res.arrayBuffer())) : null);
    }
    return out;
  }, names);

const OFFLINE_COPY = ["summary", "names", "records"];

/** A spec URL fetched from the page: answered by the service worker. */
const fetchApi = (page, rel) =>
  page.evaluate(async (rel) => {
    const res = await fetch(new URL(rel, document.baseURI));
    return { status: res.status, release: res.headers.get("x-registry-release"), body: await res.json() };
  }, rel);

test("a new data release is offered, applied on request, and replaces the old one", async () => {
  const added = DEMO[DEMO.length - 1];
  const r1 = site("r1", DEMO.slice(0, -1), "r1");
  const r2 = site("r2", DEMO, "r2");
  deploy(r1);
  const { context, page, errors } = await freshPage();
  try {
    await installed(page, "r1");
    const query = `v2/organizations/${added.id.split("/").pop()}`;
    assert.equal((await fetchApi(page, query)).status, 404, "r1 lacks the record");
    deploy(r2);
    // The next visit finds r2, downloads it in the background and offers it.
    await page.reload();
    await page.waitForSelector("#update:not([hidden])");
    assert.match(await page.locator("#update-text").innerText(), new RegExp(`r2 \\(${DEMO.length} records\\)`));
    // Until the user accepts, r1 keeps answering (the page loads r1, not r2).
    await page.waitForFunction(() => /data: r\d,/.test(document.getElementById("release")?.textContent ?? ""));
    assert.match(await page.locator("#release").innerText(), /data: r1,/);
    const before = await fetchApi(page, query);
    assert.deepEqual([before.status, before.release], [404, "r1"]);
    await Promise.all([page.waitForEvent("load"), page.locator("#update-apply").click()]);
    await page.waitForFunction((n) => new RegExp(`data: r2, ${n} records`).test(document.getElementById("release")?.textContent ?? ""), DEMO.length);
    const now = await fetchApi(page, query);
    assert.deepEqual([now.status, now.release, now.body.id], [200, "r2", added.id]);
    await page.locator("#q-input").fill(display(added));
    await page.waitForFunction((name) => document.querySelector("#q-list-0 .cb-name")?.textContent === name, display(added));
    assert.equal((await dataCaches(page)).length, 1, "the old release's cache is removed");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a broken deploy is not offered and leaves the installed release working", async () => {
  const good = site("good", DEMO, "good");
  const broken = site("broken", DEMO.slice(1), "broken");
  // Every data file of the new release fails its SHA-256 (a truncated upload).
  for (const f of fs.readdirSync(path.join(broken, "data")).filter((f) => f.endsWith(".shard"))) {
    const p = path.join(broken, "data", f);
    fs.truncateSync(p, fs.statSync(p).size - 1);
  }
  deploy(good);
  const { context, page } = await freshPage();
  try {
    await installed(page, "good");
    const cachesBefore = await dataCaches(page);
    deploy(broken);
    const answer = await checkUpdate(page);
    assert.match(answer.error ?? "", /SHA-256|checksum|bytes|size/i, JSON.stringify(answer));
    assert.deepEqual(await dataCaches(page), cachesBefore, "no partial release cache left");
    const res = await fetchApi(page, `v2/organizations?query=${encodeURIComponent(display(DEMO[0]))}`);
    assert.deepEqual([res.status, res.release], [200, "good"]);
    assert.ok(res.body.items.some((r) => r.id === DEMO[0].id));
    await page.reload();
    await page.waitForFunction(() => /data: good, \d+ records/.test(document.getElementById("release")?.textContent ?? ""));
    assert.equal(await page.locator("#update").isHidden(), true);
  } finally {
    await context.close();
  }
});

test("a tab open during a deploy goes on with the new release: no damage reported, no endless Loading", async () => {
  // Release B: one record renamed, two added; A's files (packs, slot
  // tables, data files) are gone once B is deployed, as on a host whose
  // folder is replaced.
  const [added, renamed] = [DEMO[DEMO.length - 1], structuredClone(DEMO[7])];
  const name = renamed.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display"));
  name.value = `Quuxford ${name.value}`;
  const a = site("tab-a", DEMO.slice(0, -2), "tab-a", { split: true });
  const b = site("tab-b", DEMO.map((r, i) => (i === 7 ? renamed : r)), "tab-b", { split: true });
  deploy(a);
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 }, serviceWorkers: "block" });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  const consoleLines = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  try {
    // A shared link: its record from A's pieces.
    await page.goto(`${server.url}?id=${DEMO[3].id.split("/").pop()}`);
    await page.waitForFunction((n) => document.getElementById("record-title")?.textContent.includes(n), display(DEMO[3]));
    deploy(b);
    // Typing now needs files of A that are gone: the page finds B and answers from it.
    const input = page.locator("#q-input");
    await input.fill("quuxford");
    await page.waitForFunction((n) => [...document.querySelectorAll("#q-list .cb-name")].some((e) => e.textContent === n), name.value);
    await input.fill(display(added));
    await page.waitForFunction((n) => [...document.querySelectorAll("#q-list .cb-name")].some((e) => e.textContent === n), display(added));
    // From B's pieces: the page's pieces client moved to B (not only the whole registry).
    const bPacks = JSON.parse(fs.readFileSync(path.join(b, "data/manifest.json"), "utf8")).pieces.packed.packs;
    const read = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    assert.ok(read.some((u) => bPacks.some((p) => u.includes(p))), "a pack of B was read");
    await input.press("Enter");
    await page.waitForFunction((id) => [...document.querySelectorAll(".result a")].some((a) => a.href.includes(id)), added.id.split("/").pop());
    // Nothing stays "Loading…" (a part of the page may still be on its way a moment).
    await page.waitForFunction(() => !document.querySelector(".loading"));
    await page.waitForFunction(() => /data: tab-b, \d+ records/.test(document.getElementById("release")?.textContent ?? ""));
    assert.match(await page.locator("#release").innerText(), /new data release/i);
    assert.deepEqual(
      consoleLines.filter((l) => /damaged|altered|not the bytes/.test(l)),
      [],
      "a release replaced is not reported as damage",
    );
    assert.equal(consoleLines.filter((l) => /a new data release is available: 'tab-b'/.test(l)).length, 1, consoleLines.join("\n"));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("an installed PWA updates its offline copy by the deltas and answers from the new release, offline too", async () => {
  const added = DEMO[DEMO.length - 1];
  const changed = structuredClone(DEMO[5]);
  changed.names.push({ lang: null, types: ["alias"], value: "Zyxwvut Delta Alias" });
  const a = site("delta-a", DEMO.slice(0, -1), "delta-a");
  const b = site("delta-b", DEMO.map((r, i) => (i === 5 ? changed : r)), "delta-b", { previous: a });
  const files = manifestOf(b).files.filter((f) => OFFLINE_COPY.includes(f.sections.join()));
  assert.ok(files.every((f) => f.deltas?.length === 1 && f.stored), "B lists a delta from A for each file of the offline copy");
  const { context, page, errors } = await freshPage();
  try {
    const asked = await updateFound(page, a, "delta-a", b);
    for (const f of files) {
      assert.ok(asked.includes(f.deltas[0].name), `${f.deltas[0].name} was read`);
      assert.ok(!asked.includes(f.name), `${f.name} was not downloaded`);
    }
    await acceptUpdate(page, "delta-b");
    // What the delta made is B's file, byte for byte (its stored image).
    assert.deepEqual(await cachedHashes(page, files.map((f) => f.name)), files.map((f) => f.stored.sha256));
    await context.setOffline(true);
    const record = await fetchApi(page, `v2/organizations/${added.id.split("/").pop()}`);
    assert.deepEqual([record.status, record.release, record.body.id], [200, "delta-b", added.id]);
    const found = await fetchApi(page, "v2/organizations?query=zyxwvut");
    assert.ok(found.body.items.some((r) => r.id === changed.id), JSON.stringify(found.body).slice(0, 300));
    // The app, reloaded offline, reads B's images through the service worker.
    await page.reload();
    await page.waitForFunction(() => /data: delta-b, \d+ records/.test(document.getElementById("release")?.textContent ?? ""));
    await page.locator("#q-input").fill("zyxwvut");
    await page.waitForFunction((name) => document.querySelector("#q-list-0 .cb-name")?.textContent === name, display(changed));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a delta with wrong bytes is refused and its file downloaded whole", async () => {
  const a = site("wrong-a", DEMO.slice(0, -1), "wrong-a");
  const b = site("wrong-b", DEMO, "wrong-b", { previous: a });
  const m = manifestOf(b);
  const [summary, names, records] = OFFLINE_COPY.map((s) => m.files.find((f) => f.sections.join() === s));
  // The records' delta holds the names' delta, its hash updated in the
  // manifest: the download's checks pass, applying it does not.
  const wrong = fs.readFileSync(path.join(b, "data", names.deltas[0].name));
  fs.writeFileSync(path.join(b, "data", records.deltas[0].name), wrong);
  Object.assign(records.deltas[0], { bytes: wrong.length, sha256: createHash("sha256").update(wrong).digest("hex") });
  // The summary's delta damaged in transit: it fails its SHA-256.
  const damaged = path.join(b, "data", summary.deltas[0].name);
  const bytes = fs.readFileSync(damaged);
  bytes[bytes.length - 1] ^= 0xff;
  fs.writeFileSync(damaged, bytes);
  fs.writeFileSync(path.join(b, "data/manifest.json"), JSON.stringify(m));
  const { context, page, errors } = await freshPage();
  try {
    const asked = await updateFound(page, a, "wrong-a", b);
    assert.ok(asked.includes(records.name) && asked.includes(summary.name), "the files whose deltas failed were downloaded");
    assert.ok(asked.includes(names.deltas[0].name) && !asked.includes(names.name), "the names came by their delta");
    await acceptUpdate(page, "wrong-b");
    assert.deepEqual(await cachedHashes(page, [summary.name, names.name, records.name]), [summary.sha256, names.stored.sha256, records.sha256]);
    const added = DEMO[DEMO.length - 1];
    const record = await fetchApi(page, `v2/organizations/${added.id.split("/").pop()}`);
    assert.deepEqual([record.status, record.release], [200, "wrong-b"]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("names containing markup are shown as text everywhere and never run", async () => {
  const evil = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
  const records = structuredClone(DEMO);
  const target = records[5];
  const name = target.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display"));
  name.value = `Zyxlab ${evil} Institute`;
  target.names.push({ lang: null, types: ["alias"], value: `<b>Zyxbold</b> & <a href="javascript:window.__xss=3">link</a>` });
  deploy(site("markup", records, "markup"));
  const { context, page, errors } = await freshPage();
  try {
    await page.goto(server.url);
    await page.waitForFunction(() => /records/.test(document.getElementById("release")?.textContent ?? ""));
    const input = page.locator("#q-input");
    await input.fill("zyxlab");
    await page.waitForFunction((name) => document.querySelector("#q-list-0 .cb-name")?.textContent === name, name.value);
    await input.fill("zyxbold");
    await page.waitForFunction(() => /Zyxbold/.test(document.querySelector("#q-list")?.innerText ?? ""));
    assert.match(await page.locator("#q-list").innerText(), /<b>Zyxbold<\/b>/);
    await page.goto(server.url + "?q=zyxlab");
    await page.waitForSelector(".result");
    assert.match(await page.locator(".result").first().innerText(), /<script>window\.__xss=2<\/script>/);
    await page.goto(server.url + `?id=${target.id.split("/").pop()}`);
    await page.waitForSelector("#record-title");
    assert.equal(await page.locator("#record-title").evaluate((h) => h.firstChild.textContent), name.value);
    assert.match(await page.locator("main").innerText(), /<a href="javascript:window\.__xss=3">link<\/a>/);
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.equal(await page.locator("main img, main b, main script, a[href^='javascript:']").count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
