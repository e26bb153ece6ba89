// The organisation's family on the record page, in headless Chromium, on
// its own site built with `registry site` (the app from target/site) from a
// variant of the demo dump: Northfield University with a parent and 40
// children (its 3 and 37 other demo records), and a line of succession two steps long
// before it (Institute for Research on Central Europe → Board of Regents →
// Northfield University). Checks:
// * parents → record → children as a tree, every entry a link that opens
//   its record; a large family collapsed to the first few with "Show all 40";
// * related records beside it, the line of succession with the countries
//   and statuses of its records (fetched record pieces), two steps back;
// * after one visit the family and its links work offline;
// * axe finds no serious violation, in the light and the dark color scheme;
// * at 390 px the family stacks and nothing of it is wider than the page.
// Writes docs/img/family.png (the family section) for the README.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { serve, watchErrors, goOffline, CHROMIUM_ARGS } from "./server.mjs";
import { offlineReady, axeViolations, SHOTS } from "./ui-helpers.mjs";

const PREFIX = process.env.SITE_PREFIX ?? "/";
const APP = path.resolve("target/site");
const REGISTRY = path.resolve("target/release/registry");
const DEMO = JSON.parse(fs.readFileSync("data/demo/registry-demo.json", "utf8"));
const display = (r) => r.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display")).value;
const bare = (id) => id.split("/").pop();
const byId = (id) => RECORDS.find((r) => bare(r.id) === id);

const NFU = "041qyp388";
const REGENTS = "0tdhvk851"; // withdrawn, succeeded by NFU
const OLDEST = "0j0srqq47"; // made the Board of Regents' predecessor here
const RELATED = "0adh71a67";
const PARENT = "0xsa2r256"; // Northfield State University, made Northfield University's parent here

const RECORDS = DEMO.map((r) => structuredClone(r));
{
  const nfu = RECORDS.find((r) => bare(r.id) === NFU);
  const taken = new Set([NFU, REGENTS, OLDEST, RELATED, PARENT, ...nfu.relationships.map((x) => bare(x.id))]);
  const extra = RECORDS.filter((r) => !taken.has(bare(r.id))).slice(0, 37);
  assert.equal(extra.length, 37);
  for (const r of extra) nfu.relationships.push({ label: display(r), type: "child", id: r.id });
  const regents = RECORDS.find((r) => bare(r.id) === REGENTS);
  const oldest = RECORDS.find((r) => bare(r.id) === OLDEST);
  regents.relationships.push({ label: display(oldest), type: "predecessor", id: oldest.id });
  const parent = RECORDS.find((r) => bare(r.id) === PARENT);
  nfu.relationships.push({ label: display(parent), type: "parent", id: parent.id });
  parent.relationships.push({ label: display(nfu), type: "child", id: nfu.id });
}
const CHILDREN = byId(NFU).relationships.filter((x) => x.type === "child");

let tmp, site, server, browser;

before(async () => {
  for (const f of [APP, REGISTRY]) assert.ok(fs.existsSync(f), `${f} is missing: run scripts/build-web.sh first`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "registry-family-"));
  const dump = path.join(tmp, "family.json");
  fs.writeFileSync(dump, JSON.stringify(RECORDS));
  site = path.join(tmp, "site");
  execFileSync(REGISTRY, ["site", dump, "-o", site, "--app", APP, "--release", "family", "--level", "3"], { stdio: "pipe" });
  server = await serve(site, PREFIX);
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function freshPage({ width = 1100, height = 850, serviceWorkers = "block", colorScheme = "light" } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, serviceWorkers, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  return { context, page, errors };
}

const title = (page, name) =>
  page.waitForFunction((name) => (document.getElementById("record-title")?.textContent ?? "").startsWith(name), name);

const visibleChildren = (page) =>
  page.locator(".fam-children li").evaluateAll((lis) => lis.filter((li) => li.getClientRects().length > 0).length);

test("a large family: the record between its parents and children, 40 children collapsed to 8 with 'Show all 40', each a link", async () => {
  const { context, page, errors } = await freshPage();
  try {
    await page.goto(`${server.url}?id=${NFU}`);
    const family = page.locator("section.family");
    await family.waitFor();
    assert.equal(await family.locator("h2").innerText(), "Family and relationships");
    assert.match(await family.locator(".fam-tree > .fam-self").innerText(), /^Northfield University\s+United States$/);
    // Its parent above it, with the country from the parent's record piece.
    assert.equal(await family.locator(".fam-parents a").getAttribute("href"), `?id=${PARENT}`);
    await page.waitForFunction(() => document.querySelector(".fam-parents .fam-country")?.textContent === "United States");
    assert.match(await family.locator(".fam-children .fam-label").innerText(), /^40 children/);
    assert.equal(await visibleChildren(page), 8);
    const more = family.getByRole("button", { name: "Show all 40" });
    assert.equal(await more.getAttribute("aria-expanded"), "false");
    await more.click();
    assert.equal(await visibleChildren(page), 40);
    assert.equal(await family.locator(".fam-children button").getAttribute("aria-expanded"), "true");
    // Every child is a link to its record, by its label.
    const links = await family.locator(".fam-children a").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));
    assert.deepEqual(links.toSorted(), CHILDREN.map((x) => [x.label, `?id=${bare(x.id)}`]).toSorted());
    // Related records beside the tree.
    assert.equal(await family.locator(".fam-related a").getAttribute("href"), `?id=${RELATED}`);
    // Click a child: its page, whose tree has Northfield University as its parent.
    const child = CHILDREN.find((x) => byId(bare(x.id)).relationships.some((y) => y.type === "parent" && bare(y.id) === NFU));
    await family.locator(".fam-children a", { hasText: child.label }).click();
    await title(page, display(byId(bare(child.id))));
    assert.match(page.url(), new RegExp(`\\?id=${bare(child.id)}$`));
    const parent = page.locator("section.family .fam-parents a");
    await parent.waitFor();
    assert.equal(await parent.getAttribute("href"), `?id=${NFU}`);
    // The parent's country comes from its record piece.
    await page.locator("section.family .fam-parents .fam-country").waitFor();
    assert.equal(await page.locator("section.family .fam-parents .fam-country").innerText(), "United States");
    await parent.click();
    await title(page, "Northfield University");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the line of succession: two steps back, with statuses, each a link", async () => {
  const { context, page, errors } = await freshPage();
  try {
    await page.goto(`${server.url}?id=${NFU}`);
    const chain = page.locator("section.family ol.fam-chain");
    await chain.waitFor();
    // The Board of Regents is in the record; its own predecessor comes from its record piece.
    await page.waitForFunction(() => document.querySelectorAll("ol.fam-chain > li").length === 3);
    const items = await chain.locator("> li").evaluateAll((lis) =>
      lis.map((li) => ({ rel: li.dataset.rel ?? "self", href: li.querySelector("a")?.getAttribute("href") ?? null })));
    assert.deepEqual(items, [
      { rel: "predecessor", href: `?id=${OLDEST}` },
      { rel: "predecessor", href: `?id=${REGENTS}` },
      { rel: "self", href: null },
    ]);
    assert.match(await chain.locator("li", { hasText: display(byId(REGENTS)) }).innerText(), /Withdrawn/);
    assert.equal(await chain.locator("li.fam-self").getAttribute("aria-current"), "page");
    // From the withdrawn record the line goes on to its successor.
    await chain.locator(`a[href="?id=${REGENTS}"]`).click();
    await title(page, display(byId(REGENTS)));
    await page.waitForFunction(() => document.querySelectorAll("ol.fam-chain > li").length === 3);
    assert.equal(await page.locator(`ol.fam-chain li[data-rel=successor] a`).getAttribute("href"), `?id=${NFU}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("after one visit the family works offline: reload, expand, follow a child", async () => {
  const { context, page } = await freshPage({ serviceWorkers: "allow" });
  try {
    await page.goto(`${server.url}?id=${NFU}`);
    await page.locator("section.family").waitFor();
    await offlineReady(page);
    await goOffline(context, page);
    await page.reload();
    await page.locator(".fam-children button").click();
    assert.equal(await visibleChildren(page), 40);
    const child = CHILDREN[CHILDREN.length - 1];
    await page.locator(".fam-children a", { hasText: child.label }).click();
    await title(page, display(byId(bare(child.id))));
    await page.waitForSelector("table.locations");
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});

for (const colorScheme of ["light", "dark"]) {
  test(`axe finds no serious violation on a record page with its family (${colorScheme} scheme)`, async () => {
    const { context, page } = await freshPage({ colorScheme });
    try {
      await page.goto(`${server.url}?id=${NFU}`);
      await page.locator("section.family").waitFor();
      await page.waitForFunction(() => document.querySelectorAll("ol.fam-chain > li").length === 3);
      await page.locator(".fam-children button").click();
      assert.deepEqual(await axeViolations(page), []);
      if (SHOTS && colorScheme === "light") {
        await page.locator(".fam-children button").click();
        fs.mkdirSync(path.resolve("docs/img"), { recursive: true });
        await page.locator("section.family").screenshot({ path: path.resolve("docs/img/family.png") });
      }
    } finally {
      await context.close();
    }
  });
}

test("at 390 px the family stacks and nothing of it is wider than the page", async () => {
  const { context, page, errors } = await freshPage({ width: 390, height: 844 });
  try {
    await page.goto(`${server.url}?id=${NFU}`);
    await page.locator("section.family").waitFor();
    await page.waitForFunction(() => document.querySelectorAll("ol.fam-chain > li").length === 3);
    await page.locator(".fam-children button").click();
    // (The page's external-id links may be wider than a phone: not the family's.)
    const { wide, tree, related } = await page.evaluate(() => ({
      wide: [...document.querySelectorAll("section.family, section.family *")]
        .filter((e) => e.getBoundingClientRect().right > 390)
        .map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 40)}`),
      tree: document.querySelector(".fam-tree").getBoundingClientRect().toJSON(),
      related: document.querySelector(".fam-related").getBoundingClientRect().toJSON(),
    }));
    assert.deepEqual(wide, [], "wider than the page");
    assert.ok(related.top >= tree.bottom - 1, "related records below the tree");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
