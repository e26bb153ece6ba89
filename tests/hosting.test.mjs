// The site on hosts as deployers have them (pieces version 9: packs read by
// HTTP range). A host that ignores `Range` (answers 200 with the whole file,
// as `python3 -m http.server` does) must still answer every page, from the
// whole registry, with one console message that names the cause — never a
// page that hangs or a wrong answer; and no pack is downloaded whole.
// SITE_DIR / SITE_PREFIX select the site, like the rest of the suite.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, DEMO, bare, display } from "./ui-helpers.mjs";

const NORTHFIELD = DEMO.find((r) => display(r) === "Northfield University");

let browser;
before(async () => {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});
after(async () => {
  await browser?.close();
});

/** A fresh page on `server`, its console warnings in `warnings`, its errors in `errors`. */
async function freshPage(width = 1100) {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const errors = [];
  const warnings = [];
  watchErrors(page, errors);
  page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
  const packs = []; // [status, bytes] of every pack response
  page.on("response", async (r) => {
    if (/\/packs\/(pieces|tables)\.[0-9a-f]{16}\.pack/.test(r.url())) packs.push(r.status());
  });
  return { context, page, errors, warnings, packs };
}

const RANGE_MESSAGE = /ignores HTTP Range requests.*whole registry answers instead/;

for (const width of [1100, 390]) {
  test(`at ${width} px a host that ignores Range: a shared record, a search and the widget answer from the whole registry, and the console says why`, async () => {
    const server = await serve(SITE, PREFIX, { noRange: true });
    const { context, page, errors, warnings, packs } = await freshPage(width);
    try {
      await page.goto(server.url + `?id=${bare(NORTHFIELD.id)}`);
      await page.waitForSelector("table.locations");
      assert.match(await page.locator("#record-title").innerText(), /^Northfield University/);
      await page.goto(server.url + "?q=northfield");
      await page.waitForSelector(".result");
      assert.ok((await page.locator(".result h3 a").allInnerTexts()).includes("Northfield University"));
      await page.goto(server.url + "widget-demo.html");
      const input = page.locator("#affiliation-picker-input");
      await input.pressSequentially("northf", { delay: 30 });
      await page.waitForFunction(() => [...document.querySelectorAll("#affiliation-picker-list [role=option]")].some((o) => /Northfield University/.test(o.textContent)));
      assert.ok(warnings.some((w) => RANGE_MESSAGE.test(w)), warnings.join("\n"));
      // Told once a page, not once a file.
      assert.ok(warnings.filter((w) => RANGE_MESSAGE.test(w)).length <= 3, warnings.join("\n"));
      // The host answered the whole file (200), and the reader hung up on it. (A later
      // page may get a range of what the browser's cache kept of it as a 206: checked
      // by its hash like any other.)
      assert.ok(packs.includes(200), String(packs));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await server.close();
    }
  });
}

test("a host that answers Range: packs are read in ranges (206), nothing is said of Range, and the answers are the whole registry's", async () => {
  const server = await serve(SITE, PREFIX);
  const { context, page, errors, warnings, packs } = await freshPage();
  try {
    await page.goto(server.url + "?q=northfield");
    await page.waitForSelector(".result");
    const names = await page.locator(".result h3 a").allInnerTexts();
    assert.ok(packs.length > 0 && packs.every((s) => s === 206), String(packs));
    assert.ok(!warnings.some((w) => RANGE_MESSAGE.test(w)), warnings.join("\n"));
    const whole = await page.evaluate(async () => {
      const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
      const r = await openRegistry({ dataUrl: new URL("data/", document.baseURI) });
      const out = await r.request("/v2/organizations?query=northfield&mode=typed");
      r.close();
      return JSON.parse(out.body).items.map((i) => i.names.find((n) => n.types.includes("registry_display") || n.types.includes("ror_display")).value);
    });
    assert.deepEqual(names, whole.slice(0, names.length));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await server.close();
  }
});
