// The search page's front door on a first visit (issue #38 item 3): the
// search box of index.html works before the app's UI wasm is in (held at
// the server here, as on a slow link): suggestions from the typeahead
// pieces under it, Enter shows the results (the first paint of a results
// link) with `?q=` in the address bar, and the app, once in, takes over the
// text, the caret and the focus, with the box where it was — at 1100 and
// 390 px.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, DEMO, display } from "./ui-helpers.mjs";

const UI_WASM = /^ui\/registry_ui_bg\.[0-9a-f]{16}\.wasm$/;
const REGISTRY_WASM = /^pkg\/registry_wasm_bg\.wasm$/;
const WHOLE = /^data\/[^/]+\.shard$/; // the whole registry's files (not pieces)
const NORTHFIELD = DEMO.find((r) => display(r) === "Northfield University");
assert.ok(NORTHFIELD, "the demo data has Northfield University");

const FRONT_JS = /^ui\/registry-front\.[0-9a-f]{16}\.js$/;

let server, browser;
let holding = null; // while held: the promise the app's code waits for
let holdingFront = null; // while held: the promise the front door's module waits for
const asked = []; // every path asked of the server, with when

before(async () => {
  server = await serve(SITE, PREFIX, {
    hold: (rel) => {
      asked.push({ rel, at: Date.now() });
      if (holdingFront && FRONT_JS.test(rel)) return holdingFront;
      return holding && (UI_WASM.test(rel) || REGISTRY_WASM.test(rel) || WHOLE.test(rel)) ? holding : null;
    },
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Holds the app's code (UI and registry wasm) and the whole data at the server until the returned function is called. */
function holdApp() {
  let release;
  holding = new Promise((r) => (release = r));
  return () => {
    release();
    holding = null;
  };
}

async function freshPage(width) {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  await page.addInitScript(() => {
    window.__uiReady = false;
    addEventListener("registry-ui-ready", () => (window.__uiReady = true));
  });
  return { context, page, errors };
}

const box = (page) => page.locator("#q-input").boundingBox();
const optionNames = (page) => page.locator("#q-list [role=option] .cb-name").allInnerTexts();
const caret = (page) =>
  page.evaluate(() => {
    const i = document.getElementById("q-input");
    return { value: i.value, start: i.selectionStart, end: i.selectionEnd, focused: document.activeElement === i, boxes: document.querySelectorAll("#q-input").length };
  });

for (const width of [1100, 390]) {
  test(`${width} px: typed before the UI wasm, suggestions from the pieces; the app takes over the text, caret and focus, the box where it was`, async () => {
    const { context, page, errors } = await freshPage(width);
    const release = holdApp();
    try {
      asked.length = 0;
      await page.goto(server.url);
      // The box is index.html's own: usable before any module has run.
      await page.locator("#q-input").click();
      await page.keyboard.type("northf", { delay: 30 });
      await page.locator("#q-list [role=option]", { hasText: "Northfield University" }).first().waitFor();
      const early = await optionNames(page);
      assert.equal(early[0], "Northfield University", early.join(" | "));
      assert.equal(await page.evaluate(() => window.__uiReady), false, "the app is not in yet");
      // The arrows move through the early list, as in the app, and back to the box.
      await page.keyboard.press("ArrowDown");
      assert.equal(await page.locator("#q-input").getAttribute("aria-activedescendant"), "q-list-0");
      await page.keyboard.press("ArrowUp");
      assert.equal(await page.locator("#q-input").getAttribute("aria-activedescendant"), null);
      // The caret inside the text, a selection of one character.
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.down("Shift");
      await page.keyboard.press("ArrowLeft");
      await page.keyboard.up("Shift");
      const before = await caret(page);
      assert.deepEqual(before, { value: "northf", start: 3, end: 4, focused: true, boxes: 1 });
      const where = await box(page);
      release();
      await page.waitForFunction(() => window.__uiReady);
      // The app's box: same text, caret and focus, in the same place.
      assert.deepEqual(await caret(page), before);
      const moved = await box(page);
      for (const k of ["x", "y", "width", "height"]) assert.ok(Math.abs(moved[k] - where[k]) <= 1, `${k}: ${where[k]} → ${moved[k]}`);
      // The app answers the text it was handed: its own suggestions, the same first.
      await page.locator("#q-list [role=option]", { hasText: "Northfield University" }).first().waitFor();
      assert.equal((await optionNames(page))[0], "Northfield University");
      // Typing goes on where the caret was (the selected "t" replaced).
      await page.keyboard.type("T");
      assert.deepEqual(await caret(page), { value: "norThf", start: 4, end: 4, focused: true, boxes: 1 });
      // It is the app's box: the address bar follows the typing.
      await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "norThf");
      assert.deepEqual(errors, []);
    } finally {
      release();
      await context.close();
    }
  });
}

test("Enter before the UI wasm shows the results from the pieces with ?q= in the address bar; Back and Forward work before the app; the app takes over the same page", async () => {
  const { context, page, errors } = await freshPage(1100);
  const release = holdApp();
  try {
    asked.length = 0;
    await page.goto(server.url);
    await page.locator("#q-input").click();
    await page.keyboard.type("northfield", { delay: 20 });
    await page.keyboard.press("Enter");
    await page.locator(".result").first().waitFor();
    assert.equal(await page.evaluate(() => location.search), "?q=northfield");
    assert.equal(await page.title(), "northfield – Organization registry");
    const rows = await page.locator(".result h3 a").allInnerTexts();
    assert.equal(rows[0], "Northfield University", rows.join(" | "));
    const total = await page.locator("#results-h").getAttribute("data-total");
    assert.ok(Number(total) >= rows.length, total);
    // From the first-paint wasm and the pieces: none of the app's code, nor the whole data, was answered.
    assert.equal(await page.evaluate(() => window.__uiReady), false);
    assert.ok(asked.some((a) => /^ui\/registry_first_bg\.[0-9a-f]{16}\.wasm$/.test(a.rel)), asked.map((a) => a.rel).join(" "));
    assert.ok(await page.evaluate(() => document.activeElement?.id === "q-input"), "the box keeps the focus");
    // Back: the page before the search; Forward: the results again.
    await page.goBack();
    await page.waitForFunction(() => location.search === "" && !document.querySelector(".result"));
    assert.equal(await page.locator("#q-input").inputValue(), "");
    await page.goForward();
    await page.locator(".result").first().waitFor();
    assert.equal(await page.locator("#q-input").inputValue(), "northfield");
    // The app arrives and shows the same page, the box as it was.
    release();
    await page.waitForFunction(() => window.__uiReady);
    await page.waitForFunction(() => /records/.test(document.getElementById("release")?.textContent ?? ""));
    await page.waitForFunction(() => document.querySelectorAll(".result").length > 0);
    assert.deepEqual(await page.locator(".result h3 a").allInnerTexts(), rows);
    assert.equal(await page.locator("#q-input").inputValue(), "northfield");
    assert.equal(await page.evaluate(() => location.search), "?q=northfield");
    // And it is the app now: a facet box filters.
    await page.locator("#f-type-education").check();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("filter") === "type:education");
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("a pick in the early list opens the record's page", async () => {
  const { context, page, errors } = await freshPage(390);
  const release = holdApp();
  try {
    await page.goto(server.url);
    await page.locator("#q-input").click();
    await page.keyboard.type("northf", { delay: 20 });
    await page.locator("#q-list [role=option]", { hasText: "Northfield University" }).first().waitFor();
    assert.equal(await page.evaluate(() => window.__uiReady), false);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await page.waitForFunction((id) => new URLSearchParams(location.search).get("id") === id, NORTHFIELD.id.split("/").pop());
    release();
    await page.waitForFunction(() => document.getElementById("record-title")?.textContent.startsWith("Northfield University"));
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("typed before any of the page's modules has run: the text is kept, suggested once the front door's module is in, and handed to the app", async () => {
  const { context, page, errors } = await freshPage(390);
  const release = holdApp();
  let releaseFront;
  holdingFront = new Promise((r) => (releaseFront = r));
  try {
    await page.goto(server.url, { waitUntil: "commit" });
    await page.locator("#q-input").click();
    await page.keyboard.type("northf", { delay: 20 });
    assert.equal(await page.locator("#q-input").inputValue(), "northf");
    assert.equal(await page.locator("#q-list [role=option]").count(), 0, "no suggestions without the front door's module");
    releaseFront();
    holdingFront = null;
    await page.locator("#q-list [role=option]", { hasText: "Northfield University" }).first().waitFor();
    assert.equal(await page.evaluate(() => window.__uiReady), false);
    release();
    await page.waitForFunction(() => window.__uiReady);
    assert.deepEqual(await caret(page), { value: "northf", start: 6, end: 6, focused: true, boxes: 1 });
    await page.locator("#q-list [role=option]", { hasText: "Northfield University" }).first().waitFor();
    assert.deepEqual(errors, []);
  } finally {
    releaseFront();
    holdingFront = null;
    release();
    await context.close();
  }
});
