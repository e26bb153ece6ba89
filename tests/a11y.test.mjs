// axe-core scans (WCAG 2.1 A/AA rules) of the search page, a record page and
// the form widget (also in `multiple` mode), with the combobox open: no
// serious or critical violations.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { start, appReady, axeViolations as scan } from "./ui-helpers.mjs";

let t;
before(async () => {
  t = await start();
});
after(async () => {
  await t?.close();
});

test("search page with results, facets and the open listbox", async () => {
  const { page } = t;
  await page.goto(t.url("?q=university"));
  await appReady(page);
  await page.waitForSelector(".result");
  await page.locator("#q-input").fill("northfield");
  await page.waitForSelector("#q-list [role=option]");
  await page.keyboard.press("ArrowDown");
  assert.deepEqual(await scan(page), []);
});

test("search page at phone width: the filters panel open, a selected filter as a chip", async () => {
  const { page } = t;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(t.url("?q=university&filter=type:education"));
    await appReady(page);
    await page.waitForSelector(".chips .chip");
    assert.deepEqual(await scan(page), []);
    await page.locator(".facets-toggle").click();
    await page.waitForSelector(".facets input[type=checkbox]", { state: "visible" });
    assert.deepEqual(await scan(page), []);
  } finally {
    await page.setViewportSize({ width: 1100, height: 850 });
  }
});

test("search page with the skip link focused, and with no results", async () => {
  const { page } = t;
  await page.goto(t.url("?q=university"));
  await appReady(page);
  await page.waitForSelector(".result");
  await page.locator("a.skip-link").focus();
  assert.deepEqual(await scan(page), []);
  await page.goto(t.url("?q=university&filter=type:archive,country:zw"));
  await appReady(page);
  await page.waitForSelector(".results-col .notice");
  assert.deepEqual(await scan(page), []);
});

test("record page", async () => {
  const { page } = t;
  await page.goto(t.url("?id=0cy1q8h86"));
  await appReady(page);
  await page.waitForSelector("table.locations");
  assert.deepEqual(await scan(page), []);
});

test("form widget demo with the listbox open and in the free-text state", async () => {
  const { page } = t;
  await page.goto(t.url("widget-demo.html"));
  await page.waitForSelector("#themed-picker-input");
  await page.locator("#affiliation-picker-input").fill("CSU");
  await page.waitForSelector("#affiliation-picker-list [role=option]");
  await page.keyboard.press("ArrowDown");
  assert.deepEqual(await scan(page), []);
  await page.locator("#affiliation-picker-input").fill("Nowhere Institute");
  await page.keyboard.press("Tab");
  assert.deepEqual(await scan(page), []);
});

test("multiple mode with two entries (one kept as typed) and its listbox open", async () => {
  const { page } = t;
  await page.goto(t.url("widget-demo.html"));
  const input = page.locator("#affiliations-picker-input");
  await input.waitFor();
  await input.fill("northfield univ");
  await page.waitForSelector("#affiliations-picker-list [role=option]");
  await input.press("ArrowDown");
  await input.press("Enter");
  await input.fill("Nowhere Institute");
  await input.press("Enter");
  await page.waitForFunction(() => document.querySelectorAll("#affiliations .rp-item").length === 2);
  await input.fill("kilimani");
  await page.waitForSelector("#affiliations-picker-list [role=option]");
  assert.deepEqual(await scan(page), []);
});

test("no console errors", () => {
  assert.deepEqual(t.errors, []);
});
