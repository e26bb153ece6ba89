// The service worker's own limits (web/sw.js): its app cache holds the
// app's files and nothing a visitor's URLs add, and the app's static files
// never wait for its thread while it computes an API answer.
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, goOffline, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, offlineReady } from "./ui-helpers.mjs";

let server, browser;

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A page of a new context, controlled by the worker with its offline copy complete. */
async function installed() {
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
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
