// <registry-picker> embedded from another origin whose host sends no
// Access-Control-Allow-Origin (issue 38 item 4): a host that lets the
// loader through but not the widget's code (a header set for some files
// only, as nginx's add_header in an inner `location` does), and a data
// folder without the header. The loader notices: one console error naming
// the missing header and the file, a `registry-picker-error` event with
// reason "cors", and the early input keeps working as free text (an empty
// id field), never a silent free text. A loader refused itself runs no
// code: the form then sends no id field at all (README's contract).
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS } from "./server.mjs";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
let browser, dir;
const closers = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "picker-nocors-"));
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  for (const close of closers) await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The site on one origin (CORS for the files `cors(rel)` says) and a form page on another: {widget, form}. */
async function origins(name, cors, dataUrl = null) { // dataUrl: the picker's data-url, or none
  const widget = await serve(SITE, "/", { cors });
  closers.push(widget.close);
  const folder = path.join(dir, name);
  fs.mkdirSync(folder);
  fs.writeFileSync(
    path.join(folder, "index.html"),
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>form</title><link rel="icon" href="data:,">
<script type="module" src="${widget.url}registry-picker.js"></script></head><body>
<form id="f" method="get" action="index.html">
  <registry-picker id="aff" name="affiliation" label="Affiliation"${dataUrl ? ` data-url="${dataUrl}"` : ""}>
    <label for="aff-in">Affiliation</label><input id="aff-in" name="affiliation">
  </registry-picker>
  <button id="send">Send</button>
</form></body></html>`,
  );
  const form = await serve(folder, "/");
  closers.push(form.close);
  assert.notEqual(new URL(widget.url).origin, new URL(form.url).origin);
  return { widget, form };
}

/** A fresh page with its picker events in window.__events and its console errors in `consoleErrors`. */
async function freshPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const consoleErrors = [];
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  await page.addInitScript(() => {
    window.__events = [];
    for (const type of ["registry-picker-ready", "registry-picker-error"])
      document.addEventListener(type, (e) => window.__events.push({ type, id: e.target.id, detail: e.detail }));
  });
  return { context, page, consoleErrors };
}

/** Types free text in the early input and sends the form: the fields sent. */
async function sendFreeText(page, text) {
  const input = page.locator("registry-picker#aff input[role=combobox]");
  await input.fill(text);
  await Promise.all([page.waitForURL(/affiliation=/), page.locator("#send").click()]);
  const sent = new URL(page.url()).searchParams;
  return { name: sent.get("affiliation"), id: sent.get("affiliation_id") };
}

test("the widget's code on a host without CORS (the loader let through): a cors error event and a console line naming the header", async () => {
  const { widget, form } = await origins("code", (rel) => rel === "registry-picker.js");
  const { context, page, consoleErrors } = await freshPage();
  try {
    await page.goto(form.url);
    await page.waitForFunction(() => window.__events.some((e) => e.type === "registry-picker-error" && e.detail.reason === "cors" && /\/ui\//.test(e.detail.url)));
    const events = await page.evaluate(() => window.__events);
    const code = events.find((e) => e.type === "registry-picker-error" && /\/ui\//.test(e.detail.url));
    assert.equal(code.id, "aff");
    assert.ok(code.detail.url.startsWith(widget.url + "ui/registry_widget."), code.detail.url);
    assert.match(code.detail.message, /Access-Control-Allow-Origin/);
    assert.ok(!events.some((e) => e.type === "registry-picker-ready"), "never mounted");
    assert.ok(consoleErrors.some((m) => /^registry-picker: /.test(m) && /Access-Control-Allow-Origin/.test(m) && m.includes(code.detail.url)), consoleErrors.join("\n"));
    // The early input is still a form field: free text, with an empty id.
    assert.deepEqual(await sendFreeText(page, "Nowhere Institute"), { name: "Nowhere Institute", id: "" });
  } finally {
    await context.close();
  }
});

test("the data on a host without CORS: a cors error event and a console line naming the header and the manifest", async () => {
  // The widget's files with the header, its data folder (another origin) without.
  const data = await serve(SITE, "/");
  closers.push(data.close);
  const { form } = await origins("data", true, `${data.url}data/`);
  const { context, page, consoleErrors } = await freshPage();
  try {
    await page.goto(form.url);
    await page.waitForFunction(() => window.__events.some((e) => e.type === "registry-picker-error"));
    const failed = (await page.evaluate(() => window.__events)).filter((e) => e.type === "registry-picker-error");
    assert.equal(failed.length, 1, JSON.stringify(failed));
    assert.equal(failed[0].detail.url, data.url + "data/manifest.json");
    assert.equal(failed[0].detail.reason, "cors");
    assert.match(failed[0].detail.message, /Access-Control-Allow-Origin/);
    assert.ok(consoleErrors.some((m) => /^registry-picker: /.test(m) && m.includes(data.url + "data/manifest.json") && /Access-Control-Allow-Origin/.test(m)), consoleErrors.join("\n"));
    assert.deepEqual(await sendFreeText(page, "Nowhere Institute"), { name: "Nowhere Institute", id: "" });
  } finally {
    await context.close();
  }
});

test("the loader itself on a host without CORS: no widget code runs, and the form says so by sending no id field at all", async () => {
  // The browser refuses the module script (its console names the header);
  // README documents what the form's server then gets.
  const { form } = await origins("loader", false);
  const { context, page, consoleErrors } = await freshPage();
  try {
    await page.goto(form.url);
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/registry-picker.js")));
    assert.ok(consoleErrors.some((m) => /registry-picker\.js/.test(m) && /Access-Control-Allow-Origin/.test(m)), consoleErrors.join("\n"));
    assert.equal(await page.evaluate(() => customElements.get("registry-picker")), undefined);
    const input = page.locator("#aff-in");
    await input.fill("Nowhere Institute");
    await Promise.all([page.waitForURL(/affiliation=/), page.locator("#send").click()]);
    const sent = new URL(page.url()).searchParams;
    assert.equal(sent.get("affiliation"), "Nowhere Institute");
    assert.equal(sent.has("affiliation_id"), false, "free text from a widget that never ran: no id field (an empty one is free text typed in the widget)");
  } finally {
    await context.close();
  }
});
