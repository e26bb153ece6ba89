// <registry-picker> as an integrator gets it: the npm package (`npm pack` by
// scripts/build-npm.sh) installed into a scratch project, whose page with a
// form is served on one origin, while the package's files and a data folder
// (`data-url`) are served from a second one (a CDN with CORS; two local
// ports), under a page CSP without 'unsafe-inline' / 'unsafe-eval' and with
// the loader pinned by its SRI hash.
// Names are answered from the pieces on the page's main thread; a query that
// needs the whole registry (an e-mail domain) starts its Worker through a
// same-origin Blob module (a module Worker's imports are `worker-src`
// requests: the CSP lists the widget's origin there too).
//
// Needs the site built by scripts/build-web.sh (SITE_DIR, default target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { installPackage } from "./npm-package.mjs";
import { spawn } from "node:child_process";

const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
const REGISTRY = path.resolve("target/release/registry");
let cdn, form, served, servedForm, browser, page, dir, pkgDir, cdnDir;
const errors = [];

/** `registry serve --root <root>` on a free port: {url, close}. */
async function registryServe(root) {
  const child = spawn(REGISTRY, ["serve", "--port", "0", "-q", "--root", root, "--data", path.join(root, "registry-data")], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]);
    });
    child.on("exit", (code) => reject(new Error(`registry serve exited with ${code}`)));
  });
  const url = line.replace(/^listening on /, "") + "/";
  return { url, close: () => new Promise((r) => { child.on("exit", r); child.kill("SIGTERM"); }) };
}

/** A form page on its own origin (a folder of its own, served by the test's server) that loads the picker from `cdnUrl`. */
async function formPage(folder, cdnUrl) {
  fs.mkdirSync(folder, { recursive: true });
  const origin = new URL(cdnUrl).origin;
  // The loader pinned by its SRI hash (it pins its wasm in turn).
  const sri = "sha384-" + crypto.createHash("sha384").update(fs.readFileSync(path.join(pkgDir, "registry-picker.js"))).digest("base64");
  const csp = `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; style-src 'self' ${origin}; connect-src 'self' ${origin}; worker-src 'self' blob: ${origin}`;
  fs.writeFileSync(
    path.join(folder, "index.html"),
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>form on another origin</title><link rel="icon" href="icon.svg">
<script type="module" src="${cdnUrl}registry-picker/registry-picker.js" integrity="${sri}" crossorigin="anonymous"></script></head><body>
<form id="f" method="get" action="index.html">
  <registry-picker id="aff" name="affiliation" label="Affiliation" data-url="${cdnUrl}registry-data/"></registry-picker>
  <registry-picker id="mail" name="institution" label="Institution" email-domain="nfu.example"></registry-picker>
  <registry-picker id="req" name="funder" label="Funder" required></registry-picker>
  <button id="send">Send</button>
</form></body></html>`,
  );
  fs.writeFileSync(path.join(folder, "icon.svg"), `<svg xmlns="http://www.w3.org/2000/svg"/>`);
  return serve(folder, "/");
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "picker-form-"));
  // The package, installed from its tarball (no network).
  const { project, pkg } = installPackage(dir, path.resolve("target/site"));
  pkgDir = pkg;
  assert.equal(JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")).types, "./index.d.ts");
  // The CDN-style origin: the package's files and a data folder (CORS).
  cdnDir = path.join(dir, "cdn");
  fs.cpSync(pkg, path.join(cdnDir, "registry-picker"), { recursive: true });
  fs.cpSync(path.join(SITE, "data"), path.join(cdnDir, "registry-data"), { recursive: true });
  cdn = await serve(cdnDir, "/", { cors: true });
  // The form's origin: the scratch project itself.
  dir = project;
  form = await formPage(dir, cdn.url);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(30_000);
  watchErrors(page, errors);
  if (process.env.DEBUG_CO) page.on("console", (m) => console.log("console:", m.type(), m.text()));
});

after(async () => {
  await browser?.close();
  await form?.close();
  await cdn?.close();
  await servedForm?.close();
  await served?.close();
  if (dir) fs.rmSync(path.dirname(dir), { recursive: true, force: true }); // dir is <tmp>/project
});

/**
 * On a loaded form page: picks an organisation from the typeahead (pieces,
 * main thread) and has the e-mail picker offer its domain's organisation
 * (only the whole registry's Worker has domains). Returns the first input.
 */
async function pickAndOfferByDomain(p) {
  const input = p.locator("#aff-picker-input");
  await input.waitFor();
  await input.fill("northfield univ");
  await p.locator("#aff-picker-list [role=option]").first().waitFor();
  await input.press("ArrowDown");
  await input.press("Enter");
  assert.match(await p.locator("#f input[name=affiliation_id]").inputValue(), /^https:\/\/ror\.org\/0/);
  await p.locator("#mail-picker-input").focus();
  await p.locator("#mail-picker-list [role=option]").first().waitFor();
  assert.equal(await p.locator("#mail-picker-list [role=option] .cb-name").first().innerText(), "Northfield University");
  assert.equal(await p.evaluate(async () => (await customElements.get("registry-picker").registry).wholeOpened), true);
  return input;
}

test("a picker loaded from another origin: keyboard pick, free text, and the whole registry's Worker", async () => {
  assert.notEqual(new URL(cdn.url).origin, new URL(form.url).origin);
  await page.goto(form.url);
  const input = await pickAndOfferByDomain(page);
  // The page's data requests (the manifest, pieces) went to data-url, not to
  // data/ next to the script.
  const entries = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
  assert.deepEqual(entries.filter((u) => u.startsWith(cdn.url + "registry-picker/data/")), []);
  assert.ok(entries.some((u) => u.startsWith(cdn.url + "registry-data/")));
  // The pieces are read cross-origin by single ranges (bytes=a-b), which a
  // browser sends without a preflight: no OPTIONS ever reached the data's host.
  assert.ok(cdn.requests.some((r) => /^GET \/registry-data\/packs\/pieces\.[0-9a-f]{16}\.pack\?f=\S+ bytes=\d+-\d+$/.test(r)), cdn.requests.join("\n"));
  assert.deepEqual(cdn.requests.filter((r) => r.startsWith("OPTIONS")), []);
  // Validation: the required picker blocks the submission until filled;
  // reset() empties what was typed or picked.
  assert.equal(await page.evaluate(() => document.getElementById("f").reportValidity()), false);
  await page.locator("#req-picker-input").fill("Some Funder");
  assert.equal(await page.evaluate(() => document.getElementById("f").checkValidity()), true);
  await page.evaluate(() => document.getElementById("f").reset());
  await page.waitForFunction(() => document.getElementById("aff-picker-input").value === "");
  assert.equal(await page.locator("#f input[name=affiliation_id]").inputValue(), "");
  assert.equal(await page.evaluate(() => document.getElementById("f").checkValidity()), false);
  await input.fill("northfield univ");
  await page.locator("#aff-picker-list [role=option]").first().waitFor();
  await input.press("ArrowDown");
  await input.press("Enter");
  await page.locator("#req-picker-input").fill("Some Funder");
  // Free text is submitted as typed.
  await page.locator("#mail-picker-input").fill("Nowhere Institute");
  await page.locator("#mail-picker-input").press("Tab");
  await Promise.all([page.waitForURL(/institution=Nowhere/), page.locator("#send").click()]);
  const sent = new URL(page.url()).searchParams;
  assert.equal(sent.get("institution"), "Nowhere Institute");
  assert.equal(sent.get("institution_id"), "");
  assert.match(sent.get("affiliation_id"), /^https:\/\/ror\.org\/0/);
  assert.deepEqual(errors, []);
});

// Issue 23 item 8: the project's own server as the widget's origin. Its
// static files carry CORS (and brotli, cache headers), so the element is
// defined on the form's origin, its pieces and the whole registry load, and
// a missing piece's 404 is readable there.
test("registry serve --root hosts the picker for a form on another origin", async () => {
  served = await registryServe(cdnDir);
  servedForm = await formPage(path.join(path.dirname(dir), "form-of-served"), served.url);
  assert.notEqual(new URL(served.url).origin, new URL(servedForm.url).origin);
  const p = await (await browser.newContext()).newPage();
  p.setDefaultTimeout(30_000);
  const errs = [];
  watchErrors(p, errs);
  const encodings = [];
  p.on("response", (r) => { if (r.url().startsWith(served.url)) encodings.push(r.headers()["content-encoding"] ?? ""); });
  await p.goto(servedForm.url);
  await pickAndOfferByDomain(p);
  // The widget's code came compressed (Chromium asks for br).
  assert.ok(encodings.includes("br"), `content encodings seen: ${encodings}`);
  assert.deepEqual(errs, []);
  await p.close();
});
