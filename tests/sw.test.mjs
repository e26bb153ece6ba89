// The service worker's own limits (web/sw.js): its app cache holds the
// app's files and nothing a visitor's URLs add, the app's static files
// never wait for its thread while it computes an API answer, and the API
// URLs answer offline after one visit that never asked one, also after the
// worker restarts offline (its wasm and modules come from its caches).
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, goOffline, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, DEMO, appReady, bare, display, offlineReady } from "./ui-helpers.mjs";

let server, browser;

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * A page of a new context, controlled by the worker with its offline copy
 * complete; `watch(context)` is called before the visit.
 */
async function installed(watch = () => {}) {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  watch(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = [];
  watchErrors(page, errors);
  await page.goto(server.url);
  await page.waitForFunction(() => window.registryReady.then(() => navigator.serviceWorker.controller !== null), null, { timeout: 30_000 });
  await offlineReady(page);
  return { context, page, errors };
}

const appCacheKeys = (page) =>
  page.evaluate(async () => (await (await caches.open("registry-app")).keys()).map((r) => r.url.slice(location.origin.length)));

test("the app cache holds the app's files, not an entry per ?q= URL; offline, a ?q= page is the app", async () => {
  const { context, page, errors } = await installed();
  try {
    const before = await appCacheKeys(page);
    for (const q of ["northfield", "caldera", "university of", "zzqx"]) {
      await page.goto(server.url + "?q=" + encodeURIComponent(q));
      await page.waitForSelector(".result, .no-results, [role=status]");
    }
    await page.goto(server.url + "api.html?x=1");
    await page.evaluate(() => fetch("registry-picker.js?v=2").then((r) => r.text()));
    const after = await appCacheKeys(page);
    assert.deepEqual(after.filter((k) => k.includes("?")), [], "no entry with a query");
    assert.deepEqual(after.sort(), before.sort(), "the same entries as after install");
    await goOffline(context, page);
    await page.goto(server.url + "?q=northfield");
    await page.waitForSelector(".result");
    await context.setOffline(false);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("a static file does not wait while the worker's thread computes an API answer", async () => {
  const { context, page, errors } = await installed();
  try {
    const [sw] = context.serviceWorkers();
    assert.ok(sw, "a service worker");
    // The worker's thread busy for 4 s, as during a slow synchronous wasm
    // answer (or the whole data's parse).
    const busy = sw.evaluate(() => {
      const start = Date.now();
      while (Date.now() < start + 4000);
      return { start, end: Date.now() };
    });
    await page.waitForTimeout(300);
    const got = await page.evaluate(async () => {
      const t0 = Date.now();
      const res = await fetch("registry-picker.js", { cache: "no-store" });
      const text = await res.text();
      return { t0, done: Date.now(), ok: res.ok && text.length > 0 };
    });
    const { start, end } = await busy;
    console.log(`static file: ${got.done - got.t0} ms while the worker was busy ${end - start} ms (it asked ${got.t0 - start} ms into it)`);
    assert.ok(got.ok);
    assert.ok(got.done < end, `the file arrived ${got.done - end} ms after the worker was free again`);
    // API answers still come from the worker, once it is free.
    const api = await page.evaluate(() => fetch("v2/organizations?query=northfield").then((r) => r.headers.get("x-registry-release")));
    assert.equal(api, "demo");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("offline after one visit that asked no API URL, and after the worker restarts offline, the API URLs answer", async () => {
  const marine = DEMO.find((r) => display(r) === "Korea Agency for Marine Data");
  const northfield = DEMO.find((r) => display(r) === "Northfield University");
  // Whether the visit asked an API URL, and what the service worker asks
  // the network for on its own (its wasm), not for a page's request (the
  // app's files, network first).
  const apiOnline = [];
  const swNetwork = [];
  const pageAsked = new Set();
  const { context, page, errors } = await installed((context) =>
    context.on("request", (r) => {
      const rel = r.url().slice(server.url.length);
      if (r.serviceWorker()) swNetwork.push(rel);
      else pageAsked.add(rel);
      if (/^(v1\/|v2\/)?organizations/.test(rel)) apiOnline.push(rel);
    }),
  );
  const cdp = await context.newCDPSession(page);
  const ask = async (urls) => {
    swNetwork.length = 0;
    pageAsked.clear();
    const out = await page.evaluate(async (urls) => {
      const out = [];
      for (const u of urls) {
        const res = await fetch(u);
        out.push({ u, status: res.status, release: res.headers.get("x-registry-release"), body: await res.json() });
      }
      return out;
    }, urls);
    // pkg/*.js is the worker's own module, imported statically: the browser
    // may ask the network for it on a check for a new worker (seen once in
    // a clean-clone run on a loaded machine), which is not the worker
    // fetching its wasm or its data.
    const own = swNetwork.filter((u) => /^(pkg|data)\//.test(u) && !/^pkg\/[^/?]*\.js(\?|$)/.test(u) && !pageAsked.has(u));
    assert.deepEqual(own, [], "the worker asked the network for neither its wasm nor its data: both are cached");
    return out;
  };
  const check = (answers) => {
    const [search, record, v1, other] = answers;
    assert.deepEqual(answers.map((a) => [a.u, a.status, a.release]), answers.map((a) => [a.u, 200, "demo"]), JSON.stringify(answers.map((a) => a.body.errors)));
    assert.ok(search.body.items.some((r) => r.id === marine.id), JSON.stringify(search.body.items.map((r) => r.id)));
    assert.equal(record.body.id, marine.id);
    assert.equal(v1.body.id, northfield.id);
    assert.ok(other.body.items.some((r) => r.id === northfield.id));
  };
  const urls = ["v2/organizations?query=marine", `v2/organizations/${bare(marine.id)}`, `v1/organizations/${encodeURIComponent(northfield.id)}`, "v2/organizations?query=northfield"];
  try {
    assert.deepEqual(apiOnline, [], "the online visit asked no API URL");
    await goOffline(context, page);
    await page.reload();
    await appReady(page);
    check(await ask(urls));
    // A restart while offline: the worker starts again from its stored
    // script and modules, and loads its wasm and the data again.
    const [before] = context.serviceWorkers();
    await before.evaluate(() => (globalThis.__beforeRestart = true));
    const states = [];
    cdp.on("ServiceWorker.workerVersionUpdated", ({ versions }) => states.push(...versions.map((v) => v.runningStatus)));
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    check(await ask(urls));
    assert.ok(states.includes("stopped"), JSON.stringify(states));
    const [after] = context.serviceWorkers();
    assert.equal(await after.evaluate(() => globalThis.__beforeRestart), undefined, "a restarted worker answered");
    assert.deepEqual(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e)), []);
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});
