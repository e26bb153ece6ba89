// The pages and the widget on data other than the demo's, and on data that
// does not load, in headless Chromium at desktop and phone width. Builds
// its own site with `registry site` (the app from target/site) from a
// variant of the demo dump: one record with 50 funder ids, and no domain of
// the fictional northfield-university.example any more. Checks:
// * a record with many ids of one kind shows a few and "Show all N";
// * the widget demo suggests an e-mail address of the data being served;
// * when the data cannot be loaded the app says so in words and "Try
//   again" loads it once it is there; the widget tells the person typing in
//   words (the technical reason goes to the console);
// * the widget's `data-url` names a folder with or without its slash.
// Served under SITE_PREFIX (default "/"), like the rest of the suite.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";

const PREFIX = process.env.SITE_PREFIX ?? "/";
const APP = path.resolve("target/site");
const REGISTRY = path.resolve("target/release/registry");
const DEMO = JSON.parse(fs.readFileSync("data/demo/registry-demo.json", "utf8"));
const display = (r) => r.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display")).value;
const bare = (id) => id.split("/").pop();
const WIDTHS = [[1100, 850], [390, 844]];

let tmp, site, broken, server, brokenServer, browser;

// The variant: a funder with 50 funder ids; the Northfield domains renamed.
const FUNDER = structuredClone(DEMO.find((r) => r.external_ids.some((e) => e.type === "fundref")));
const MANY = Array.from({ length: 50 }, (_, i) => String(100_900_000 + i));
const RECORDS = DEMO.map((r) => {
  const v = structuredClone(r);
  if (v.id === FUNDER.id) v.external_ids.find((e) => e.type === "fundref").all = MANY; // upstream's spelling: the record page shows `funder_registry`
  v.domains = v.domains.map((d) => d.replace("northfield-university.example", "nfu-renamed.example"));
  return v;
});

/** A folder of symlinks to `from`'s entries, leaving out `skip` (paths relative to `from`). */
function linkTree(from, to, skip) {
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from)) {
    if (skip.includes(name)) continue;
    const inside = skip.filter((s) => s.startsWith(`${name}/`)).map((s) => s.slice(name.length + 1));
    if (inside.length) linkTree(path.join(from, name), path.join(to, name), inside);
    else fs.symlinkSync(path.join(from, name), path.join(to, name));
  }
}

before(async () => {
  for (const f of [APP, REGISTRY]) assert.ok(fs.existsSync(f), `${f} is missing: run scripts/build-web.sh first`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "registry-variants-"));
  const dump = path.join(tmp, "variant.json");
  fs.writeFileSync(dump, JSON.stringify(RECORDS));
  site = path.join(tmp, "site");
  execFileSync(REGISTRY, ["site", dump, "-o", site, "--app", APP, "--release", "variant", "--level", "3"], { stdio: "pipe" });
  // Two widget pages: data-url without its slash, and a folder that is not there.
  for (const [name, url] of [["picker-noslash.html", "data"], ["picker-missing.html", "no-such-data/"]])
    fs.writeFileSync(path.join(site, name), `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>picker</title><link rel="icon" href="data:,">
<script type="module" src="registry-picker.js"></script></head><body><form>
<registry-picker id="p" name="affiliation" label="Affiliation" data-url="${url}"></registry-picker>
</form></body></html>`);
  // The same site without its data manifest (a deploy missing a file).
  broken = path.join(tmp, "broken");
  linkTree(site, broken, ["data/manifest.json"]);
  server = await serve(site, PREFIX);
  brokenServer = await serve(broken, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await brokenServer?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** A fresh profile at `width`×`height`, without a service worker (each test sees the files as they are). */
async function freshPage(width = 1100, height = 850) {
  const context = await browser.newContext({ viewport: { width, height }, serviceWorkers: "block" });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  return { context, page, errors };
}

for (const [width, height] of WIDTHS) {
  test(`at ${width} px a record with 50 funder ids shows five and "Show all 50"`, async () => {
    const { context, page, errors } = await freshPage(width, height);
    try {
      await page.goto(`${server.url}?id=${bare(FUNDER.id)}`);
      const row = page.locator("table.ext tr[data-kind=funder_registry]");
      await row.waitFor();
      assert.equal(await row.locator("th").innerText(), "Crossref Funder ID (FundRef)");
      const visible = () => row.locator("li").evaluateAll((lis) => lis.filter((li) => li.getClientRects().length > 0).length);
      assert.equal(await visible(), 5);
      const more = row.getByRole("button", { name: "Show all 50" });
      assert.equal(await more.getAttribute("aria-expanded"), "false");
      const tall = await row.evaluate((tr) => tr.getBoundingClientRect().height);
      assert.ok(tall < 200, `collapsed row is ${tall}px tall`);
      await more.click();
      assert.equal(await visible(), 50);
      assert.equal(await row.locator("button.show-all").getAttribute("aria-expanded"), "true");
      const hrefs = await row.locator("a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
      assert.deepEqual(hrefs.toSorted(), MANY.map((id) => `https://doi.org/10.13039/${id}`).toSorted());
      await row.locator("button.show-all").click();
      assert.equal(await visible(), 5);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("the widget demo suggests an e-mail address from the data being served, and it offers its organization", async () => {
  const { context, page, errors } = await freshPage();
  try {
    await page.goto(`${server.url}widget-demo.html`);
    await page.waitForSelector("#institution-picker-input");
    const hint = page.locator("#email-example");
    await hint.waitFor();
    const address = await hint.locator("code").innerText();
    assert.doesNotMatch(await page.locator("body").innerText(), /northfield-university\.example/, "not a domain of this data");
    const domain = address.split("@")[1];
    const owner = RECORDS.find((r) => r.status === "active" && r.domains.includes(domain));
    assert.ok(owner, `${address}: a domain of the data`);
    await page.locator("#email").fill(address);
    await page.locator("#institution-picker-input").focus();
    await page.locator("#institution-picker-list [role=option]").first().waitFor();
    const names = await page.locator("#institution-picker-list [role=option] .cb-name").allInnerTexts();
    assert.equal(names[0], display(owner));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("data that cannot be loaded: the app says so in words and 'Try again' loads it once it is there", async () => {
  const { context, page } = await freshPage(390, 844);
  const manifest = path.join(broken, "data", "manifest.json");
  try {
    await page.goto(`${brokenServer.url}?q=university`);
    const box = page.locator(".load-failed");
    await box.waitFor();
    const text = await page.locator("body").innerText();
    assert.doesNotMatch(text, /Failed\(/);
    assert.match(await box.innerText(), /The registry could not be loaded\. Check your connection, then try again\./);
    assert.match(await page.locator("#release").innerText(), /could not be loaded/);
    assert.ok(await box.locator("details").evaluate((d) => !d.open), "the technical reason is tucked away");
    fs.symlinkSync(path.join(site, "data", "manifest.json"), manifest);
    await page.getByRole("button", { name: "Try again" }).click();
    await page.waitForFunction(() => /data: variant, \d+ records/.test(document.getElementById("release")?.textContent ?? ""));
    await page.waitForSelector(".result");
    assert.equal(await box.count(), 0);
  } finally {
    fs.rmSync(manifest, { force: true });
    await context.close();
  }
});

for (const [width, height] of WIDTHS) {
  test(`at ${width} px the widget's data-url works without its trailing slash, and a folder that is not there is told in words`, async () => {
    const good = await freshPage(width, height);
    try {
      await good.page.goto(`${server.url}picker-noslash.html`);
      const input = good.page.locator("#p-picker-input");
      await input.waitFor();
      await input.fill("northfield univ");
      await good.page.waitForFunction(() => document.querySelectorAll("#p-picker-list [role=option]").length > 0);
      assert.match(await good.page.locator("#p-picker-list [role=option]").first().innerText(), /Northfield University/);
      assert.deepEqual(good.errors, []);
    } finally {
      await good.context.close();
    }
    const bad = await freshPage(width, height);
    const logged = [];
    bad.page.on("console", (m) => m.type() === "error" && logged.push(m.text()));
    try {
      await bad.page.goto(`${server.url}picker-missing.html`);
      const input = bad.page.locator("#p-picker-input");
      await input.waitFor();
      await input.fill("northfield");
      const error = bad.page.locator("registry-picker#p .cb-error");
      await error.waitFor({ state: "visible" });
      assert.equal(await error.innerText(), "Suggestions are unavailable: the registry could not be loaded.");
      const shown = await bad.page.locator("body").innerText();
      assert.doesNotMatch(shown, /HTTP|manifest\.json|Failed|Error:/);
      assert.ok(logged.some((l) => /manifest\.json/.test(l)), "the reason is in the console for the page's developer");
      // What was typed is kept, and will be sent as typed.
      assert.equal(await input.inputValue(), "northfield");
      assert.match(await bad.page.locator("#p-picker-note").innerText(), /sent as typed/);
    } finally {
      await bad.context.close();
    }
  });
}
