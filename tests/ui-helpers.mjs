// Shared set-up of the UI browser tests (ui, widget, a11y): the site from
// SITE_DIR (default target/site, built by scripts/build-web.sh +
// scripts/build-ui.sh) served under SITE_PREFIX (default "/").
import path from "node:path";
import fs from "node:fs";
import os from "node:os";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";

export const SITE = process.env.SITE_DIR ?? path.resolve("target/site");
export const PREFIX = process.env.SITE_PREFIX ?? "/";
export const DOCS = path.resolve("docs");
export const DEMO = JSON.parse(fs.readFileSync(path.resolve("data/demo/registry-demo.json"), "utf8"));
/**
 * The README's pictures are written only when asked (`scripts/screenshots.sh`
 * sets UI_SCREENSHOTS=1): a test run leaves the tree as it found it.
 */
export const SHOTS = process.env.UI_SCREENSHOTS === "1";

export async function start() {
  const server = await serve(SITE, PREFIX);
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  const errors = [];
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  watchErrors(page, errors);
  return {
    server, browser, context, page, errors,
    url: (rel = "") => server.url + rel,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** Waits until the app has its data and the results for the current URL. */
export async function appReady(page) {
  await page.waitForFunction(() => /records/.test(document.getElementById("release")?.textContent ?? ""));
}

/** Waits until registry.js answers suggestions on the main thread; resolves to {buildMs, memoryBytes, bytes}. */
export async function mainThreadSuggestReady(page) {
  return page.evaluate(() => import(new URL("registry.js", document.baseURI).href).then((m) => m.suggestReady()));
}

/** The registry's own answer for a spec URL, through registry.js in the page. */
export async function api(page, url) {
  return page.evaluate(async (url) => {
    window.__api ??= (async () => {
      const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
      return openRegistry({ dataUrl: new URL("data/", document.baseURI) });
    })();
    const r = await window.__api;
    const { status, body } = await r.request(url);
    return { status, body: JSON.parse(body) };
  }, url);
}

/**
 * In one task: sets a combobox's text, dispatches the input event, lets
 * microtasks run (Leptos renders in microtasks) and reads the listbox. A
 * Worker answer is a message task, so it cannot arrive before this task
 * ends: an answer seen here was computed on the main thread.
 */
export async function typeInOneTask(page, inputSel, listSel, text) {
  return page.evaluate(
    async ({ inputSel, listSel, text }) => {
      const input = document.querySelector(inputSel);
      const list = document.querySelector(listSel);
      input.focus();
      input.value = text;
      input.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: text.slice(-1) }));
      for (let i = 0; i < 50 && list.dataset.for !== text; i++) await Promise.resolve();
      return {
        for: list.dataset.for,
        expanded: input.getAttribute("aria-expanded"),
        names: [...list.querySelectorAll("[role=option]:not(.cb-succ) .cb-name")].map((e) => e.textContent),
        marks: [...list.querySelectorAll("mark")].map((e) => e.textContent),
        successors: list.querySelectorAll(".cb-succ").length,
      };
    },
    { inputSel, listSel, text },
  );
}

export const bare = (id) => id.split("/").pop();
export const display = (r) => r.names.find((n) => n.types.includes("ror_display") || n.types.includes("registry_display")).value;

// The demo split like a large registry (600-byte leaves, 12-record heads):
// "a" is a full head in the first-keystroke pack, "ae" a leaf; "of" and
// "university" are common terms of E2 over pieces.
export async function splitSite() {
  const app = path.resolve("target/site");
  const registry = path.resolve("target/release/registry");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "registry-split-"));
  const dir = path.join(tmp, "site");
  execFileSync(registry, ["site", "data/demo/registry-demo.json", "-o", dir, "--app", app, "--level", "3", "--piece-bytes", "600", "--head", "12", "-q"]);
  const server = await serve(dir, PREFIX);
  return {
    url: server.url,
    async close() {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once the service worker's offline copy of the data is complete
 * (its manifest, written last, is in its data cache): it is downloaded once
 * the page has answered, while the worker already controls the page. Polled
 * here: waitForFunction takes an async predicate's promise as truthy.
 */
export async function offlineReady(page, timeoutMs = 60_000) {
  const complete = () =>
    page.evaluate(async () => {
      if (!navigator.serviceWorker.controller) return false;
      for (const key of await caches.keys())
        if (key.startsWith("registry-data-") && (await (await caches.open(key)).match(new URL("data/manifest.json", document.baseURI).href)))
          return true;
      return false;
    });
  for (const end = Date.now() + timeoutMs; Date.now() < end; await page.waitForTimeout(100)) if (await complete()) return;
  throw new Error(`the offline copy was not complete after ${timeoutMs / 1000} s`);
}

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe-core's serious and critical WCAG 2.1 A/AA and best-practice violations on the page, one line each. */
export async function axeViolations(page) {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(() =>
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } }));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  return bad.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}
