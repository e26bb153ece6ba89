// The "Established" facet (web/registry-years.js over the router's
// `histogram=established`): its bars count every match exactly, a range
// picked on the bars or typed into the two year boxes filters the results
// with E3's range syntax and shows in the URL, by keyboard alone too, at
// desktop and phone widths, offline after one visit, without serious axe
// violations in light and dark schemes; the widget never loads any of it.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { axeSerious, fresh, offlineReload, suite } from "./map-helpers.mjs";
import { DOCS, SHOTS, appReady, api } from "./ui-helpers.mjs";
import { bins, parseRange, rangeText, MAX_BARS } from "../web/registry-years.js";

const RANGE = "[1900 TO 1950]";
const IN_URL = "filter=established%3A%5B1900%20TO%201950%5D";

const S = suite();

/** The results page for `query` (a query string) with the facet drawn. */
async function yearsShown(page, query) {
  await page.goto(S.server.url + query);
  await appReady(page);
  await page.waitForSelector(".result");
  await page.waitForSelector(".years[data-ready=true] .years-chart");
}

/** The bars as drawn: [{from, to, count}] (from null = open end). */
const drawn = (page) =>
  page.locator(".years-chart .hit").evaluateAll((hits) =>
    hits.map((h) => ({ from: h.dataset.from === "*" ? null : +h.dataset.from, to: +h.dataset.to, count: +h.getAttribute("aria-label").match(/: ([\d,]+) organi/)[1].replace(/,/g, "") })));

test("bins: every year in exactly one bar, at most MAX_BARS, round widths", () => {
  const years = [1289, 1511, 1693, 1702, 1828, 1858, 1900, 1900, 1951, 2023].map((year, i) => ({ year, count: i + 1 }));
  // Repeated years merged as the router sends them.
  const merged = [];
  for (const y of years) merged.at(-1)?.year === y.year ? (merged.at(-1).count += y.count) : merged.push({ ...y });
  for (const input of [merged, [{ year: 1950, count: 3 }], merged.slice(4)]) {
    const b = bins(input);
    assert.ok(b.length >= 1 && b.length <= MAX_BARS, JSON.stringify(b));
    assert.equal(b.reduce((s, x) => s + x.count, 0), input.reduce((s, x) => s + x.count, 0));
    for (const y of input) {
      const holding = b.filter((x) => (x.from === null || x.from <= y.year) && y.year <= x.to);
      assert.equal(holding.length, 1, `${y.year} in ${JSON.stringify(b)}`);
    }
    b.slice(1).forEach((x, i) => assert.equal(x.from, b[i].to + 1, "adjacent bars"));
  }
  assert.deepEqual(bins([]), []);
  assert.deepEqual(parseRange(rangeText(1900, 1950)), [1900, 1950]);
  assert.deepEqual(parseRange(rangeText(null, 1950)), [null, 1950]);
  assert.equal(rangeText(1900, null), "[1900 TO *]");
  assert.equal(parseRange("{1900 TO 1950}"), null);
});

test("the bars count every match exactly; two year boxes filter with E3's range and change the URL", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    await yearsShown(page, "?q=university");
    const hist = (await api(page, "/v2/organizations?query=university&mode=typed&histogram=established")).body;
    const years = hist.meta.established.years;
    const bars = await drawn(page);
    // Each bar's count is the sum of the router's exact year counts in it,
    // and the bars hold every match with a year.
    for (const b of bars) {
      const n = years.filter((y) => (b.from === null || y.year >= b.from) && y.year <= b.to).reduce((s, y) => s + y.count, 0);
      assert.equal(b.count, n, JSON.stringify(b));
    }
    assert.equal(bars.reduce((s, b) => s + b.count, 0) + hist.meta.established.unknown, hist.number_of_results);
    // The table says the same.
    const rows = await page.locator(".years-table tr").evaluateAll((tr) => tr.slice(1).map((r) => [r.cells[0].textContent, +r.cells[1].textContent.replace(/,/g, "")]));
    assert.deepEqual(rows.filter(([k]) => k !== "unknown").map(([, n]) => n), bars.map((b) => b.count));
    // A range typed in: the URL, the results and the bars follow.
    await page.locator("#years-from").fill("1900");
    await page.locator("#years-to").fill("1950");
    await page.locator(".years-form button[type=submit]").click();
    await page.waitForFunction((s) => location.search.includes(s), IN_URL);
    const want = (await api(page, `/v2/organizations?query=university&mode=typed&established=${encodeURIComponent(RANGE)}`)).body.number_of_results;
    assert.equal(want, years.filter((y) => y.year >= 1900 && y.year <= 1950).reduce((s, y) => s + y.count, 0));
    assert.ok(want > 0 && want < hist.number_of_results, `the range narrows: ${want} of ${hist.number_of_results}`);
    await page.waitForSelector(`#results-h[data-total="${want}"]`);
    await page.waitForSelector(".years-chart :is(.bar.on, .bar.part)");
    assert.match(await page.locator(".years-summary").textContent(), new RegExp(`^${want} organizations? established 1900–1950`));
    assert.match(await page.locator(".chips").textContent(), /Established: 1900–1950/);
    // Every listed result is in the range.
    const ids = await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id));
    for (const id of ids) {
      const r = (await api(page, `/v2/organizations/${id}`)).body;
      assert.ok(r.established >= 1900 && r.established <= 1950, `${id}: ${r.established}`);
    }
    // The link is shareable: a fresh page with it shows the same.
    const url = page.url();
    const other = await fresh(S.browser);
    try {
      await yearsShown(other.page, url.slice(S.server.url.length));
      await other.page.waitForSelector(`#results-h[data-total="${want}"]`);
      assert.equal(await other.page.locator("#years-from").inputValue(), "1900");
    } finally {
      await other.context.close();
    }
    // Clear: back to every year.
    await page.locator(".years-form button.link").click();
    await page.waitForFunction(() => !location.search.includes("established"));
    await page.waitForSelector(`#results-h[data-total="${hist.number_of_results}"]`);
    // Back/forward keep working.
    await page.goBack();
    await page.waitForFunction((s) => location.search.includes(s), IN_URL);
    await page.waitForSelector(`#results-h[data-total="${want}"]`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const width of [1100, 390]) {
  test(`keyboard alone at ${width} px: Tab to the bars, arrows, Enter picks a bar's years, Shift+Enter widens`, async () => {
    const { context, page, errors } = await fresh(S.browser, { width });
    try {
      await page.goto(S.server.url + "?q=university");
      await appReady(page);
      await page.waitForSelector(".result");
      if (width < 600) {
        // On a phone the filters are behind their button.
        await page.locator(".facets-toggle").focus();
        await page.keyboard.press("Enter");
      }
      await page.waitForSelector(".years[data-ready=true] .years-chart");
      await page.locator(width < 600 ? ".facets-toggle" : "a.brand").focus();
      let onBar = false;
      for (let i = 0; i < 80 && !onBar; i++) {
        await page.keyboard.press("Tab");
        onBar = await page.evaluate(() => document.activeElement?.classList.contains("hit"));
      }
      assert.ok(onBar, "a bar takes the focus");
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowLeft");
      const bar = await page.evaluate(() => ({ from: document.activeElement.dataset.from, to: document.activeElement.dataset.to }));
      assert.match(await page.locator(".years-status").textContent(), /organization/);
      await page.keyboard.press("Enter");
      const first = `[${bar.from} TO ${bar.to}]`;
      await page.waitForFunction((s) => decodeURIComponent(location.search).includes(s), `established:${first}`);
      // The focus stays on the bar through the redraw; Shift+Enter on the next widens.
      await page.waitForSelector(".years-chart :is(.bar.on, .bar.part)");
      await page.waitForFunction(() => document.activeElement?.classList.contains("hit"));
      await page.keyboard.press("ArrowRight");
      const next = await page.evaluate(() => document.activeElement.dataset.to);
      await page.keyboard.press("Shift+Enter");
      await page.waitForFunction((s) => decodeURIComponent(location.search).includes(s), `established:[${bar.from} TO ${next}]`);
      const n = (await api(page, `/v2/organizations?query=university&mode=typed&established=${encodeURIComponent(`[${bar.from} TO ${next}]`)}`)).body.number_of_results;
      await page.waitForSelector(`#results-h[data-total="${n}"]`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

/** The router's histogram answer for the results page of `state` (q typed, or adv). */
async function histogram(page, { q = "", adv = "" }) {
  const query = adv ? `query.advanced=${encodeURIComponent(adv)}` : `query=${encodeURIComponent(q)}&mode=typed`;
  return (await api(page, `/v2/organizations?${query}&histogram=established`)).body;
}

/** The facet's summary and bars for a histogram answer, as the facet draws them. */
function described(hist) {
  const { years, unknown } = hist.meta.established;
  const known = years.reduce((s, y) => s + y.count, 0);
  const plural = (n) => `${n.toLocaleString("en")} ${n === 1 ? "organization" : "organizations"}`;
  return { summary: `${plural(known)} with a year${unknown ? `, ${plural(unknown)} without` : ""}.`, bars: bins(years) };
}

/**
 * Waits until the results heading and the facet both describe `hist`
 * (stale counts of another query never match, so a facet one query behind
 * fails here), then checks the bars against the same answer.
 */
async function facetDescribes(page, hist, what) {
  const want = described(hist);
  await page
    .waitForFunction(
      ({ total, summary }) =>
        document.querySelector("#results-h")?.dataset.total === String(total) &&
        document.querySelector(".years[data-ready=true] .years-summary")?.textContent === summary,
      { total: hist.number_of_results, summary: want.summary },
    )
    .catch(async () => {
      const shown = await page.evaluate(() => ({
        heading: document.querySelector("#results-h")?.textContent,
        facet: document.querySelector(".years")?.textContent,
      }));
      assert.fail(`${what}: want ${hist.number_of_results} results and "${want.summary}", shown ${JSON.stringify(shown)}`);
    });
  assert.deepEqual(await drawn(page), want.bars, `${what}: the bars`);
}

test("the facet counts the results on screen: queries typed one after another, a bad advanced query, a results link", async () => {
  const { context, page, errors } = await fresh(S.browser, { width: 1280 });
  try {
    await page.goto(S.server.url);
    await appReady(page);
    const input = page.locator("#q-input");
    const seen = new Set();
    for (const q of ["northf", "marine", "cambridge", "polar", "northfield univ"]) {
      await input.fill("");
      await input.pressSequentially(q, { delay: 20 });
      const hist = await histogram(page, { q });
      seen.add(hist.number_of_results);
      await facetDescribes(page, hist, `typed "${q}"`);
    }
    // The queries differ in their counts (else a stale facet could pass).
    assert.ok(seen.size >= 3, `distinct totals: ${[...seen]}`);
    // A query with no match: no bars, and it says so.
    const none = await histogram(page, { q: "zzqx" });
    assert.equal(none.number_of_results, 0);
    await input.fill("zzqx");
    await facetDescribes(page, none, "no match");
    assert.equal(await page.locator(".years-chart").count(), 0);
    // An advanced query the registry refuses: nothing to count, so no
    // facet, not the counts of the query before it.
    await input.fill("polar");
    await facetDescribes(page, await histogram(page, { q: "polar" }), "polar again");
    await input.press("Escape"); // the suggestions cover the advanced query's summary
    await page.locator("details.advanced summary").click();
    await page.locator("#adv-input").fill("names.value:(");
    await page.locator("#adv-input").press("Enter");
    await page.waitForSelector("#adv-error:not(:empty)");
    await page.waitForSelector(".years[data-ready=none]", { state: "attached" });
    assert.equal(await page.locator(".years-facet").isHidden(), true);
    assert.equal(await page.locator(".years").evaluate((e) => e.childElementCount), 0);
    // A good one after it: the facet is back, counting it.
    const adv = "types:education";
    await page.locator("#adv-input").fill(adv);
    await page.locator("#adv-input").press("Enter");
    await facetDescribes(page, await histogram(page, { adv }), `advanced ${adv}`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
  // Results links, painted before the registry is open: counted once it
  // is; a mistyped id (its check digits are wrong) is an error, with no
  // facet rather than "Counting the years…" for ever.
  for (const q of ["041qyp389", "northf", "0040h0667"]) {
    const { context, page, errors } = await fresh(S.browser, { width: 1280 });
    try {
      await page.goto(S.server.url + `?q=${encodeURIComponent(q)}`);
      await appReady(page);
      const answer = await api(page, `/v2/organizations?query=${encodeURIComponent(q)}&mode=typed&histogram=established`);
      if (answer.status >= 400) {
        await page.waitForFunction((m) => document.querySelector(".results-col .error")?.textContent === m, answer.body.errors.join("; "));
        await page.waitForSelector(".years[data-ready=none]", { state: "attached" });
        assert.equal(await page.locator(".years-facet").isHidden(), true);
      } else {
        await facetDescribes(page, answer.body, `link ?q=${q}`);
      }
      assert.equal(await page.locator(".years .loading").count(), 0, "no “Counting the years…” left");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  }
});

test("the years facet works offline after one visit", async () => {
  const { context, page } = await fresh(S.browser);
  try {
    await yearsShown(page, "?q=university");
    const online = await drawn(page);
    const ready = (p) => p.waitForSelector(".years[data-ready=true] .years-chart");
    await offlineReload(context, page, ready, async () => {
      assert.deepEqual(await drawn(page), online);
      await page.locator("#years-from").fill("1900");
      await page.locator("#years-to").fill("1950");
      await page.keyboard.press("Enter");
      await page.waitForFunction((s) => location.search.includes(s), IN_URL);
      await page.waitForSelector(".years-chart :is(.bar.on, .bar.part)");
    });
  } finally {
    await context.close();
  }
});

test("the widget never loads the years facet or the maps", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    S.requested.length = 0;
    await page.goto(S.server.url + "widget-demo.html");
    await page.locator("#affiliation-picker-input").fill("univ");
    await page.waitForSelector("#affiliation-picker-input[aria-expanded=true]");
    assert.ok(S.requested.length > 3, "requests were counted");
    assert.deepEqual(S.requested.filter((r) => /registry-years|registry-map|registry-world|registry-draw|world-map/.test(r)), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ["light", "dark"]) {
  for (const width of [1100, 390]) {
    test(`years facet, ${colorScheme} scheme, ${width} px: no serious axe violation`, async () => {
      const { context, page } = await fresh(S.browser, { colorScheme, width });
      try {
        await page.goto(S.server.url + `?q=university&filter=${encodeURIComponent(`established:${RANGE}`)}`);
        await appReady(page);
        await page.waitForSelector(".result");
        if (width < 600) await page.locator(".facets-toggle").click();
        await page.waitForSelector(".years[data-ready=true] .years-chart :is(.bar.on, .bar.part)");
        await page.locator(".years-table summary").click();
        assert.deepEqual(await axeSerious(page), []);
        if (SHOTS && colorScheme === "light" && width === 1100) {
          fs.mkdirSync(path.join(DOCS, "img"), { recursive: true });
          await page.locator(".years-facet").screenshot({ path: path.join(DOCS, "img", "years.png") });
        }
      } finally {
        await context.close();
      }
    });
  }
}
