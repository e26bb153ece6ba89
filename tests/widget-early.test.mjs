// <registry-picker> before its UI wasm is in (held at the server, as on a
// slow link, or refused): what the loader paints must already be a working
// form field. The id field exists from the first paint and follows the
// early list's picks; `required` and `disabled` hold; the label is there
// from the first paint and nothing moves when the picker replaces the
// plain input, which passes on the page input's attributes; data that
// cannot be loaded is asked for once (not per keystroke), named in the
// console with its likely cause, and told by a `registry-picker-error` event.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, DEMO, display } from "./ui-helpers.mjs";

const UI_WASM = /registry_widget_bg\.[0-9a-f]+\.wasm$/;
const CALDERA = DEMO.find((r) => display(r) === "Caldera State University");

let server, browser;
let holding = null; // the promise the UI wasm waits for, while held
const requested = []; // every path asked of the servers (a Worker's requests too)

before(async () => {
  server = await serve(SITE, PREFIX, { hold: (rel) => (requested.push(rel), holding && UI_WASM.test(rel) ? holding : null) });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** Holds the UI wasm at the server until `release()`. */
function holdUi() {
  let release;
  holding = new Promise((r) => (release = r));
  return () => {
    release();
    holding = null;
  };
}

/** A fresh profile (nothing cached: the held wasm is really asked for); its page's events in window.__events. */
async function freshPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  watchErrors(page, errors);
  const consoleErrors = [];
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ["registry-picker-ready", "registry-picker-error"])
      document.addEventListener(type, (e) => window.__events.push({ type, id: e.target.id, detail: e.detail }));
    document.addEventListener("invalid", (e) => (window.__invalid ??= []).push(e.target.closest("registry-picker")?.id), true);
  });
  return { context, page, errors, consoleErrors };
}

/** A page of the site's folder with `body` after the widget's script tag. */
async function customPage(page, name, body) {
  const url = server.url + name;
  await page.route(url, (route) =>
    route.fulfill({ contentType: "text/html", body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title><script type="module" src="registry-picker.js"></script></head><body>${body}</body></html>` }),
  );
  await page.goto(url);
}

const formData = (page, form, name) => page.evaluate(([form, name]) => new FormData(document.getElementById(form)).getAll(name), [form, name]);

/** Types `text` in the early input of picker `#id` and picks `name` from the early list. */
async function pickEarly(page, id, text, name) {
  const plain = page.locator(`registry-picker#${id} input[role=combobox]`);
  await plain.click();
  await page.keyboard.type(text, { delay: 20 });
  await page.locator(`registry-picker#${id} [role=listbox] [role=option]`, { hasText: name }).first().click();
  assert.equal(await plain.inputValue(), name);
  return plain;
}

test("the id field is there from the first paint: an early pick fills it and is submitted, an edit clears it, the picker takes it over", async () => {
  const release = holdUi();
  const { context, page, errors } = await freshPage();
  try {
    await page.goto(server.url + "widget-demo.html");
    await page.locator("registry-picker#affiliation input[role=combobox]").waitFor();
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [""], "one id field, empty, before anything is picked");
    await pickEarly(page, "affiliation", "caldera", "Caldera State University");
    assert.equal(await page.locator("#affiliation-picker-input").count(), 0, "the UI's wasm is still held");
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [CALDERA.id]);
    // Sent before the widget has loaded: the pick's id goes with it.
    await Promise.all([page.waitForURL(/affiliation_id=/), page.getByRole("button", { name: "Submit" }).click()]);
    const sent = new URL(page.url()).searchParams;
    assert.deepEqual(sent.getAll("affiliation"), ["Caldera State University"]);
    assert.deepEqual(sent.getAll("affiliation_id"), [CALDERA.id]);

    // (The reloaded page is held again.) An edit after a pick is text as typed.
    const plain = await pickEarly(page, "affiliation", "caldera", "Caldera State University");
    await page.keyboard.type(" x");
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [""]);
    await plain.fill("");
    await pickEarly(page, "affiliation", "caldera", "Caldera State University");
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [CALDERA.id]);
    release();
    await page.locator("#affiliation-picker-input").waitFor();
    // The picker's own id field has the pick: still exactly one pair.
    assert.deepEqual(await formData(page, "form", "affiliation"), ["Caldera State University"]);
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [CALDERA.id]);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("a pick in the early list keeps its id when the UI wasm never loads, and a registry-picker-error event tells the page", async () => {
  const { context, page } = await freshPage();
  await page.route(UI_WASM, (route) => route.abort());
  try {
    await page.goto(server.url + "widget-demo.html");
    await page.waitForFunction(() => window.__events.some((e) => e.type === "registry-picker-error" && e.id === "affiliation"));
    const detail = await page.evaluate(() => window.__events.find((e) => e.id === "affiliation").detail);
    assert.equal(detail.reason, "code");
    await pickEarly(page, "affiliation", "caldera", "Caldera State University");
    assert.deepEqual(await formData(page, "form", "affiliation_id"), [CALDERA.id]);
    assert.equal(await page.evaluate(() => window.__events.some((e) => e.type === "registry-picker-ready")), false);
  } finally {
    await context.close();
  }
});

test("required and disabled hold before the widget has loaded, and after", async () => {
  const release = holdUi();
  const { context, page, errors } = await freshPage();
  try {
    await customPage(
      page,
      "early-required.html",
      `<form id="f" action="early-required.html">
        <registry-picker id="req" name="funder" label="Funder" required></registry-picker>
        <registry-picker id="off" name="off" label="Not this one" disabled></registry-picker>
        <button id="send">Send</button></form>`,
    );
    const early = page.locator("registry-picker#req input[role=combobox]");
    await early.waitFor();
    assert.equal(await early.evaluate((i) => i.required), true);
    // Send with the required field empty: the browser's validation stops it.
    await page.locator("#send").click();
    await page.waitForFunction(() => window.__invalid?.includes("req"));
    assert.notEqual(await early.evaluate((i) => i.validationMessage), "");
    assert.equal(new URL(page.url()).search, "");
    // A disabled picker's early input is disabled and not submitted.
    assert.equal(await page.locator("registry-picker#off input[role=combobox]").isDisabled(), true);
    assert.deepEqual(await formData(page, "f", "off"), []);
    assert.deepEqual(await formData(page, "f", "off_id"), []);
    release();
    await page.locator("#req-picker-input").waitFor();
    assert.equal(await page.locator("#req-picker-input").evaluate((i) => i.required), true);
    assert.equal(await page.evaluate(() => document.getElementById("f").checkValidity()), false);
    await page.locator("#req-picker-input").fill("Some Funder");
    assert.equal(await page.evaluate(() => document.getElementById("f").checkValidity()), true);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test("the page's label is shown from the first paint and nothing moves when the picker takes over; the page input's attributes are kept", async () => {
  const release = holdUi();
  const { context, page, errors } = await freshPage();
  try {
    // The README's snippet: a visible label for the page's own input.
    await customPage(
      page,
      "early-label.html",
      `<form id="f" action="early-label.html">
        <registry-picker id="aff" name="affiliation" label="Affiliation">
          <label for="aff-input">Affiliation</label>
          <input id="aff-input" name="affiliation" autocomplete="organization-title" maxlength="120" enterkeyhint="next">
        </registry-picker>
        <registry-picker id="org" name="org" label="Organization"></registry-picker>
        <button id="send">Send</button></form>`,
    );
    await page.locator("registry-picker#org input[role=combobox]").waitFor();
    await page.waitForFunction(() => document.querySelector("link[data-registry-picker]")?.sheet);
    const where = () =>
      page.evaluate(() => ["aff", "org", "send"].map((id) => {
        const el = id === "send" ? document.getElementById(id) : document.querySelector(`registry-picker#${id} input[role=combobox]`);
        return Math.round(el.getBoundingClientRect().top);
      }));
    // Labelled by a visible label, one per picker.
    assert.equal(await page.getByRole("combobox", { name: "Affiliation" }).count(), 1);
    assert.equal(await page.getByRole("combobox", { name: "Organization" }).count(), 1);
    assert.equal(await page.locator("registry-picker#aff label").count(), 1);
    assert.equal(await page.locator("registry-picker#aff label").isVisible(), true);
    const before = await where();
    release();
    await page.locator("#aff-picker-input").waitFor();
    await page.locator("#org-picker-input").waitFor();
    assert.deepEqual(await where(), before, "the inputs and what follows them stay where they were");
    assert.equal(await page.locator("registry-picker#aff label").count(), 1);
    const input = page.locator("#aff-picker-input");
    assert.equal(await input.getAttribute("autocomplete"), "organization-title");
    assert.equal(await input.getAttribute("maxlength"), "120");
    assert.equal(await input.getAttribute("enterkeyhint"), "next");
    assert.equal(await page.getByRole("combobox", { name: "Affiliation" }).count(), 1);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

/**
 * Types in picker #bad (whose data cannot be loaded) until its load error
 * shows; → how often `manifest` was asked for: at the server (`rel`), or by
 * the page and its Workers (`url`: a request the browser blocks never
 * reaches the server).
 */
async function typeWithoutData(page, { rel, url }) {
  let asked = 0;
  const count = (r) => r.url() === url && asked++;
  page.on("request", count);
  requested.length = 0;
  await page.locator("#bad-picker-input").waitFor();
  await page.locator("#bad-picker-input").click();
  await page.keyboard.type("caldera", { delay: 30 });
  await page.locator("#bad-picker-error").waitFor({ state: "visible" });
  page.off("request", count);
  return asked + requested.filter((r) => r === rel).length;
}

test("a data folder that is not there: asked for once, not per keystroke; the console names the URL and the cause; an error event tells the page", async () => {
  const { context, page, consoleErrors } = await freshPage();
  try {
    const manifest = server.url + "no-such-data/manifest.json";
    await customPage(page, "early-404.html", `<form id="f"><registry-picker id="bad" name="affiliation" label="Affiliation" data-url="no-such-data/"></registry-picker></form>`);
    // The loader's own request, made at once (before the typing), was the only one.
    assert.equal(await typeWithoutData(page, { url: manifest, rel: "no-such-data/manifest.json" }), 0);
    const events = await page.evaluate(() => window.__events);
    assert.ok(events.some((e) => e.type === "registry-picker-ready" && e.id === "bad" && e.detail === null), JSON.stringify(events));
    const failed = events.filter((e) => e.type === "registry-picker-error");
    assert.equal(failed.length, 1, JSON.stringify(events));
    assert.deepEqual({ ...failed[0].detail, message: null }, { url: manifest, reason: "http", status: 404, message: null });
    const named = consoleErrors.filter((m) => m.includes(manifest) && /HTTP 404/.test(m) && /data-url/.test(m));
    assert.ok(named.length >= 1, consoleErrors.join("\n"));
  } finally {
    await context.close();
  }
});

test("a data host without CORS: the console and the error event name the URL and CORS; no refetch per keystroke", async () => {
  // Another origin, without Access-Control-Allow-Origin.
  const other = await serve(SITE, "/", { hold: (rel) => (requested.push(rel), null) });
  const { context, page, consoleErrors } = await freshPage();
  try {
    const manifest = other.url + "data/manifest.json";
    await customPage(page, "early-nocors.html", `<form id="f"><registry-picker id="bad" name="affiliation" label="Affiliation" data-url="${other.url}data/"></registry-picker></form>`);
    // The failure is told once its cause is known: after the loader's own
    // read and its one opaque read of the same URL (is the host there, and
    // only CORS missing?). Nothing after that is asked again while typing.
    await page.waitForFunction(() => window.__events?.some((e) => e.type === "registry-picker-error"));
    assert.equal(await typeWithoutData(page, { url: manifest, rel: "data/manifest.json" }), 0);
    const failed = (await page.evaluate(() => window.__events)).filter((e) => e.type === "registry-picker-error");
    assert.equal(failed.length, 1);
    assert.equal(failed[0].detail.url, manifest);
    assert.equal(failed[0].detail.reason, "network");
    assert.match(failed[0].detail.message, /CORS/);
    assert.ok(consoleErrors.some((m) => m.includes(manifest) && /CORS/.test(m)), consoleErrors.join("\n"));
  } finally {
    await context.close();
    await other.close();
  }
});
