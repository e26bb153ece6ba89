// The widget loader pins everything it loads by subresource integrity
// (web/registry-picker.js, hashes written by scripts/build-ui.sh): its
// wasm, its JS modules (import() has no integrity of its own: a
// modulepreload link with `integrity` puts the checked module in the
// module map first) and its stylesheet. A tampered file is refused, never run.
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX } from "./ui-helpers.mjs";

let server, browser;

before(async () => {
  server = await serve(SITE, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const LOADED = /\/ui\/(registry_widget|registry_suggest|registry-pieces)\.[0-9a-f]{16}\.js$|\/ui\/picker\.[0-9a-f]{16}\.css$/;

/** The widget demo, every file the loader loads served with one more line when `tamper`; console messages. */
async function demo(tamper) {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const messages = [];
  page.on("console", (m) => messages.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => messages.push(`pageerror: ${e}`));
  const served = [];
  await page.route(LOADED, async (route) => {
    const res = await route.fetch();
    const url = route.request().url();
    served.push(url.slice(url.lastIndexOf("/") + 1));
    if (!tamper) return route.fulfill({ response: res });
    const extra = url.endsWith(".css") ? "\nbody { --tampered: 1 }\n" : "\nglobalThis.__tampered = (globalThis.__tampered ?? 0) + 1;\n";
    await route.fulfill({ response: res, body: (await res.text()) + extra });
  });
  await page.goto(server.url + "widget-demo.html");
  return { context, page, messages, served };
}

test("the loader preloads its modules and stylesheet with their SRI hashes, and the picker works", async () => {
  const { context, page, messages, served } = await demo(false);
  try {
    await page.locator("#affiliation-picker-input").pressSequentially("northfield", { delay: 20 });
    await page.waitForSelector("#affiliation-picker-list [role=option]");
    const links = await page.evaluate(() =>
      [...document.querySelectorAll("link[rel=modulepreload], link[data-registry-picker]")].map((l) => [l.rel, l.href.split("/").pop(), /^sha384-/.test(l.integrity)]),
    );
    assert.equal(links.filter(([rel, , sri]) => rel === "modulepreload" && sri).length, 3, JSON.stringify(links));
    assert.ok(links.some(([rel, , sri]) => rel === "stylesheet" && sri), JSON.stringify(links));
    // Each file is fetched once: the import uses the preloaded, checked module.
    assert.equal(served.length, new Set(served).size, served.join(", "));
    assert.deepEqual(messages.filter((m) => /^(error|pageerror)/.test(m)), []);
  } finally {
    await context.close();
  }
});

test("a tampered module or stylesheet of the loader is refused and never runs", async () => {
  const { context, page, messages, served } = await demo(true);
  try {
    // Every module and the stylesheet were asked for, and refused.
    for (let end = Date.now() + 20_000; Date.now() < end && messages.filter((m) => /integrity/i.test(m)).length < 4; ) await page.waitForTimeout(100);
    assert.ok(served.length >= 4, served.join(", "));
    const got = await page.evaluate(() => ({
      ran: globalThis.__tampered ?? 0,
      css: getComputedStyle(document.body).getPropertyValue("--tampered"),
    }));
    assert.equal(got.ran, 0, "no tampered module ran");
    assert.equal(got.css, "", "the tampered stylesheet is not applied");
    const refused = messages.filter((m) => /integrity/i.test(m));
    assert.ok(refused.length >= 4, messages.join("\n"));
  } finally {
    await context.close();
  }
});
