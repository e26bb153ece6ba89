// Shared set-up of the map tests (maps, dots, years): a fresh browser
// context, axe's serious violations, and Equal Earth written out again (not
// imported from the page's module) so that a wrong formula there cannot
// agree with itself.
import fs from "node:fs";
import { createRequire } from "node:module";
import { before, after } from "node:test";
import { chromium } from "playwright-core";
import { serve, watchErrors, goOffline, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX, offlineReady } from "./ui-helpers.mjs";

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export function equalEarth(lng, lat, scale) {
  const [a1, a2, a3, a4] = [1.340264, -0.081106, 0.000893, 0.003796];
  const theta = Math.asin((Math.sqrt(3) / 2) * Math.sin((lat * Math.PI) / 180));
  const lambda = (lng * Math.PI) / 180;
  const x = (2 * Math.sqrt(3) * lambda * Math.cos(theta)) / (3 * (9 * a4 * theta ** 8 + 7 * a3 * theta ** 6 + 3 * a2 * theta ** 2 + a1));
  const y = a4 * theta ** 9 + a3 * theta ** 7 + a2 * theta ** 3 + a1 * theta;
  return [x * scale, -y * scale];
}

/** A fresh context of `browser` (its own service worker and caches) and page, `width` px wide. */
export async function fresh(browser, { width = 1100, ...options } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 850 }, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors = [];
  watchErrors(page, errors);
  return { context, page, errors };
}

/** The serious and critical axe violations of the page. */
export async function axeSerious(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() =>
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * The site served for one test file and a browser: `{server, browser,
 * requested}` (the site paths asked for, counted at the server, so the
 * service worker's and the Worker's requests count too), set before the
 * file's tests and closed after them.
 */
export function suite() {
  const s = { server: null, browser: null, requested: [] };
  before(async () => {
    s.server = await serve(SITE, PREFIX, { hold: async (rel) => s.requested.push(rel) });
    s.browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  });
  after(async () => {
    await s.browser?.close();
    await s.server?.close();
  });
  return s;
}

/**
 * Once `page`'s offline copy is complete, reloads it without a network,
 * waits for `ready(page)` and returns `check(page)`'s result; the
 * context is back online after, whatever happened.
 */
export async function offlineReload(context, page, ready, check = async () => {}) {
  await offlineReady(page);
  await goOffline(context, page);
  try {
    await page.reload();
    await ready(page);
    return await check(page);
  } finally {
    await context.setOffline(false);
  }
}
