// <registry-picker> inside a real <form> (web/static/widget-demo.html):
// keyboard pick submits the id URL and the display name, free text is
// submitted as typed (and marked), withdrawn records offer their successor,
// attribute restrictions apply, and the element fires a bubbling change
// event with {id, name, country, status, freeText}.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { start, typeInOneTask, api, DEMO, DOCS, SHOTS, bare, display } from "./ui-helpers.mjs";

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

// Escape never loses what was typed: the first closes what is shown under
// the input (the options, or the "no matching organization" note), and no
// further Escape clears the text (the clear button does, visibly).
for (const [width, height] of [[1100, 850], [390, 844]]) {
  test(`Escape at ${width} px closes the 'no matching organization' note or the options and keeps the typed text`, async () => {
    const { page } = t;
    await page.setViewportSize({ width, height });
    try {
      await open();
      const text = "Dept of Nowhere, Atlantis";
      await aff().fill(text);
      const empty = page.locator("registry-picker#affiliation .cb-empty");
      await empty.waitFor({ state: "visible" });
      assert.match(await empty.innerText(), /No matching organization/);
      await page.keyboard.press("Escape");
      await empty.waitFor({ state: "hidden" });
      assert.equal(await aff().inputValue(), text);
      await page.keyboard.press("Escape");
      assert.equal(await aff().inputValue(), text, "a second Escape keeps the text too");
      assert.equal(await page.locator("registry-picker#affiliation .rp").getAttribute("data-state"), "free-text");
      // With options listed: Escape closes them, the text stays.
      await aff().fill("northfield");
      await page.waitForSelector("#affiliation-picker-list [role=option]");
      await page.keyboard.press("ArrowDown");
      await page.keyboard.press("Escape");
      assert.equal(await aff().getAttribute("aria-expanded"), "false");
      await page.keyboard.press("Escape");
      assert.equal(await aff().inputValue(), "northfield");
      await aff().fill(text);
      await page.keyboard.press("Escape");
      await page.keyboard.press("Escape");
      await Promise.all([page.waitForURL(/affiliation=/), page.getByRole("button", { name: "Submit" }).click()]);
      assert.equal(new URL(page.url()).searchParams.get("affiliation"), text);
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  });
}

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

test("once its piece is here the picker answers on the main thread, in the keystroke's task", async () => {
  const { page } = t;
  await open();
  // The first query fetches its piece (a few kilobytes), not the registry.
  assert.deepEqual(await suggestionsFor("#affiliation-picker-input", "#affiliation-picker-list", "kilimani agri"), await wholeNames("kilimani agri"));
  const got = await typeInOneTask(page, "#affiliation-picker-input", "#affiliation-picker-list", "kilimani agric");
  assert.equal(got.for, "kilimani agric");
  assert.equal(got.expanded, "true");
  assert.ok(got.names.length > 0 && got.marks.length > 0, JSON.stringify(got));
  // None of this needed the whole registry (no Worker, no summary or names file).
  assert.equal(await wholeOpened(), false);
  // The themed picker (country/type restrictions) shares the pieces and keeps its filters.
  await suggestionsFor("#themed-picker-input", "#themed-picker-list", "uni");
  const themed = await typeInOneTask(page, "#themed-picker-input", "#themed-picker-list", "univ");
  assert.equal(themed.for, "univ");
  assert.deepEqual(themed.names, await wholeNames("univ", ["types:funder", "types:education", "country.country_code:US", "country.country_code:CA"]));
  // A withdrawn record's successor row: its summary comes from the whole registry.
  await suggestionsFor("#affiliation-picker-input", "#affiliation-picker-list", "Northfield University Board of Regents");
  await page.locator("#affiliation-picker-list .cb-succ").first().waitFor();
});

test("typed before the picker is ready: the text, focus and caret are kept and answered", async () => {
  const { page } = t;
  // Hold the widget's wasm back: the plain input is there, enabled, first.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(/registry_widget_bg\.[0-9a-f]+\.wasm$/, async (route) => {
    await held;
    await route.continue();
  });
  try {
    await page.goto(t.url("widget-demo.html"));
    const plain = page.locator("registry-picker#affiliation input[role=combobox]");
    await plain.waitFor();
    assert.equal(await plain.isEnabled(), true);
    await plain.click();
    await page.keyboard.type("northf");
    release();
    await page.waitForSelector("#affiliation-picker-input");
    await page.keyboard.type("ield");
    await page.locator("#affiliation-picker-list [role=option]").first().waitFor();
    assert.equal(await aff().inputValue(), "northfield");
    assert.equal(await page.evaluate(() => document.activeElement.id), "affiliation-picker-input");
    assert.equal(await page.locator("#affiliation-picker-list").getAttribute("data-for"), "northfield");
  } finally {
    release();
    await page.unroute(/registry_widget_bg\.[0-9a-f]+\.wasm$/);
  }
});

/** Holds the responses to `url` at the server until `release()`; `free()` releases and unroutes. */
async function holdAt(page, url) {
  let release;
  const held = new Promise((r) => (release = r));
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return { release, free: () => (release(), page.unroute(url)) };
}

/**
 * The demo page, its #affiliation change events kept in `window.__changes`,
 * `text` typed in the plain input until the early list shows its answer; → that input.
 */
async function typeEarly(text) {
  const { page } = t;
  await page.goto(t.url("widget-demo.html"));
  await page.evaluate(() => document.getElementById("affiliation").addEventListener("change", (e) => (window.__changes ??= []).push(e.detail)));
  const plain = page.locator("registry-picker#affiliation input[role=combobox]");
  await plain.click();
  await page.keyboard.type(text, { delay: 20 });
  await page.waitForFunction((text) => document.querySelector("registry-picker#affiliation [role=listbox]")?.dataset.for === text, text);
  return plain;
}

test("before the UI's wasm is in, the plain input shows the pieces' suggestions; a pick there is kept by the picker", async () => {
  const { page } = t;
  const ui = /registry_widget_bg\.[0-9a-f]+\.wasm$/;
  const { release, free } = await holdAt(page, ui);
  const changes = [];
  try {
    const plain = await typeEarly("kilimani agri");
    // The same names, in the same order, as the whole registry's.
    const option = page.locator("registry-picker#affiliation [role=listbox] [role=option]");
    const names = () => page.locator("registry-picker#affiliation [role=listbox] [role=option] .cb-name").allTextContents();
    assert.deepEqual(await names(), await wholeNames("kilimani agri"));
    assert.equal(await page.locator("#affiliation-picker-input").count(), 0, "the UI's wasm is still held");
    assert.equal(await plain.getAttribute("aria-expanded"), "true");
    // Picked with the keyboard before the picker is mounted.
    await page.keyboard.press("ArrowDown");
    assert.equal(await plain.getAttribute("aria-activedescendant"), await option.first().getAttribute("id"));
    await page.keyboard.press("Enter");
    const first = (await wholeNames("kilimani agri"))[0];
    assert.equal(await plain.inputValue(), first);
    changes.push(...(await page.evaluate(() => window.__changes)));
    assert.equal(changes.length, 1);
    assert.equal(changes[0].name, first);
    assert.match(changes[0].id, /^https:\/\//);
    release();
    await page.waitForSelector("#affiliation-picker-input");
    assert.equal(await aff().inputValue(), first);
    assert.equal(await page.locator("input[name=affiliation_id]").inputValue(), changes[0].id);
    assert.equal(await page.locator("registry-picker#affiliation [role=listbox]").count(), 1, "the early list is gone");
    assert.deepEqual(await page.evaluate(() => window.__changes), changes, "no second change event at mount");
  } finally {
    await free();
  }
});

test("a pick in the early list that is edited is text as typed again, before and after the picker is mounted", async () => {
  const { page } = t;
  const { release, free } = await holdAt(page, /registry_widget_bg\.[0-9a-f]+\.wasm$/);
  try {
    const plain = await typeEarly("kilimani");
    // Picked with the mouse, then edited.
    await page.locator("registry-picker#affiliation [role=option]").first().click();
    const picked = await plain.inputValue();
    await page.keyboard.type(" campus");
    const changes = await page.evaluate(() => window.__changes);
    assert.equal(changes.length, 2);
    assert.ok(changes[0].id && changes[0].name === picked, JSON.stringify(changes[0]));
    // The pick is gone at the first edit (the text then; the picker reports later text on blur, as ever).
    assert.deepEqual({ ...changes[1], name: null }, { id: null, name: null, country: null, status: null, freeText: true });
    assert.ok(`${picked} campus`.startsWith(changes[1].name) && changes[1].name.length > picked.length, changes[1].name);
    assert.equal(await page.locator("registry-picker#affiliation").evaluate((el) => el.value.freeText), true);
    release();
    await page.waitForSelector("#affiliation-picker-input");
    assert.equal(await aff().inputValue(), `${picked} campus`);
    assert.equal(await page.locator("input[name=affiliation_id]").inputValue(), "");
  } finally {
    await free();
  }
});

test("the UI's wasm is asked for after the suggest-only wasm, which the first suggestions need, has arrived", async () => {
  const { page } = t;
  const suggest = /registry_suggest_bg\.[0-9a-f]+\.wasm$/;
  const { release, free } = await holdAt(page, suggest);
  const asked = [];
  const onRequest = (r) => /\.wasm$/.test(r.url()) && asked.push(new URL(r.url()).pathname.split("/").pop().split(".")[0]);
  page.on("request", onRequest);
  try {
    await page.goto(t.url("widget-demo.html"));
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => /manifest\.json$/.test(e.name)));
    await page.waitForTimeout(300);
    assert.deepEqual(asked, ["registry_suggest_bg"]);
    release();
    await page.waitForSelector("#affiliation-picker-input");
    assert.deepEqual(asked, ["registry_suggest_bg", "registry_widget_bg"]);
  } finally {
    page.off("request", onRequest);
    await free();
  }
});

test("the data manifest is asked for with the code, before registry-pieces.js has arrived", async () => {
  const { page } = t;
  // A page with a picker and nothing else (the demo page asks for the manifest itself).
  const bare = t.url("bare-picker.html");
  await page.route(bare, (route) =>
    route.fulfill({ contentType: "text/html", body: `<!doctype html><script type="module" src="registry-picker.js"></script><registry-picker id="p" name="org" label="Organization"></registry-picker>` }),
  );
  const piecesJs = /\/ui\/registry-pieces\.[0-9a-f]+\.js$/;
  const { release, free } = await holdAt(page, piecesJs);
  try {
    await page.goto(bare);
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => /\/data\/manifest\.json$/.test(e.name)), null, { timeout: 5_000 });
    release();
    await page.locator("#p-picker-input").fill("kilimani agri");
    await page.waitForFunction(() => document.getElementById("p-picker-list").dataset.for === "kilimani agri");
    assert.equal(await page.locator("#p-picker-list [role=option] .cb-name").first().textContent(), (await wholeNames("kilimani agri"))[0]);
  } finally {
    await free();
    await page.unroute(bare);
  }
});

test("the demo page asks for the manifest after a picker is ready: until then the widget's request is the only one", async () => {
  const { page } = t;
  // The manifest requests the page makes (a wrapped fetch), counted when the first picker is ready.
  await page.addInitScript(() => {
    let asked = 0;
    const fetch = window.fetch;
    window.fetch = (input, init) => (/\/data\/manifest\.json$/.test(String(input.url ?? input)) && asked++, fetch(input, init));
    document.addEventListener("registry-picker-ready", () => (window.__manifestsAtReady ??= asked));
  });
  await open();
  assert.equal(await page.evaluate(() => window.__manifestsAtReady), 1);
  // The demo's e-mail hint, from the manifest, still comes.
  await page.locator("#email-example").waitFor();
});

test("a plain input in the page is adopted: usable before the script runs, what is typed there is kept and answered", async () => {
  const { page } = t;
  let release;
  const held = new Promise((r) => (release = r));
  const script = /registry-picker\.js$/;
  await page.route(script, async (route) => {
    await held;
    await route.continue();
  });
  try {
    // Not waiting for "load": module scripts hold it (and DOMContentLoaded) back.
    await page.goto(t.url("widget-demo.html"), { waitUntil: "commit" });
    await page.locator("registry-picker#affiliation input").waitFor();
    // The page's own input, before any script of the widget: enabled, typeable.
    const plain = page.locator("registry-picker#affiliation input");
    assert.equal(await plain.count(), 1);
    await plain.click();
    await page.keyboard.type("kilim");
    release();
    await page.waitForSelector("#affiliation-picker-input");
    await page.locator("#affiliation-picker-list [role=option]").first().waitFor();
    assert.equal(await aff().inputValue(), "kilim");
    assert.equal(await page.locator("#affiliation-picker-list").getAttribute("data-for"), "kilim");
    assert.equal(await page.evaluate(() => document.activeElement.id), "affiliation-picker-input");
    // One input named "affiliation" in the form (the adopted one is gone).
    assert.equal(await page.locator("#form input[name=affiliation]").count(), 1);
  } finally {
    release();
    await page.unroute(script);
  }
});

test("form-associated: reset() restores the initial value, a disabled fieldset disables it, required takes part in validation, FormData has both fields", async () => {
  const { page } = t;
  await open();
  await page.evaluate(() => {
    document.body.insertAdjacentHTML(
      "beforeend",
      `<form id="fa"><fieldset id="fa-set"><registry-picker id="fa-p" name="org" label="Org" required
         value="Northfield University" id-value="https://ror.org/0bsd6jb11"></registry-picker></fieldset></form>`,
    );
  });
  await page.waitForSelector("#fa-p-picker-input");
  const state = () =>
    page.evaluate(() => {
      const form = document.getElementById("fa");
      const fd = new FormData(form);
      return { org: fd.get("org"), id: fd.get("org_id"), valid: form.checkValidity(), disabled: document.getElementById("fa-p-picker-input").disabled };
    });
  assert.deepEqual(await state(), { org: "Northfield University", id: "https://ror.org/0bsd6jb11", valid: true, disabled: false });
  // Free text instead, then cleared: required fails; reset() brings the initial pick back.
  await suggestionsFor("#fa-p-picker-input", "#fa-p-picker-list", "Somewhere Else");
  assert.deepEqual(await state(), { org: "Somewhere Else", id: "", valid: true, disabled: false });
  await page.locator("#fa-p-picker-input").fill("");
  assert.equal((await state()).valid, false);
  assert.equal(await page.evaluate(() => document.getElementById("fa").reportValidity()), false);
  await page.evaluate(() => document.getElementById("fa").reset());
  await page.waitForFunction(() => document.getElementById("fa-p-picker-input").value === "Northfield University");
  assert.deepEqual(await state(), { org: "Northfield University", id: "https://ror.org/0bsd6jb11", valid: true, disabled: false });
  assert.equal(await page.locator("#fa-p .rp").getAttribute("data-state"), "picked");
  // A disabled fieldset disables it (and keeps it out of the submission), and back.
  await page.evaluate(() => (document.getElementById("fa-set").disabled = true));
  assert.deepEqual(await state(), { org: null, id: null, valid: true, disabled: true });
  await page.evaluate(() => (document.getElementById("fa-set").disabled = false));
  assert.equal((await state()).disabled, false);
  // So does its own `disabled` attribute.
  await page.evaluate(() => document.getElementById("fa-p").setAttribute("disabled", ""));
  assert.deepEqual(await state(), { org: null, id: null, valid: true, disabled: true });
  await page.evaluate(() => document.getElementById("fa-p").removeAttribute("disabled"));
  assert.equal((await state()).disabled, false);
  assert.equal(await page.evaluate(() => document.getElementById("fa-p").form?.id), "fa");
  await page.evaluate(() => document.getElementById("fa").remove());
});

test("multiple: pick two, remove one, keep a text as typed; the form submits the list as repeated pairs", async () => {
  const { page } = t;
  await open();
  const input = page.locator("#affiliations-picker-input");
  await input.waitFor();
  const pickFirst = async (text) => {
    await suggestionsFor("#affiliations-picker-input", "#affiliations-picker-list", text);
    await input.press("ArrowDown");
    await input.press("Enter");
  };
  const submitted = () =>
    page.evaluate(() => {
      const f = new FormData(document.getElementById("form"));
      return { names: f.getAll("affiliations"), ids: f.getAll("affiliations_id") };
    });
  assert.deepEqual(await submitted(), { names: [], ids: [] });
  await pickFirst("northfield univ");
  await pickFirst("kilimani agri");
  assert.equal(await input.inputValue(), "", "the input is cleared for the next one");
  // Two picks: two pairs of fields.
  const two = await submitted();
  assert.deepEqual(two.names, ["Northfield University", "Kilimani University of Agriculture"]);
  assert.equal(two.ids.length, 2);
  assert.ok(two.ids.every((id) => /^https:\/\/ror\.org\/0/.test(id)));
  // Remove the second: one pair left; focus returns to the input, the removal is announced.
  const entries = () => page.locator("#affiliations .rp-item .rp-item-name").allInnerTexts();
  await page.getByRole("button", { name: "Remove Kilimani University of Agriculture" }).click();
  assert.deepEqual(await entries(), ["Northfield University"]);
  assert.deepEqual(await submitted(), { names: ["Northfield University"], ids: [two.ids[0]] });
  assert.equal(await page.evaluate(() => document.activeElement.id), "affiliations-picker-input");
  await page.locator("#affiliations [role=status]", { hasText: "Kilimani University of Agriculture removed" }).waitFor({ state: "attached" });
  // A text kept as typed (Enter) is an entry with an empty id.
  await input.fill("Institute Not In The Registry");
  await input.press("Enter");
  assert.deepEqual(await entries(), ["Northfield University", "Institute Not In The Registry"]);
  const detail = await page.evaluate(() => document.getElementById("affiliations").value);
  assert.deepEqual(detail.values.map((v) => v.freeText), [false, true]);
  assert.deepEqual(await submitted(), { names: ["Northfield University", "Institute Not In The Registry"], ids: [two.ids[0], ""] });
  // Sent: the demo's "Last submission" shows every pair, as the server receives them.
  await Promise.all([page.waitForNavigation(), page.locator("#form button[type=submit]").click()]);
  const last = JSON.parse(await page.locator("#submitted").innerText());
  assert.deepEqual(last.affiliations, ["Northfield University", "Institute Not In The Registry"]);
  assert.deepEqual(last.affiliations_id, [two.ids[0], ""]);
  await input.waitFor();
  // reset() empties the list.
  await page.evaluate(() => document.getElementById("form").reset());
  await page.waitForFunction(() => document.querySelectorAll("#affiliations .rp-item").length === 0);
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

// Context from the form (the second form of the demo page): boosts and
// offers, never filters.
const byName = (name) => DEMO.find((r) => display(r) === name);
const optionNames = (list) => t.page.locator(`${list} [role=option]:not(.cb-succ) .cb-name`).allInnerTexts();

async function openContext() {
  await t.page.goto(t.url("widget-demo.html"));
  await t.page.evaluate(() => localStorage.clear());
  for (const id of ["institution", "host", "station"]) await t.page.waitForSelector(`#${id}-picker-input`);
}

test("domain-from: an e-mail typed in the form is offered on focus before typing; the pick submits its id", async () => {
  const { page } = t;
  await openContext();
  const input = page.locator("#institution-picker-input");
  // Nothing to offer before there is an address: focusing leaves the list closed.
  await input.focus();
  assert.equal(await input.getAttribute("aria-expanded"), "false");
  await page.locator("#email").fill("jane.doe@polar.northfield-university.example");
  await input.focus();
  await page.waitForSelector("#institution-picker-list [role=option]");
  assert.equal(await input.inputValue(), "");
  assert.deepEqual(await optionNames("#institution-picker-list"), [
    "Northfield University Institute for Polar Sciences", // the exact domain first,
    "Northfield University", // then its parent domain's records
  ]);
  assert.equal(await input.getAttribute("aria-expanded"), "true");
  assert.equal(await input.getAttribute("aria-activedescendant"), null);
  assert.match(await page.locator("#institution-picker-list [role=option]").first().innerText(), /From your e-mail domain/);
  await page.keyboard.press("ArrowDown");
  assert.equal(await input.getAttribute("aria-activedescendant"), "institution-picker-list-0");
  assert.equal(await page.locator("#institution-picker-list-0").getAttribute("aria-selected"), "true");
  await page.keyboard.press("Enter");
  const polar = byName("Northfield University Institute for Polar Sciences");
  assert.equal(await input.inputValue(), display(polar));
  assert.equal(await input.getAttribute("aria-expanded"), "false");
  await Promise.all([page.waitForURL(/institution_id=/), page.getByRole("button", { name: "Send" }).click()]);
  const sent = new URL(page.url()).searchParams;
  assert.equal(sent.get("institution_id"), polar.id);
  assert.equal(sent.get("institution"), display(polar));
  assert.equal(sent.get("email"), "jane.doe@polar.northfield-university.example");
});

test("email-domain: the attribute's organisations are offered on focus and boosted while typing; lang shows the label first", async () => {
  const { page } = t;
  await openContext();
  const input = page.locator("#host-picker-input");
  await input.focus();
  const first = page.locator("#host-picker-list [role=option]").first();
  await first.waitFor();
  assert.equal(await page.locator("#host-picker-list [role=option]").count(), 1);
  // lang="es": the Spanish label is the main line, the display name second.
  assert.equal(await first.locator(".cb-name").innerText(), "Universidad de Northfield");
  assert.equal(await first.locator(".cb-name").getAttribute("lang"), "es");
  assert.equal(await first.locator(".cb-display").innerText(), "Northfield University");
  assert.match(await first.innerText(), /De su dominio de correo/, "strings override the new texts");
  // Records without a Spanish label show their display name as the main line.
  const names = await suggestionsFor("#host-picker-input", "#host-picker-list", "institute");
  assert.ok(names.includes("Northfield University Institute for Polar Sciences"), JSON.stringify(names));
  assert.equal(await page.locator("#host-picker-list .cb-display").count(), 0);
  // Typing: the domain's record is boosted above records the plain picker ranks first.
  const plain = await suggestionsFor("#affiliation-picker-input", "#affiliation-picker-list", "univ");
  assert.notEqual(plain[0], "Northfield University");
  await input.fill("");
  await input.pressSequentially("univ");
  await page.waitForFunction(() => document.getElementById("host-picker-list").dataset.for === "univ");
  const boosted = await optionNames("#host-picker-list");
  assert.equal(boosted[0], "Universidad de Northfield");
  assert.ok(boosted.length > 1, "other records are still listed");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  // What is submitted is the display name and the id.
  assert.equal(await input.inputValue(), "Northfield University");
  assert.equal(await page.locator("input[name=host_id]").inputValue(), byName("Northfield University").id);
  // Every text of the demo's Spanish picker is overridden: no English is left.
  assert.equal(await page.locator("#host-picker-note").innerText(), "Elegida del registro.");
  await input.fill("Instituto que no está en el registro");
  assert.match(await page.locator("#host-picker-note").innerText(), /texto libre/);
});

test("context: boosts and labels from the pieces in the keystroke's task; e-mail offers from the whole registry", async () => {
  const { page } = t;
  await openContext();
  // prefer-country/prefer-types on a leaf piece: exact, and synchronous once the piece is here.
  await suggestionsFor("#station-picker-input", "#station-picker-list", "institut");
  const got = await typeInOneTask(page, "#station-picker-input", "#station-picker-list", "institute");
  assert.equal(got.names[0], "Yakutsk Institute of Cryosphere Sciences");
  assert.equal(await wholeOpened(), false);
  // An e-mail domain needs the domains file: the whole registry answers (opened now).
  await page.locator("#email").fill("someone@nfu.example");
  await page.locator("#institution-picker-input").focus();
  await page.locator("#institution-picker-list [role=option]").first().waitFor();
  assert.deepEqual(await optionNames("#institution-picker-list"), ["Northfield University"]);
  assert.equal(await wholeOpened(), true);
  assert.equal((await suggestionsFor("#host-picker-input", "#host-picker-list", "univ"))[0], "Universidad de Northfield");
});

test("focus with nothing to offer (the domain's records filtered out) keeps the listbox closed, without 'no results'", async () => {
  const { page } = t;
  await openContext();
  // A picker added later, restricted to France, with a US domain.
  await page.evaluate(() => {
    const el = document.createElement("registry-picker");
    Object.assign(el, { id: "late" });
    el.setAttribute("name", "late");
    el.setAttribute("email-domain", "nfu.example");
    el.setAttribute("country", "FR");
    document.getElementById("context-form").append(el);
  });
  await page.waitForSelector("#late-picker-input");
  // The whole registry answers (e-mail context); whatever it says, the
  // listbox must not open on "no results" meanwhile or after.
  await page.locator("#late-picker-input").focus();
  await page.evaluate(async () => (await customElements.get("registry-picker").registry).whole()); // opened and loaded
  await page.waitForTimeout(300); // its answer (a Worker message) has arrived
  const state = await page.evaluate(async () => {
    const input = document.getElementById("late-picker-input");
    return {
      focused: document.activeElement === input,
      expanded: input.getAttribute("aria-expanded"),
      options: document.querySelectorAll("#late-picker-list [role=option]").length,
      empty: document.querySelector("registry-picker#late .cb-empty").hidden,
    };
  });
  assert.deepEqual(state, { focused: true, expanded: "false", options: 0, empty: true });
  // Typing still works under the filter.
  assert.deepEqual(await suggestionsFor("#late-picker-input", "#late-picker-list", "montclair"), ["Université de Montclair-sur-Rhône"]);
});

test("prefer-country and prefer-types reorder the suggestions without filtering them", async () => {
  await openContext();
  const plain = await suggestionsFor("#affiliation-picker-input", "#affiliation-picker-list", "institute");
  const preferred = await suggestionsFor("#station-picker-input", "#station-picker-list", "institute");
  const yakutsk = "Yakutsk Institute of Cryosphere Sciences";
  assert.notEqual(plain[0], yakutsk);
  assert.equal(preferred[0], yakutsk, JSON.stringify(preferred));
  // prefer-types="facility": the polar institute (a facility) passes Hanbit (education).
  const polar = "Northfield University Institute for Polar Sciences";
  const hanbit = "Hanbit Institute of Science and Technology";
  assert.ok(plain.indexOf(hanbit) < plain.indexOf(polar), JSON.stringify(plain));
  assert.ok(preferred.indexOf(polar) < preferred.indexOf(hanbit), JSON.stringify(preferred));
  // A boost, not a filter: the plain picker's best records are still listed.
  for (const n of plain.slice(0, 3)) assert.ok(preferred.includes(n), n);
  const countries = preferred.map((n) => {
    const l = byName(n).locations[0];
    return (l.geonames_details ?? l.geo_details).country_code;
  });
  assert.ok(countries.filter((c) => !["RU", "DE"].includes(c)).length >= 5, JSON.stringify(countries));
});

/** The whole registry's suggestion names for `text` (what the pieces must equal), at the widget's limit. */
async function wholeNames(text, filters = []) {
  return t.page.evaluate(async ({ text, filters }) => {
    window.__whole ??= import(new URL("registry.js", document.baseURI).href).then((m) => m.openRegistry({ dataUrl: new URL("data/", document.baseURI) }));
    const hits = await (await window.__whole).call("suggest", [text, { filters, limit: 8 }]);
    return hits.map((h) => h.summary.name);
  }, { text, filters });
}

/** Whether the widget's typeahead has opened the whole registry. */
async function wholeOpened() {
  return t.page.evaluate(async () => (await customElements.get("registry-picker").registry).wholeOpened);
}

/** Types `text` into a picker and waits for its answer; the option names, in order. */
async function suggestionsFor(inputSel, listSel, text) {
  await t.page.locator(inputSel).fill(text);
  await t.page.waitForFunction(({ listSel, text }) => document.querySelector(listSel).dataset.for === text, { listSel, text });
  return optionNames(listSel);
}

test("remember: a pick is kept in this browser, ranked first after a reload, marked, and can be forgotten", async () => {
  const { page } = t;
  await openContext();
  const input = page.locator("#institution-picker-input");
  const caldera = byName("Caldera State University");
  // Without the memory, "univ" does not put Caldera first.
  assert.notEqual((await suggestionsFor("#institution-picker-input", "#institution-picker-list", "univ"))[0], display(caldera));
  await input.fill("caldera");
  await page.waitForFunction(() => document.getElementById("institution-picker-list").dataset.for === "caldera");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  assert.equal(await page.locator("input[name=institution_id]").inputValue(), caldera.id);
  assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem("registry-picker:remembered"))), [caldera.id]);
  assert.equal(await page.locator("registry-picker#institution").evaluate((el) => el.rememberKey), "registry-picker:remembered");

  await page.reload();
  await page.waitForSelector("#institution-picker-input");
  // On focus, before typing: the remembered pick is offered.
  await input.focus();
  await page.waitForSelector("#institution-picker-list [role=option]");
  assert.deepEqual(await optionNames("#institution-picker-list"), [display(caldera)]);
  assert.equal(await input.getAttribute("aria-expanded"), "true");
  // Typing a text it matches: first, with the marker and the forget button.
  const names = await suggestionsFor("#institution-picker-input", "#institution-picker-list", "univ");
  assert.equal(names[0], display(caldera));
  const first = page.locator("#institution-picker-list [role=option]").first();
  assert.equal(await first.locator(".cb-mark").innerText(), "Picked before");
  assert.equal(await page.locator("#institution-picker-list .cb-mark[data-reason=remembered]").count(), 1);
  const forget = page.getByRole("button", { name: "Forget my past picks" });
  assert.ok(await forget.isVisible());
  // The button is reachable from the keyboard: Tab from the input lands on
  // it after the × at the input's end (the visual order).
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.className), "rp-clear");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.className), "rp-forget");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => localStorage.getItem("registry-picker:remembered")), null);
  assert.equal(await page.evaluate(() => document.activeElement.id), "institution-picker-input");
  await page.waitForFunction(() => !document.querySelector("#institution-picker-list .cb-mark"));
  assert.ok(await forget.isHidden());

  await page.reload();
  await page.waitForSelector("#institution-picker-input");
  const after = await suggestionsFor("#institution-picker-input", "#institution-picker-list", "univ");
  assert.notEqual(after[0], display(caldera));
  assert.equal(await page.locator("#institution-picker-list .cb-mark").count(), 0);
  // element.forgetRemembered() is the same from JS.
  await page.evaluate((id) => localStorage.setItem("registry-picker:remembered", JSON.stringify([id])), caldera.id);
  await page.locator("registry-picker#institution").evaluate((el) => el.forgetRemembered());
  assert.equal(await page.evaluate(() => localStorage.getItem("registry-picker:remembered")), null);
});

test("remember still works as a picker when localStorage throws (privacy modes)", async () => {
  const page = await t.context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.addInitScript(() => {
    Object.defineProperty(window, "localStorage", { get() { throw new DOMException("denied", "SecurityError"); } });
  });
  try {
    await page.goto(t.url("widget-demo.html"));
    const input = page.locator("#institution-picker-input");
    await input.waitFor();
    await input.fill("caldera");
    await page.waitForSelector("#institution-picker-list [role=option]");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    assert.equal(await page.locator("input[name=institution_id]").inputValue(), byName("Caldera State University").id);
    await input.fill("univ");
    await page.waitForFunction(() => document.getElementById("institution-picker-list").dataset.for === "univ");
    assert.equal(await page.locator("#institution-picker-list .cb-mark").count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test("Enter submits the form as a plain field does once no option is highlighted (after a pick, on free text); an active option is picked without submitting; validation holds", async () => {
  const { page } = t;
  await open();
  await page.evaluate(() => {
    document.body.insertAdjacentHTML(
      "beforeend",
      `<form id="en"><registry-picker id="en-p" name="org" label="Org" required></registry-picker>
         <registry-picker id="en-m" name="orgs" label="Orgs" multiple></registry-picker><button>Send</button></form>`,
    );
    window.__sent = [];
    document.getElementById("en").addEventListener("submit", (e) => {
      e.preventDefault();
      const fd = new FormData(e.target);
      window.__sent.push({ org: fd.get("org"), id: fd.get("org_id"), orgs: fd.getAll("orgs"), freeText: document.getElementById("en-p").value?.freeText ?? null });
    });
  });
  const input = page.locator("#en-p-picker-input");
  await input.waitFor();
  const sent = () => page.evaluate(() => window.__sent);
  // Required and empty: the browser's validation stops the submission.
  await input.focus();
  await page.keyboard.press("Enter");
  assert.deepEqual(await sent(), []);
  assert.equal(await page.evaluate(() => document.getElementById("en-p-picker-input").matches(":invalid")), true);
  // Enter on the highlighted option picks it, and only that.
  await suggestionsFor("#en-p-picker-input", "#en-p-picker-list", "northfield univ hosp");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  const rec = DEMO.find((r) => display(r) === "Northfield University Hospital");
  assert.equal(await input.inputValue(), "Northfield University Hospital");
  assert.deepEqual(await sent(), []);
  // The list is closed: Enter submits, the pick's pair in it.
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__sent.length === 1);
  assert.deepEqual((await sent())[0], { org: "Northfield University Hospital", id: rec.id, orgs: [], freeText: false });
  // Text as typed, options shown but none highlighted: Enter submits it
  // (the element's value says free text by the submit event).
  await suggestionsFor("#en-p-picker-input", "#en-p-picker-list", "Northfield Nowhere Institute");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => window.__sent.length === 2);
  assert.deepEqual((await sent())[1], { org: "Northfield Nowhere Institute", id: "", orgs: [], freeText: true });
  assert.equal(await input.getAttribute("aria-expanded"), "false");
  // multiple: Enter keeps a typed text as an entry (no submission); with
  // nothing typed it submits.
  const multi = page.locator("#en-m-picker-input");
  await multi.fill("Somewhere Else");
  await multi.press("Enter");
  assert.equal((await sent()).length, 2);
  assert.deepEqual(await page.locator("#en-m .rp-item-name").allInnerTexts(), ["Somewhere Else"]);
  await multi.press("Enter");
  await page.waitForFunction(() => window.__sent.length === 3);
  assert.deepEqual((await sent())[2].orgs, ["Somewhere Else"]);
  await page.evaluate(() => document.getElementById("en").remove());
});

for (const [width, height] of [[1280, 850], [390, 844]]) {
  test(`the clear button is centred on the input at ${width} px, whatever the label's height`, async () => {
    const { page } = t;
    await page.setViewportSize({ width, height });
    try {
      await open();
      await page.evaluate(() => {
        document.body.insertAdjacentHTML(
          "beforeend",
          `<form id="cl"><registry-picker id="cl-long" name="a" label="Institution where you carried out the work described in this submission (main affiliation at the time, or the one you held longest)"
             value="Northfield University" id-value="https://ror.org/041qyp388"></registry-picker>
           <registry-picker id="cl-short" name="b" label="Short" value="Northfield University"></registry-picker></form>`,
        );
      });
      for (const id of ["cl-long", "cl-short"]) {
        await page.locator(`#${id}-picker-input`).waitFor();
        const clear = page.locator(`#${id} .rp-clear`);
        await clear.waitFor();
        const [i, c, l] = await Promise.all([page.locator(`#${id}-picker-input`).boundingBox(), clear.boundingBox(), page.locator(`#${id} label`).boundingBox()]);
        assert.ok(Math.abs(i.y + i.height / 2 - (c.y + c.height / 2)) <= 1, `${id}: × at ${c.y}+${c.height}, input at ${i.y}+${i.height}`);
        assert.ok(c.y >= i.y && c.y + c.height <= i.y + i.height, `${id}: the × stays inside the input`);
        assert.ok(c.x + c.width <= i.x + i.width && c.x > i.x + i.width / 2, `${id}: the × is at the input's end`);
        if (id === "cl-long" && width === 390) assert.ok(l.height > 40, "the long label wraps");
      }
      // For a look by eye only (not a README picture), like the dark pickers below.
      if (process.env.SHOT_DIR) await page.locator("#cl").screenshot({ path: path.join(process.env.SHOT_DIR, `widget-clear-${width}.png`) });
      await page.evaluate(() => document.getElementById("cl").remove());
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  });
}

// Text against what is under it, as the eye sees it (WCAG 2 contrast).
async function contrasts(page, pairs) {
  return page.evaluate((pairs) => {
    const cv = Object.assign(document.createElement("canvas"), { width: 1, height: 1 });
    const cx = cv.getContext("2d", { willReadFrequently: true });
    // The opaque colour of `el`'s background: its own over its ancestors'.
    const bgOf = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) layers.push(getComputedStyle(e).backgroundColor);
      cx.fillStyle = getComputedStyle(document.documentElement).colorScheme.includes("dark") && matchMedia("(prefers-color-scheme: dark)").matches ? "#121212" : "#ffffff";
      cx.fillRect(0, 0, 1, 1);
      for (const c of layers.reverse()) {
        cx.fillStyle = c;
        cx.fillRect(0, 0, 1, 1);
      }
      return [...cx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    };
    const rgb = (c, under) => {
      cx.fillStyle = `rgb(${under})`;
      cx.fillRect(0, 0, 1, 1);
      cx.fillStyle = c;
      cx.fillRect(0, 0, 1, 1);
      return [...cx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    };
    const lum = (c) => c.map((v) => v / 255).map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const out = {};
    for (const [name, sel] of pairs) {
      const el = document.querySelector(sel);
      if (!el) throw new Error(`no ${sel}`);
      const bg = bgOf(el);
      const fg = rgb(getComputedStyle(el).color, bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      out[name] = Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100;
    }
    return out;
  }, pairs);
}

// Dark: the integrator's theme (every property documented before, under
// prefers-color-scheme: dark, on a page that declares `light dark`), and
// the defaults alone on such a page: every text reads at >= 4.5:1.
for (const theme of ["page theme", "defaults"]) {
  test(`dark (${theme}): the withdrawn and successor rows, badges, notes and the error read at 4.5:1 or more`, async () => {
    const { page } = t;
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      await open();
      await page.evaluate((themed) => {
        document.documentElement.style.colorScheme = "light dark";
        document.body.style.cssText += ";background: Canvas; color: CanvasText";
        const style = document.createElement("style");
        style.textContent = themed
          ? `@media (prefers-color-scheme: dark) { registry-picker { --registry-picker-fg: #e8e8e8; --registry-picker-bg: #1f1f1f; --registry-picker-muted: #b0b0b0;
               --registry-picker-accent: #8ab4f8; --registry-picker-active-bg: #2b3a55; --registry-picker-border: #777; --registry-picker-mark: #5c4a00; } }`
          : "";
        document.head.append(style);
        document.body.insertAdjacentHTML(
          "beforeend",
          `<form id="dk"><registry-picker id="dk-a" name="a" label="A"></registry-picker>
             <registry-picker id="dk-f" name="f" label="F" value="Somewhere Else"></registry-picker>
             <registry-picker id="dk-p" name="p" label="P" value="Northfield University" id-value="https://ror.org/041qyp388"></registry-picker></form>`,
        );
      }, theme === "page theme");
      await page.locator("#dk-p-picker-input").waitFor();
      await suggestionsFor("#dk-a-picker-input", "#dk-a-picker-list", "Northfield University Board of Regents");
      await page.locator("#dk-a-picker-list .cb-succ").first().waitFor();
      const list = "#dk-a-picker-list";
      const got = await contrasts(page, [
        ["withdrawn name", `${list} [data-status=withdrawn] .cb-name`],
        ["withdrawn meta", `${list} [data-status=withdrawn] .cb-meta`],
        ["withdrawn badge", `${list} [data-status=withdrawn] .badge`],
        ["successor line", `${list} .cb-succ .cb-line`],
        ["successor meta", `${list} .cb-succ .cb-meta`],
        ["input", "#dk-a-picker-input"],
        ["free-text note", "#dk-f-picker-note"],
        ["picked note", "#dk-p-picker-note"],
      ]);
      for (const [name, ratio] of Object.entries(got)) assert.ok(ratio >= 4.5, `${name}: ${ratio}:1 (${JSON.stringify(got)})`);
      // The other badges, and the load error's text, on their backgrounds.
      await page.evaluate(() => {
        document.getElementById("dk").insertAdjacentHTML(
          "beforeend",
          `<div class="rp"><div class="cb"><span class="badge" data-status="active" id="dk-b1">Active</span><span class="badge" data-status="inactive" id="dk-b2">Inactive</span>
           <div class="cb-error" id="dk-err">Suggestions are unavailable</div></div></div>`,
        );
      });
      const more = await contrasts(page, [["active badge", "#dk-b1"], ["inactive badge", "#dk-b2"], ["error", "#dk-err"]]);
      for (const [name, ratio] of Object.entries(more)) assert.ok(ratio >= 4.5, `${name}: ${ratio}:1`);
      if (process.env.SHOT_DIR) {
        await page.locator("#dk-a-picker-input").focus();
        await page.locator("#dk").screenshot({ path: path.join(process.env.SHOT_DIR, `widget-dark-${theme.replace(" ", "-")}.png`) });
      }
      await page.evaluate(() => document.getElementById("dk").remove());
    } finally {
      await page.emulateMedia({ colorScheme: "light" });
    }
  });
}

test("a light-only page keeps a light picker when the visitor prefers dark (the widget follows the page's color-scheme)", async () => {
  const { page } = t;
  await page.emulateMedia({ colorScheme: "dark" });
  try {
    await open();
    const bg = await page.locator("#affiliation-picker-input").evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.equal(bg, "rgb(255, 255, 255)");
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
  }
});

test("no console errors", () => {
  assert.deepEqual(t.errors, []);
});
