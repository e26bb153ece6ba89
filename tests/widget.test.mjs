// <registry-picker> inside a real <form> (web/static/widget-demo.html):
// keyboard pick submits the id URL and the display name, free text is
// submitted as typed (and marked), withdrawn records offer their successor,
// attribute restrictions apply, and the element fires a bubbling change
// event with {id, name, country, status, freeText}.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { start, typeInOneTask, mainThreadSuggestReady, DEMO, DOCS, SHOTS, bare, display } from "./ui-helpers.mjs";

let t;
before(async () => {
  t = await start();
});
after(async () => {
  await t?.close();
});

const aff = () => t.page.locator("#affiliation-picker-input");

async function open() {
  await t.page.goto(t.url("widget-demo.html"));
  await t.page.waitForSelector("#affiliation-picker-input");
  await t.page.waitForSelector("#themed-picker-input");
}

async function lastEvent() {
  return t.page.evaluate(() => document.getElementById("affiliation").value);
}

test("a keyboard pick fills the hidden id; the form submits the id URL and the display name", async () => {
  const { page } = t;
  await open();
  const events = [];
  await page.exposeFunction("__event", (d) => events.push(d));
  await page.evaluate(() => document.addEventListener("change", (e) => e.target.localName === "registry-picker" && window.__event(e.detail)));
  await page.locator("#author-name").fill("Ada Example");
  await page.keyboard.press("Tab"); // into the picker's input
  assert.equal(await page.evaluate(() => document.activeElement.id), "affiliation-picker-input");
  await page.keyboard.type("northfield univ hosp", { delay: 15 });
  await page.waitForSelector("#affiliation-picker-list [role=option]");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  const rec = DEMO.find((r) => display(r) === "Northfield University Hospital");
  assert.equal(await aff().inputValue(), "Northfield University Hospital");
  assert.equal(await page.locator("input[type=hidden][name=affiliation_id]").inputValue(), rec.id);
  assert.equal(await page.locator("registry-picker#affiliation .rp").getAttribute("data-state"), "picked");
  await page.waitForFunction(() => document.getElementById("affiliation").value?.id);
  const detail = await lastEvent();
  assert.deepEqual(detail, { id: rec.id, name: "Northfield University Hospital", country: "US", status: "active", freeText: false });
  assert.deepEqual(events.at(-1), detail, "the change event bubbles to the document");
  if (SHOTS) {
    await aff().fill("northfield");
    await page.waitForSelector("#affiliation-picker-list [role=option]");
    await page.keyboard.press("ArrowDown");
    await page.screenshot({ path: path.join(DOCS, "widget.png") });
    await page.keyboard.press("Escape");
    await aff().fill("");
    await aff().pressSequentially("northfield univ hosp");
    await page.waitForSelector("#affiliation-picker-list [role=option]");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
  }
  await Promise.all([page.waitForURL(/affiliation_id=/), page.getByRole("button", { name: "Submit" }).click()]);
  const sent = new URL(page.url()).searchParams;
  assert.equal(sent.get("affiliation"), "Northfield University Hospital");
  assert.equal(sent.get("affiliation_id"), rec.id);
  assert.equal(sent.get("author"), "Ada Example");
  assert.match(await page.locator("#submitted").innerText(), /Northfield University Hospital/);
});

test("free text is allowed when nothing is picked, marked as such, and submitted as typed", async () => {
  const { page } = t;
  await open();
  await aff().fill("Institute of Imaginary Studies, Nowhere");
  await page.waitForSelector("#affiliation-picker-input[aria-expanded]");
  await page.keyboard.press("Tab");
  assert.equal(await page.locator("registry-picker#affiliation .rp").getAttribute("data-state"), "free-text");
  assert.match(await page.locator("#affiliation-picker-note").innerText(), /free text/);
  assert.equal(await page.locator("registry-picker#affiliation").getAttribute("data-free-text"), "");
  assert.deepEqual(await lastEvent(), { id: null, name: "Institute of Imaginary Studies, Nowhere", country: null, status: null, freeText: true });
  // Editing a picked value turns it back into free text (no stale id).
  await aff().fill("northfield state");
  await page.waitForSelector("#affiliation-picker-list [role=option]");
  await page.locator("#affiliation-picker-list [role=option]").first().click();
  assert.notEqual(await page.locator("input[name=affiliation_id]").inputValue(), "");
  await aff().press("End");
  await aff().press("Backspace");
  assert.equal(await page.locator("input[name=affiliation_id]").inputValue(), "");
  await aff().fill("Institute of Imaginary Studies, Nowhere");
  await Promise.all([page.waitForURL(/affiliation=/), page.getByRole("button", { name: "Submit" }).click()]);
  const sent = new URL(page.url()).searchParams;
  assert.equal(sent.get("affiliation"), "Institute of Imaginary Studies, Nowhere");
  assert.equal(sent.get("affiliation_id"), "");
});

test("withdrawn and inactive records are aria-disabled and offer their successor", async () => {
  const { page } = t;
  await open();
  await aff().fill("Northfield University Board of Regents");
  const withdrawn = page.locator("#affiliation-picker-list [data-status=withdrawn]").first();
  await withdrawn.waitFor();
  assert.equal(await withdrawn.getAttribute("aria-disabled"), "true");
  await page.locator("#affiliation-picker-list .cb-succ").first().waitFor();
  // Enter on the withdrawn option does nothing; the next option is its successor.
  await aff().focus();
  const idx = Number((await withdrawn.getAttribute("id")).split("-").pop());
  for (let i = 0; i <= idx; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  assert.equal(await page.locator("input[name=affiliation_id]").inputValue(), "");
  await page.keyboard.press("ArrowDown");
  assert.match(await page.locator(`#${await aff().getAttribute("aria-activedescendant")}`).innerText(), /successor/);
  await page.keyboard.press("Enter");
  const nu = DEMO.find((r) => display(r) === "Northfield University");
  assert.equal(await page.locator("input[name=affiliation_id]").inputValue(), nu.id);
  assert.equal(await aff().inputValue(), "Northfield University");
});

test("once the page is idle the picker answers on the main thread, successor rows included", async () => {
  const { page } = t;
  await open();
  const ready = await mainThreadSuggestReady(page);
  assert.ok(ready.buildMs > 0);
  const got = await typeInOneTask(page, "#affiliation-picker-input", "#affiliation-picker-list", "northfield univ");
  assert.equal(got.for, "northfield univ");
  assert.equal(got.expanded, "true");
  assert.ok(got.names.length > 0 && got.marks.length > 0, JSON.stringify(got));
  const withdrawn = await typeInOneTask(page, "#affiliation-picker-input", "#affiliation-picker-list", "Northfield University Board of Regents");
  assert.ok(withdrawn.successors > 0, "the successor row is there in the same task");
  // The themed picker (country/type restrictions) shares the instance and keeps its filters.
  const themed = await typeInOneTask(page, "#themed-picker-input", "#themed-picker-list", "univ");
  assert.equal(themed.for, "univ");
});

test("attributes restrict the suggestions; strings are overridable; theming by custom properties", async () => {
  const { page } = t;
  await open();
  const input = page.locator("#themed-picker-input");
  for (const q of ["northfield", "university", "institute", "CSU"]) {
    await input.fill(q);
    await page.waitForFunction(() => {
      const el = document.getElementById("themed-picker-input");
      return el.getAttribute("aria-expanded") === "true" || !document.querySelector("registry-picker#themed .cb-empty").hidden;
    });
    const shown = await page.locator("#themed-picker-list [role=option]:not(.cb-succ) .cb-name").allInnerTexts();
    for (const name of shown) {
      const r = DEMO.find((x) => display(x) === name);
      assert.ok(["US", "CA"].includes((r.locations[0].geonames_details ?? r.locations[0].geo_details).country_code), name);
      assert.ok(r.types.some((x) => ["funder", "education"].includes(x)), name);
    }
  }
  await input.fill("zzzz no such thing");
  await page.waitForFunction(() => !document.querySelector("registry-picker#themed .cb-empty").hidden);
  assert.equal(await page.locator("registry-picker#themed .cb-empty").innerText(), "No such funder here: your text will be kept as typed.");
  const accent = await page.locator("registry-picker#themed .rp").evaluate((el) => getComputedStyle(el).getPropertyValue("--_accent").trim());
  assert.equal(accent, "#7a1f8a");
});

test("no console errors", () => {
  assert.deepEqual(t.errors, []);
});
