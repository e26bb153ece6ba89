// The search app end to end in headless Chromium: keyboard-only typeahead,
// live facets that agree with the API, URL state with back/forward, the
// advanced query box, complete record pages, pasted ids, inert record text,
// and offline reloads. SITE_DIR / SITE_PREFIX select the site (see
// tests/ui-helpers.mjs); screenshots go to docs/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import fs from "node:fs";
import os from "node:os";
import { execFileSync } from "node:child_process";
import { start, appReady, api, bare, display, typeInOneTask, mainThreadSuggestReady, offlineReady, DEMO, DOCS, SHOTS, SITE, PREFIX } from "./ui-helpers.mjs";
import { goOffline, serve } from "./server.mjs";

let t;
before(async () => {
  t = await start();
});
after(async () => {
  await t?.close();
});

const input = () => t.page.locator("#q-input");
const options = () => t.page.locator("#q-list [role=option]");

test("keyboard only: type, move with the arrows, pick with Enter, land on the record", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  // Reach the search box with the keyboard: Tab from the document start.
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.id), "q-input");
  await page.keyboard.type("northfield univ", { delay: 20 });
  await page.waitForFunction(() => document.querySelectorAll("#q-list [role=option]").length >= 3);
  assert.equal(await input().getAttribute("aria-expanded"), "true");
  assert.equal(await input().getAttribute("aria-activedescendant"), null);
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  const active = await input().getAttribute("aria-activedescendant");
  assert.equal(active, "q-list-1");
  assert.equal(await page.locator(`#${active}`).getAttribute("aria-selected"), "true");
  await page.keyboard.press("End");
  const n = await options().count();
  assert.equal(await input().getAttribute("aria-activedescendant"), `q-list-${n - 1}`);
  await page.keyboard.press("Home");
  assert.equal(await input().getAttribute("aria-activedescendant"), "q-list-0");
  await page.keyboard.press("ArrowUp"); // past the start: back to the input
  assert.equal(await input().getAttribute("aria-activedescendant"), null);
  await page.keyboard.press("ArrowDown");
  const name = await page.locator("#q-list-0 .cb-name").innerText();
  assert.equal(await page.evaluate(() => document.activeElement.id), "q-input", "focus stays in the input");
  // Escape closes, Down reopens.
  await page.keyboard.press("Escape");
  assert.equal(await input().getAttribute("aria-expanded"), "false");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#record-title");
  assert.match(page.url(), /\?id=0[0-9a-z]{8}$/);
  assert.match(await page.locator("#record-title").innerText(), new RegExp(name));
  // The live region announced the count (debounced ~1 s) before the pick.
  await page.goBack();
  await page.waitForSelector(".results");
  assert.equal(await input().inputValue(), "northfield univ");
});

test("history: typing makes one entry, Enter adds none after it, and the first Back returns to the page before the search", async () => {
  const page = await t.context.newPage();
  try {
    await page.goto(t.url());
    await appReady(page);
    const start = await page.evaluate(() => history.length);
    const q = () => new URL(page.url()).searchParams.get("q");
    const box = page.locator("#q-input");
    // Typing with pauses (the address bar follows each pause), then Enter.
    await box.click();
    await page.keyboard.type("north", { delay: 30 });
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "north");
    await page.keyboard.type("field", { delay: 30 });
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "northfield");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".results-col[data-for=northfield] .result");
    assert.equal(await page.evaluate(() => history.length), start + 1, "one entry for the search");
    // The first Back: the page before the search.
    await page.goBack();
    await page.waitForFunction(() => location.search === "");
    assert.equal(await box.inputValue(), "");
    await page.goForward();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "northfield");
    assert.equal(await box.inputValue(), "northfield");
    // A second search typed fast and sent at once (before the address bar follows): one more entry.
    await box.fill("caldera");
    await box.press("Enter");
    await page.waitForSelector(".results-col[data-for=caldera] .result");
    assert.equal(q(), "caldera");
    assert.equal(await page.evaluate(() => history.length), start + 2);
    await page.goBack();
    await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "northfield");
    await page.waitForSelector(".results-col[data-for=northfield] .result");
    assert.equal(await box.inputValue(), "northfield");
    await page.goBack();
    await page.waitForFunction(() => location.search === "");
  } finally {
    await page.close();
  }
});

test("after load the typeahead answers without a Worker round trip (main thread, same task as the input event)", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  const ready = await mainThreadSuggestReady(page);
  assert.ok(ready.buildMs > 0);
  // The first keystroke fetches its typeahead piece (the Worker answers it);
  // from the keystroke after it arrives, the main thread answers.
  await page.locator("#q-input").fill("n");
  await page.waitForFunction(() => document.querySelector("#q-list").dataset.for === "n");
  for (let i = 0; i < 50 && (await typeInOneTask(page, "#q-input", "#q-list", "no")).for !== "no"; i++) await page.waitForTimeout(100);
  for (const text of ["northfield", "northfield univ", "nort"]) {
    const got = await typeInOneTask(page, "#q-input", "#q-list", text);
    assert.equal(got.for, text, `the listbox answers "${text}" in the input event's task`);
    assert.equal(got.expanded, "true");
    assert.ok(got.names.length > 0 && got.names.every((n) => /northfield/i.test(n)), JSON.stringify(got.names));
    assert.ok(got.marks.some((m) => /^nort/i.test(m)), `highlighted: ${JSON.stringify(got.marks)}`);
    // The same options as the Worker's answer.
    const viaWorker = await page.evaluate(async (text) => {
      const { openRegistry } = await import(new URL("registry.js", document.baseURI).href);
      window.__plain ??= openRegistry({ dataUrl: new URL("data/", document.baseURI) });
      return (await (await window.__plain).suggest(text, { limit: 8 })).map((h) => h.summary.name);
    }, text);
    assert.deepEqual(got.names, viaWorker.slice(0, got.names.length));
  }
  // An external id needs the records: the Worker answers it, a little later.
  const rec = DEMO.find((r) => r.external_ids.some((e) => e.type === "grid"));
  const grid = rec.external_ids.find((e) => e.type === "grid").all[0];
  await typeInOneTask(page, "#q-input", "#q-list", grid);
  await page.waitForFunction((grid) => document.getElementById("q-list").dataset.for === grid, grid);
  assert.equal(await page.locator("#q-list-0 .cb-name").textContent(), display(rec));
  await page.evaluate(async () => (await window.__plain)?.close());
});

for (const [width, height] of [[1100, 850], [390, 844]]) {
  test(`the search box's placeholder names no organization (the site may serve any data) and fits the box at ${width} px`, async () => {
    const { page } = t;
    await page.setViewportSize({ width, height });
    try {
      for (const url of ["", "?q=university"]) {
        // (?q= is painted by registry-first.js first, then by the app: both the same.)
        await page.goto(t.url(url));
        const early = await input().getAttribute("placeholder");
        await appReady(page);
        const placeholder = await input().getAttribute("placeholder");
        assert.equal(early, placeholder);
        const names = DEMO.flatMap((r) => r.names.map((n) => n.value));
        const named = names.filter((n) => placeholder.toLowerCase().includes(n.toLowerCase()) || n.split(/\s+/).some((w) => w.length > 3 && placeholder.includes(w)));
        assert.deepEqual(named, [], placeholder);
        // Read whole: the text is not cut off by the box.
        const { text, box } = await input().evaluate((el) => {
          const cs = getComputedStyle(el);
          const ctx = document.createElement("canvas").getContext("2d");
          ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
          return { text: ctx.measureText(el.placeholder).width, box: el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) };
        });
        assert.ok(text <= box, `placeholder ${text} px in a ${box} px box`);
      }
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  });
}

test("suggestions show the matched alias/acronym, place, types, status and the successor", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  await input().fill("University of Northfield");
  await page.waitForSelector("#q-list [data-status=inactive]");
  const inactive = page.locator("#q-list [data-status=inactive]").first();
  assert.match(await inactive.innerText(), /Inactive/);
  assert.match(await inactive.innerText(), /Minneapolis, United States/);
  const succ = page.locator("#q-list .cb-succ").first();
  await succ.waitFor();
  assert.match(await succ.innerText(), /successor.*Northfield State University/s);
  await input().fill("KQ");
  await page.waitForFunction(() => /Acronym: KQ/.test(document.querySelector("#q-list")?.innerText ?? ""));
  assert.equal(await page.locator("#q-list mark").first().innerText(), "KQ");
  // Live count announcement, debounced.
  await page.waitForFunction(() => /available/.test(document.getElementById("q-live").textContent), null, { timeout: 3000 });
  if (SHOTS) await page.screenshot({ path: path.join(DOCS, "typeahead.png") });
});

test("a pasted id in any form, or an external id, finds the record", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  const rec = DEMO.find((r) => r.external_ids.some((e) => e.type === "grid"));
  const grid = rec.external_ids.find((e) => e.type === "grid").all[0];
  for (const text of [rec.id, rec.id.replace("https://", ""), bare(rec.id), grid]) {
    await input().fill(text);
    await page.waitForFunction(
      (name) => document.querySelector("#q-list-0 .cb-name")?.textContent === name,
      display(rec),
    );
    assert.equal(await options().count(), 1, text);
  }
});

test("facets: a click narrows the results, the counts match the API, URL state and back/forward work", async () => {
  const { page } = t;
  await page.goto(t.url("?q=university"));
  await appReady(page);
  await page.waitForSelector(".results-h");
  const all = await api(page, "/v2/organizations?query=university&mode=typed");
  assert.equal(Number(await page.locator(".results-h").getAttribute("data-total")), all.body.number_of_results);
  // Every displayed count equals the API's meta for the unfiltered query.
  for (const [facet, key] of [["country", "countries"], ["type", "types"], ["continent", "continents"]]) {
    const shown = await page.locator(`[data-facet=${facet}] li`).evaluateAll((lis) =>
      lis.map((li) => [li.querySelector("input").value, Number(li.querySelector(".count").textContent)]));
    assert.deepEqual(shown, all.body.meta[key].map((e) => [e.id, e.count]), facet);
  }
  const us = page.locator("[data-facet=country] li", { has: page.locator("input[value=us]") });
  const count = Number(await us.locator(".count").innerText());
  await us.locator("input").click();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), count);
  assert.match(page.url(), /[?&]filter=country%3Aus/);
  const narrowed = await api(page, "/v2/organizations?query=university&mode=typed&filter=country.country_code:US");
  assert.equal(narrowed.body.number_of_results, count);
  const ids = await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id));
  assert.deepEqual(ids, narrowed.body.items.map((r) => bare(r.id)));
  // A second facet narrows further (AND), its counts come from the API too.
  const edu = page.locator("[data-facet=type] li", { has: page.locator("input[value=education]") });
  const eduCount = Number(await edu.locator(".count").innerText());
  await edu.locator("input").click();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), eduCount);
  const both = await api(page, "/v2/organizations?query=university&mode=typed&filter=country.country_code:US,types:education");
  assert.equal(both.body.number_of_results, eduCount);
  // Back and forward restore the state from the URL.
  await page.goBack();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), count);
  assert.equal(await edu.locator("input").isChecked(), false);
  await page.goForward();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), eduCount);
  // A shared URL opens in the same state; "Clear all filters" resets.
  await page.goto(page.url());
  await appReady(page);
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), eduCount);
  assert.equal(await edu.locator("input").isChecked(), true);
  await page.getByRole("button", { name: "Clear all filters" }).click();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), all.body.number_of_results);
  // Statuses: inactive records appear only when asked for.
  const inactive = page.locator("[data-facet=status] li", { has: page.locator("input[value=inactive]") });
  const nInactive = Number(await inactive.locator(".count").innerText());
  await inactive.locator("input").click();
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), nInactive);
  assert.equal(nInactive, (await api(page, "/v2/organizations?query=university&mode=typed&filter=status:inactive")).body.number_of_results);
  if (SHOTS) {
    await page.goto(t.url("?q=institute"));
    await appReady(page);
    await page.waitForSelector(".result");
    await page.screenshot({ path: path.join(DOCS, "search.png") });
  }
});

test("Enter on a part-typed word lists its matches, the typeahead's first suggestion first (desktop and phone)", async () => {
  const { page } = t;
  for (const width of [1100, 390]) {
    await page.setViewportSize({ width, height: 850 });
    await page.goto(t.url());
    await appReady(page);
    await input().click();
    await page.keyboard.type("northf", { delay: 20 });
    await page.waitForFunction(() => document.getElementById("q-list").dataset.for === "northf");
    const suggested = await page.locator("#q-list-0 .cb-name").textContent();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => location.search === "?q=northf");
    await page.waitForFunction(() => document.querySelector(".results-col")?.dataset.for === "northf" && document.querySelector(".results-h"));
    const total = Number(await page.locator(".results-h").getAttribute("data-total"));
    assert.ok(total > 0, `width ${width}: ${await page.locator(".results-h").innerText()}`);
    assert.equal(await page.locator(".result h3 a").first().textContent(), suggested, `width ${width}`);
    // The list, its count and its facets are the router's typed reading; E2
    // over the API keeps the spec's (no word "northf": nothing).
    const typed = await api(page, "/v2/organizations?query=northf&mode=typed");
    assert.equal(total, typed.body.number_of_results);
    assert.deepEqual(await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id)), typed.body.items.map((r) => bare(r.id)));
    assert.equal((await api(page, "/v2/organizations?query=northf")).body.number_of_results, 0);
  }
  await page.setViewportSize({ width: 1100, height: 850 });
});

test("facet counts update while typing", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  await page.waitForSelector(".results-h");
  await input().pressSequentially("institute", { delay: 30 });
  const expected = await api(page, "/v2/organizations?query=institute&mode=typed");
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), expected.body.number_of_results);
  const first = expected.body.meta.countries[0];
  const shown = await page.locator(`[data-facet=country] input[value=${first.id}] + label .count`).innerText();
  assert.equal(Number(shown), first.count);
  // The address bar follows the typed query once typing pauses (not per keystroke).
  await page.waitForFunction(() => location.search === "?q=institute");
  assert.match(page.url(), /\?q=institute$/);
});

test("paging: 20 per page, next page link, shareable", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  await page.waitForSelector(".result");
  const total = (await api(page, "/v2/organizations")).body.number_of_results;
  if (total <= 20) return;
  assert.equal(await page.locator(".result").count(), 20);
  await page.getByRole("link", { name: "Next →" }).click();
  await page.waitForFunction(() => /Page 2 of/.test(document.querySelector(".page-no")?.textContent ?? ""));
  assert.match(page.url(), /page=2/);
  const p2 = await api(page, "/v2/organizations?page=2");
  assert.deepEqual(await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id)), p2.body.items.map((r) => bare(r.id)));
});

test("advanced query: inline error, then results; in the URL", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  await page.locator("details.advanced summary").click();
  await page.locator("#adv-input").fill("names.value:(");
  await page.locator("#adv-input").press("Enter");
  await page.waitForFunction(() => document.getElementById("adv-error").textContent.length > 0);
  assert.equal(await page.locator("#adv-input").getAttribute("aria-invalid"), "true");
  const expr = "locations.geo_details.name:Brno";
  await page.locator("#adv-input").fill(expr);
  await page.locator("#adv-input").press("Enter");
  const expected = await api(page, `/v2/organizations?query.advanced=${encodeURIComponent(expr)}`);
  await page.waitForFunction(() => /adv=/.test(location.search));
  assert.match(page.url(), /adv=locations\.geo_details\.name%3ABrno/);
  if (expected.status >= 400) {
    // A build without E3 says so; the message is shown inline, not as a crash.
    await page.waitForFunction((m) => document.getElementById("adv-error").textContent === m, expected.body.errors.join("; "));
    return;
  }
  assert.ok(expected.body.number_of_results >= 1);
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), expected.body.number_of_results);
  assert.equal(await page.locator("#adv-error").innerText(), "");
});

test("a search typed while an advanced query is shown searches the typed text; Back returns to the advanced query", async () => {
  const { page } = t;
  const expr = "locations.geo_details.name:Brno";
  await page.goto(t.url(`?adv=${encodeURIComponent(expr)}`));
  await appReady(page);
  const adv = await api(page, `/v2/organizations?query.advanced=${encodeURIComponent(expr)}`);
  const typed = await api(page, "/v2/organizations?query=hospital&mode=typed");
  assert.ok(adv.body.number_of_results >= 1 && typed.body.number_of_results >= 1);
  assert.notEqual(adv.body.number_of_results, typed.body.number_of_results);
  await page.waitForFunction((n) => document.querySelector(".results-h")?.dataset.total === String(n), adv.body.number_of_results);
  await input().fill("hospital");
  await input().press("Enter");
  await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === "hospital");
  assert.equal(new URL(page.url()).searchParams.get("adv"), null, page.url());
  await page.waitForFunction(
    (n) => document.querySelector(".results-col")?.dataset.for === "hospital" && document.querySelector(".results-h")?.dataset.total === String(n),
    typed.body.number_of_results,
  );
  // The advanced query is no longer shown as if it still applied.
  assert.equal(await page.locator("#adv-input").inputValue(), "");
  // Back: the advanced query and its results again.
  await page.goBack();
  await page.waitForFunction((n) => /adv=/.test(location.search) && document.querySelector(".results-h")?.dataset.total === String(n), adv.body.number_of_results);
  assert.equal(await page.locator("#adv-input").inputValue(), expr);
  // And the other way: an advanced query run over a typed search empties the search box.
  await input().fill("hospital");
  await page.waitForFunction(() => document.querySelector(".results-col")?.dataset.for === "hospital");
  await page.locator("#adv-input").fill(expr);
  await page.locator("#adv-input").press("Enter");
  await page.waitForFunction((n) => /adv=/.test(location.search) && document.querySelector(".results-h")?.dataset.total === String(n), adv.body.number_of_results);
  assert.equal(new URL(page.url()).searchParams.get("q"), null, page.url());
  assert.equal(await input().inputValue(), "");
});

/** Every human-meaningful value of a v2 record. */
function fieldValues(r) {
  const v = [r.id, ...r.names.map((n) => n.value), ...r.types.map((x) => x[0].toUpperCase() + x.slice(1)), ...r.domains];
  if (r.established) v.push(String(r.established));
  for (const l of r.locations) {
    const g = l.geonames_details ?? l.geo_details;
    v.push(g.name, g.country_name, g.country_code, String(g.lat), String(g.lng));
    if (g.continent_name) v.push(g.continent_name);
    if (g.country_subdivision_name) v.push(g.country_subdivision_name);
  }
  for (const e of r.external_ids) v.push(...e.all);
  for (const l of r.links) v.push(l.value);
  for (const x of r.relationships) v.push(x.label);
  v.push(r.admin.created.date, r.admin.last_modified.date, r.admin.created.schema_version, r.admin.last_modified.schema_version);
  return v;
}

test("record page shows every field: several locations, relationships, non-Latin names", async () => {
  const { page } = t;
  for (const id of ["004x1me50", "0cy1q8h86", "0r1w86b25", "0nf3mhf49"]) {
    const rec = DEMO.find((r) => bare(r.id) === id);
    await page.goto(t.url(`?id=${id}`));
    await appReady(page);
    await page.waitForSelector("#record-title");
    const text = await page.locator("article.record").innerText();
    for (const value of fieldValues(rec)) assert.ok(text.includes(value), `${id}: '${value}' is not shown`);
    // Names grouped by type, languages marked up.
    for (const n of rec.names.filter((n) => n.lang)) {
      assert.ok(await page.locator(`.name-value[lang="${n.lang}"]`, { hasText: n.value }).count() >= 1, n.value);
    }
    assert.equal(await page.locator("table.locations tbody tr").count(), rec.locations.length);
    // Relationships are links to the related records.
    for (const x of rec.relationships) {
      const link = page.locator(`.rel[data-rel=${x.type}] a`, { hasText: x.label });
      assert.equal(await link.getAttribute("href"), `?id=${bare(x.id)}`);
    }
    if (rec.status !== "active") assert.match(await page.locator(".callout").innerText(), /succeeded by|No successor/);
  }
  // The successor link is prominent and navigates in-app; back returns.
  await page.goto(t.url("?id=0cy1q8h86"));
  await page.waitForSelector(".callout a");
  const succ = DEMO.find((r) => bare(r.id) === "0cy1q8h86").relationships.find((x) => x.type === "successor");
  await page.locator(".callout a").first().click();
  await page.waitForFunction((name) => document.getElementById("record-title")?.textContent.includes(name), succ.label);
  assert.match(page.url(), new RegExp(`\\?id=${bare(succ.id)}$`));
  // Raw JSON v2 and v1, copy button.
  await page.getByRole("button", { name: "View v2 JSON" }).click();
  const raw2 = JSON.parse(await page.locator("pre.raw[data-version='2']").innerText());
  assert.equal(raw2.id, succ.id);
  await page.getByRole("button", { name: "View v1 JSON" }).click();
  const raw1 = JSON.parse(await page.locator("pre.raw[data-version='1']").innerText());
  assert.equal(raw1.id, succ.id);
  assert.ok(raw1.name);
  await t.context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: "Copy ID" }).click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), succ.id);
  await page.goto(t.url("?id=004x1me50"));
  await page.waitForSelector("table.locations");
  if (SHOTS) await page.screenshot({ path: path.join(DOCS, "record.png"), fullPage: true });
  await page.goto(t.url("?id=0000000000"));
  await page.waitForSelector("#record-title");
  assert.match(await page.locator(".record .error").innerText(), /./);
});

test("a place without a continent shows its country's continent, as the facets count it", async () => {
  const { page } = t;
  // Schema-2.0 places carry no continent; the continent facet counts them under their country's.
  const rec = DEMO.find((r) => display(r) === "Setouchi Maritime Archive");
  assert.ok(rec.locations.every((l) => !(l.geonames_details ?? l.geo_details).continent_code));
  await page.goto(t.url(`?id=${bare(rec.id)}`));
  await appReady(page);
  await page.waitForSelector("table.locations tbody tr");
  const cells = await page.locator("table.locations tbody tr td:nth-child(4)").allInnerTexts();
  assert.deepEqual(cells, rec.locations.map(() => "Asia (AS)"));
  // The facet agrees.
  const facet = await api(page, `/v2/organizations?query=${encodeURIComponent('"Setouchi Maritime Archive"')}`);
  assert.ok(facet.body.meta.continents.some((c) => c.id.toUpperCase() === "AS"), JSON.stringify(facet.body.meta.continents));
});

test("record text is rendered as text: markup in the data stays inert", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  const scripts = await page.evaluate(() => document.scripts.length);
  // The query text round-trips through the URL, the input, the title and the results heading.
  const evil = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
  await input().fill(evil);
  await page.waitForTimeout(300);
  await page.goto(t.url(`?q=${encodeURIComponent(evil)}&id=`));
  await appReady(page);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.evaluate(() => document.scripts.length), scripts);
  assert.equal(await page.locator("main img").count(), 0);
  // Data links that are not http(s) never become links.
  assert.equal(await page.locator("a[href^='javascript:']").count(), 0);
});

test("offline after the first visit: reload, search, facets and records keep working", async () => {
  const { page, context } = t;
  await page.goto(t.url("?q=northfield"));
  await appReady(page);
  await page.waitForSelector(".result");
  await offlineReady(page);
  const online = await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id));
  await goOffline(context, page);
  try {
    await page.reload();
    await appReady(page);
    await page.waitForSelector(".result");
    assert.deepEqual(await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id)), online);
    await input().fill("CSU");
    await page.waitForFunction(() => document.querySelectorAll("#q-list [role=option]").length >= 2);
    await page.locator("[data-facet=type] li input").first().click();
    await page.waitForFunction(() => /filter=/.test(location.search));
    await page.goto(t.url(`?id=${online[0]}`));
    await page.waitForSelector("table.locations");
    assert.match(await page.locator("#release").innerText(), /data: .+, \d+ records/);
  } finally {
    await context.setOffline(false);
  }
});

test("PWA: manifest with 192 and 512 px icons, relative start URL", async () => {
  const { page } = t;
  await page.goto(t.url());
  const href = await page.locator("link[rel=manifest]").getAttribute("href");
  const manifest = await page.evaluate(async (h) => (await fetch(h)).json(), href);
  assert.equal(manifest.start_url, "./");
  assert.equal(manifest.display, "standalone");
  for (const size of ["192x192", "512x512"]) {
    const icon = manifest.icons.find((i) => i.sizes === size && i.type === "image/png");
    assert.ok(icon, size);
    const ok = await page.evaluate(async (src) => (await fetch(src)).ok, icon.src);
    assert.ok(ok, icon.src);
  }
});

test("a pasted registry id + Enter opens its record; a mistyped one says which check digits; an external id lists its record first", async () => {
  const { page } = t;
  const rec = DEMO.find((r) => r.external_ids.some((e) => e.type === "grid") && r.external_ids.some((e) => e.type === "isni"));
  const id = bare(rec.id);
  for (const text of [rec.id, `ror.org/${id}`, id, ` ${rec.id}/ `]) {
    await page.goto(t.url());
    await appReady(page);
    await input().fill(text);
    await input().press("Enter");
    await page.waitForFunction((name) => document.getElementById("record-title")?.textContent.includes(name), display(rec));
    assert.match(page.url(), new RegExp(`\\?id=${id}$`), text);
  }
  // A results URL holding an id URL lists exactly that record (the page
  // escapes ':' and '/', the search still reads an id).
  await page.goto(t.url(`?q=${encodeURIComponent(rec.id)}`));
  await appReady(page);
  await page.waitForSelector(".results-h");
  assert.deepEqual(await page.locator(".result").evaluateAll((li) => li.map((x) => x.dataset.id)), [id]);
  // Wrong check digits: the record page's message, in the results too.
  const digits = id.slice(7);
  const wrong = id.slice(0, 7) + String((Number(digits) + 1) % 100).padStart(2, "0");
  await page.goto(t.url(`?id=${wrong}`));
  await page.waitForSelector(".record .error");
  const message = await page.locator(".record .error").innerText();
  assert.match(message, /check digits/);
  for (const text of [wrong, `https://ror.org/${wrong}`]) {
    await page.goto(t.url());
    await appReady(page);
    await input().fill(text);
    await input().press("Enter");
    await page.waitForFunction(() => document.querySelector(".results-col .error"));
    assert.equal(await page.locator(".results-col .error").innerText(), message.replace(wrong, text));
    assert.equal(await page.locator("#record-title").count(), 0, "no record page for a mistyped id");
  }
  // External ids in the forms people paste: that record first.
  const ext = (type) => rec.external_ids.find((e) => e.type === type).all[0];
  const isni = ext("isni");
  const forms = [ext("grid"), isni, isni.replaceAll(" ", ""), `https://isni.org/isni/${isni.replaceAll(" ", "")}`];
  const wd = rec.external_ids.find((e) => e.type === "wikidata");
  if (wd) forms.push(wd.all[0], `https://www.wikidata.org/wiki/${wd.all[0]}`);
  const fr = DEMO.flatMap((r) => r.external_ids.filter((e) => e.type === "fundref").map((e) => [r, e.all[0]]))[0];
  for (const text of forms) {
    await page.goto(t.url());
    await appReady(page);
    await input().fill(text);
    await input().press("Enter");
    await page.waitForFunction((q) => document.querySelector(".results-col")?.dataset.for === q && document.querySelector(".result"), text);
    assert.equal(await page.locator(".result").first().getAttribute("data-id"), id, text);
  }
  if (fr) {
    await page.goto(t.url(`?q=${encodeURIComponent(`https://doi.org/10.13039/${fr[1]}`)}`));
    await appReady(page);
    await page.waitForSelector(".result");
    assert.equal(await page.locator(".result").first().getAttribute("data-id"), bare(fr[0].id), "FundRef DOI");
  }
});

test("results show each hit's registry id; the record page names external id kinds as people know them, with links", async () => {
  const { page } = t;
  await page.goto(t.url("?q=northfield"));
  await appReady(page);
  await page.waitForSelector(".result");
  const shown = await page.locator(".result").evaluateAll((li) => li.map((x) => [x.dataset.id, x.querySelector(".rid")?.textContent]));
  for (const [id, rid] of shown) assert.equal(rid, `https://ror.org/${id}`);
  const rec = DEMO.find((r) => ["grid", "isni", "wikidata", "fundref"].every((k) => r.external_ids.some((e) => e.type === k)))
    ?? DEMO.find((r) => r.external_ids.some((e) => e.type === "fundref"));
  await page.goto(t.url(`?id=${bare(rec.id)}`));
  await page.waitForSelector("table.ext");
  const rows = await page.locator("table.ext tr").evaluateAll((trs) => trs.map((tr) => [tr.dataset.kind, tr.querySelector("th").textContent,
    [...tr.querySelectorAll("li")].map((li) => li.querySelector("a")?.getAttribute("href") ?? null)]));
  // The record's kinds are the spec's (`open_kb`, `funder_registry`); people know them by these names.
  const names = { grid: "GRID", isni: "ISNI", open_kb: "Wikidata", funder_registry: "Crossref Funder ID (FundRef)" };
  const resolver = { isni: /^https:\/\/isni\.org\/isni\/\d{15}[\dX]$/, open_kb: /^https:\/\/www\.wikidata\.org\/wiki\/Q\d+$/, funder_registry: /^https:\/\/doi\.org\/10\.13039\/\d+$/ };
  assert.equal(rows.length, rec.external_ids.length);
  for (const [kind, title, hrefs] of rows) {
    assert.equal(title, names[kind], kind);
    for (const href of hrefs) {
      if (resolver[kind]) assert.match(href ?? "", resolver[kind], kind);
      else assert.equal(href, null, `${kind} has no resolver: plain text`);
    }
  }
});

test("a selected country the facet's own answer does not list (not among the most frequent) shows its name and its count", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  // A country of one active record: outside the ten the unfiltered answer lists.
  const all = (await api(page, "/v2/organizations")).body.meta.countries.map((c) => c.id);
  const kenya = await api(page, "/v2/organizations?filter=country.country_code:ke");
  assert.ok(!all.includes("ke") && kenya.body.number_of_results > 0, `${all}`);
  const [{ title, count }] = kenya.body.meta.countries.filter((c) => c.id === "ke");
  await page.goto(t.url("?filter=country:ke"));
  await appReady(page);
  const entry = page.locator("[data-facet=country] li", { has: page.locator("input[value=ke]") });
  await entry.waitFor();
  assert.match(await entry.innerText(), new RegExp(`${title}\\s*${count}`));
  assert.match(await page.locator(".chips").innerText(), new RegExp(`Country: ${title}`));
});

test("edges: a page past the last says how many pages there are; punctuation alone is not 'nothing found'", async () => {
  const { page } = t;
  const all = await (async () => {
    await page.goto(t.url());
    await appReady(page);
    return (await api(page, "/v2/organizations?query=university")).body.number_of_results;
  })();
  const pages = Math.ceil(all / 20);
  for (const asked of [9999, pages + 1]) {
    await page.goto(t.url(`?q=university&page=${asked}`));
    await appReady(page);
    await page.waitForSelector(".results-col .notice");
    const text = await page.locator(".results-col .notice").innerText();
    assert.match(text, new RegExp(`no page ${asked}\\b.*${pages} page`), text);
    assert.doesNotMatch(text, /outside of range/);
    assert.equal(await page.locator(".result").count(), 0);
    assert.doesNotMatch(await page.locator(".results-col").innerText(), new RegExp(`Page ${pages} of ${pages}`));
  }
  await page.locator(".results-col .notice a").first().click();
  await page.waitForSelector(".result");
  assert.match(page.url(), new RegExp(`page=${pages}\\b|q=university$`));
  assert.equal(await page.locator(".result").count(), all - (pages - 1) * 20);
  // Only punctuation: said so, and where operators go.
  await input().fill("((");
  await input().press("Enter");
  await page.waitForFunction(() => /no letters or digits/.test(document.querySelector(".results-col")?.textContent ?? ""));
  assert.match(await page.locator(".results-col").innerText(), /“\(\(” has no letters or digits to search for/);
});

for (const [width, height] of [[1100, 850], [390, 844]]) {
  test(`filters at ${width} px: results come first on a phone, selected values are chips, a ticked country stays in sight`, async () => {
    const { page } = t;
    await page.setViewportSize({ width, height });
    try {
      await page.goto(t.url("?q=university"));
      await appReady(page);
      await page.waitForSelector(".result");
      const toggle = page.locator(".facets-toggle");
      const visibleBoxes = () => page.locator(".facets input[type=checkbox]").evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).length);
      if (width < 700) {
        // The first result is on the first screen, no checkbox before it.
        const top = await page.locator(".result").first().evaluate((e) => e.getBoundingClientRect().top);
        assert.ok(top < height - 60, `first result at ${top}px`);
        assert.equal(await visibleBoxes(), 0);
        assert.equal(await toggle.getAttribute("aria-expanded"), "false");
        await toggle.click();
        assert.equal(await toggle.getAttribute("aria-expanded"), "true");
        assert.ok((await visibleBoxes()) > 10);
      } else {
        assert.equal(await toggle.isVisible(), false, "the sidebar is always shown on a wide screen");
        assert.ok((await visibleBoxes()) > 10);
      }
      // Tick the last country: it moves to the top, the others stay listed and in sight.
      const countries = page.locator("[data-facet=country] li");
      const before = await countries.evaluateAll((lis) => lis.map((li) => li.querySelector("input").value));
      assert.ok(before.length >= 3, JSON.stringify(before));
      const last = before.at(-1);
      await page.locator(`[data-facet=country] input[value=${last}]`).click(); // the list is rebuilt: click, not check()
      await page.waitForFunction((v) => /filter=country%3A/.test(location.search) && document.querySelector("[data-facet=country] li input")?.value === v, last);
      const after = await countries.evaluateAll((lis) => lis.map((li) => li.querySelector("input").value));
      assert.deepEqual([...after].sort(), [...before].sort(), "every entry is still listed");
      const clipped = await page.locator("[data-facet=country] ul").evaluate((ul) => ul.scrollHeight > ul.clientHeight + 1);
      assert.equal(clipped, false, "no inner scroll box hides entries");
      // The selection is a chip; removing it removes the filter.
      const chip = page.locator(".chips .chip button");
      await chip.first().waitFor();
      assert.match(await chip.first().innerText(), /^Country: /);
      assert.match(await chip.first().getAttribute("aria-label"), /^Remove the filter Country: /);
      if (width < 700) {
        await page.getByRole("button", { name: "Show the results" }).click();
        assert.equal(await toggle.getAttribute("aria-expanded"), "false");
        assert.match(await toggle.innerText(), /1 selected/);
        assert.equal(await visibleBoxes(), 0);
        assert.ok(await chip.first().isVisible(), "the chip shows what is filtered while the panel is closed");
        const top = await page.locator(".result").first().evaluate((e) => e.getBoundingClientRect().top);
        assert.ok(top < height - 60, `first result at ${top}px`);
      }
      await chip.first().click();
      await page.waitForFunction(() => !/filter=/.test(location.search));
      assert.equal(await page.locator(".chips .chip").count(), 0);
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  });
}

/** Opens a record the way the app's own links do (no reload: 63 reloads take minutes). */
async function openRecord(page, id) {
  await page.evaluate((id) => {
    history.pushState(null, "", `?id=${id}`);
    dispatchEvent(new PopStateEvent("popstate"));
  }, id);
  await page.waitForFunction((id) => document.querySelector("article.record #record-id")?.textContent.endsWith(`/${id}`), id);
}

test("record pages at 390 px: no sideways scrolling; long URLs and ids wrap", async () => {
  const { page } = t;
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.goto(t.url());
    await appReady(page);
    await page.waitForSelector(".result");
    const wide = [];
    for (const rec of DEMO) {
      await openRecord(page, bare(rec.id));
      const { sw, cw } = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
      if (sw > cw) wide.push(`${bare(rec.id)}: ${sw} px wide in ${cw} px`);
    }
    assert.deepEqual(wide, []);
  } finally {
    await page.setViewportSize({ width: 1100, height: 850 });
  }
});

test("← Back on a record opened from a shared link goes to the search page; from the results it goes back to them", async () => {
  const { page, context } = t;
  // A shared link in a fresh tab: there is no page of the app to go back to.
  const fresh = await context.newPage();
  try {
    await fresh.goto(t.url("?id=041qyp388"));
    await appReady(fresh);
    await fresh.getByRole("button", { name: "← Back" }).click();
    await fresh.waitForSelector("#q-input");
    assert.equal(new URL(fresh.url()).origin, new URL(t.url()).origin, fresh.url());
    assert.equal(new URL(fresh.url()).searchParams.get("id"), null, fresh.url());
    await fresh.waitForSelector(".results-col");
    assert.equal(await fresh.locator("article.record").count(), 0);
  } finally {
    await fresh.close();
  }
  // From the app's own results: Back is the browser's back (the results and their page come back).
  await page.goto(t.url("?q=university&filter=type:education"));
  await appReady(page);
  await page.waitForSelector(".result");
  const first = await page.locator(".result").first().getAttribute("data-id");
  await page.locator(".result h3 a").first().click();
  await page.waitForSelector("article.record");
  const entries = await page.evaluate(() => history.length);
  await page.getByRole("button", { name: "← Back" }).click();
  await page.waitForSelector(".result");
  assert.match(page.url(), /q=university&filter=type%3Aeducation$/);
  assert.equal(await page.locator(".result").first().getAttribute("data-id"), first);
  assert.equal(await page.evaluate(() => history.length), entries, "went back, added no entry");
  // …also after a reload of the record page.
  await page.locator(".result h3 a").first().click();
  await page.waitForSelector("article.record");
  await page.reload();
  await appReady(page);
  await page.getByRole("button", { name: "← Back" }).click();
  await page.waitForSelector(".result");
  assert.match(page.url(), /q=university&filter=type%3Aeducation$/);
  // …and from a dot of the results map (web/registry-dots.js opens the record).
  await page.goto(t.url("?q=kilimani&view=map"));
  await appReady(page);
  await page.waitForSelector(".results-map[data-ready=true] svg a.dot");
  await page.locator(".results-map a.dot").first().click();
  await page.waitForSelector("article.record");
  await page.getByRole("button", { name: "← Back" }).click();
  await page.waitForSelector(".results-map");
  assert.match(page.url(), /q=kilimani&view=map$/);
});

test("record sections with nothing in them are left out, the same way for every section", async () => {
  const { page } = t;
  await page.goto(t.url());
  await appReady(page);
  await page.waitForSelector(".result");
  for (const rec of DEMO) {
    const id = bare(rec.id);
    await openRecord(page, id);
    const shown = await page.evaluate(() => {
      const article = document.querySelector("article.record");
      return {
        empty: [...article.querySelectorAll("section")]
          .filter((s) => [...s.children].every((c) => /^H\d$/.test(c.tagName) || !c.textContent.trim()))
          .map((s) => s.querySelector("h2")?.textContent),
        headings: [...article.querySelectorAll("h2")].map((h) => h.textContent),
        facts: [...article.querySelectorAll(":scope > dl.facts dt")].map((d) => d.textContent),
        factsText: article.querySelector(":scope > dl.facts").textContent,
      };
    });
    assert.deepEqual(shown.empty, [], `${id}: sections with only a heading`);
    assert.equal(shown.headings.includes("Links"), (rec.links ?? []).length > 0, `${id}: ${shown.headings}`);
    assert.equal(shown.headings.includes("External identifiers"), (rec.external_ids ?? []).length > 0, `${id}: ${shown.headings}`);
    assert.equal(shown.facts.includes("Domains"), (rec.domains ?? []).length > 0, `${id}: ${shown.facts}`);
    assert.doesNotMatch(shown.factsText, /—/, id);
  }
});

test("a search with no results: no facet headings or map link, a next step instead", async () => {
  const { page } = t;
  for (const width of [1100, 390]) {
    await page.setViewportSize({ width, height: 850 });
    try {
      // Words that match nothing: a hint, no facets.
      await page.goto(t.url("?q=qqqqxz"));
      await appReady(page);
      await page.waitForSelector(".results-h[data-total='0']");
      const visible = (sel) => page.locator(sel).evaluateAll((els) => els.filter((e) => e.getClientRects().length > 0).length);
      assert.equal(await visible(".facet"), 0, `${width}: facet groups shown`);
      assert.equal(await visible(".map-toggle"), 0, `${width}: map link shown`);
      assert.equal(await visible(".facets-toggle"), 0, `${width}: Filters button shown`);
      assert.match(await page.locator(".results-col .notice").innerText(), /spelling/);
      assert.equal(await page.locator(".results-col .result, .results-col .view-toggle").count(), 0);
      // Filters that exclude everything: a way to clear them.
      await page.goto(t.url("?q=university&filter=type:archive,country:zw"));
      await appReady(page);
      await page.waitForSelector(".results-h[data-total='0']");
      assert.equal(await visible(".facet"), 0);
      assert.equal(await visible(".map-toggle"), 0);
      await page.locator(".results-col .notice").getByRole("button", { name: /clear the filters/i }).click();
      await page.waitForSelector(".result");
      assert.doesNotMatch(page.url(), /filter=/);
      assert.match(page.url(), /q=university/);
      assert.ok((await visible(".facet")) > 0 || width < 700, "the facets are back with results");
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  }
});

test("keyboard: 'Skip to results' right after the search box, shown on focus, leads to the first result", async () => {
  const { page } = t;
  for (const width of [1100, 390]) {
    await page.setViewportSize({ width, height: 850 });
    try {
      await page.goto(t.url("?q=university"));
      await appReady(page);
      await page.waitForSelector(".result");
      const skip = page.locator("a.skip-link");
      assert.equal(await skip.evaluate((e) => e.getBoundingClientRect().width <= 1), true, "hidden until focused");
      await input().focus();
      // Tab past the search box and the advanced query's summary.
      let stops = 0;
      while (!(await skip.evaluate((e) => e === document.activeElement)) && stops < 5) {
        await page.keyboard.press("Tab");
        stops++;
      }
      assert.ok(stops <= 3, `${stops} Tab stops from the search box to the skip link`);
      const box = await skip.boundingBox();
      assert.ok(box.width > 40 && box.height > 10 && box.y >= 0 && box.y < 850, `visible when focused: ${JSON.stringify(box)}`);
      assert.equal(await skip.innerText(), "Skip to results");
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "results-h");
      assert.doesNotMatch(page.url(), /#/);
      // From there, the first result's link is at most two Tabs away (the list/map toggle between).
      const firstLink = page.locator(".result h3 a").first();
      let tabs = 0;
      while (!(await firstLink.evaluate((e) => e === document.activeElement)) && tabs < 5) {
        await page.keyboard.press("Tab");
        tabs++;
      }
      assert.ok(tabs <= 3, `${tabs} Tab stops from the skip target to the first result`);
      // The list/map toggle passed on the way shows its focus ring: drawn
      // inside the button (the toggle clips what lies outside its buttons),
      // in a colour other than the button's own.
      await page.locator(".view-toggle [data-view=list]").focus();
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Tab");
      const ring = await page.locator(".view-toggle [data-view=list]").evaluate((b) => {
        const s = getComputedStyle(b);
        return { focused: b.matches(":focus-visible"), style: s.outlineStyle, width: parseFloat(s.outlineWidth), offset: parseFloat(s.outlineOffset), colour: s.outlineColor, background: s.backgroundColor };
      });
      assert.ok(ring.focused && ring.style !== "none" && ring.width >= 2, JSON.stringify(ring));
      assert.ok(ring.offset <= -ring.width, `inside the button: ${JSON.stringify(ring)}`);
      assert.notEqual(ring.colour, ring.background, JSON.stringify(ring));
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  }
});

test("leaving a record while its line of succession is still being fetched raises no error", async () => {
  const { page, errors } = t;
  const before = errors.length;
  for (let i = 0; i < 4; i++) {
    await page.goto(t.url("?q=university"));
    await appReady(page);
    await page.waitForSelector(".result");
    await openRecord(page, "041qyp388"); // its predecessor's record is fetched after the page is shown
    await openRecord(page, "00dfjtk55");
    await page.waitForSelector("article.record h2"); // the fetches of the record left behind come back meanwhile
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
  }
  assert.deepEqual(errors.slice(before), []);
});

// The demo × 64 (`registry synth`): 4,032 records, so that counts reach the thousands.
let big;
async function bigSite() {
  if (big) return big;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "registry-x64-"));
  const registry = path.resolve("target/release/registry");
  execFileSync(registry, ["synth", "data/demo/registry-demo.json", "-o", path.join(tmp, "x64.json"), "--factor", "64", "-q"]);
  execFileSync(registry, ["site", path.join(tmp, "x64.json"), "-o", path.join(tmp, "site"), "--app", SITE, "--release", "x64", "--level", "3", "-q"]);
  const server = await serve(path.join(tmp, "site"), PREFIX);
  big = { url: server.url, close: async () => (await server.close(), fs.rmSync(tmp, { recursive: true, force: true })) };
  return big;
}
after(async () => big?.close());

const GROUPED = /^\d{1,3}(,\d{3})*$/;

for (const [width, height] of [[1100, 850], [390, 844]]) {
  test(`counts in the thousands are grouped everywhere; several words say what their count means and offer the phrase (${width} px)`, async () => {
    const { url } = await bigSite();
    const page = await t.context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.setViewportSize({ width, height });
    try {
      // The first heading painted (registry-first.js, before the app), kept for later.
      await page.addInitScript(() => {
        new MutationObserver(() => {
          const h = document.querySelector(".results-h");
          if (h && !window.__firstHeading) window.__firstHeading = { text: h.textContent, total: h.dataset.total, note: document.querySelector(".results-note")?.textContent ?? null };
        }).observe(document, { subtree: true, childList: true });
      });
      await page.goto(url + "?q=university%20of");
      await appReady(page);
      await page.waitForSelector(".result");
      assert.equal(await page.locator("#release").innerText(), "data: x64, 4,032 records");
      const total = Number(await page.locator("#results-h").getAttribute("data-total"));
      assert.ok(total >= 1000, String(total));
      const grouped = total.toLocaleString("en");
      assert.equal(await page.locator("#results-h").innerText(), `${grouped} organizations`);
      const first = await page.evaluate(() => window.__firstHeading);
      assert.equal(first.text, `${Number(first.total).toLocaleString("en")} organizations`, "the first paint's heading too");
      await page.locator(".facets fieldset[data-facet=status]").waitFor({ state: "attached" });
      const counts = await page.locator(".facets fieldset:not([data-facet=established]) .count").allTextContents();
      assert.ok(counts.length > 0 && counts.every((c) => GROUPED.test(c)), JSON.stringify(counts));
      assert.ok(counts.includes(grouped), `the status facet counts ${grouped}: ${JSON.stringify(counts)}`);
      // Several words: the count is of any of them, said under the heading, with the phrase as a link.
      const note = page.locator(".results-note");
      assert.ok(await note.isVisible());
      assert.match(await note.innerText(), /Any of these words matches/);
      assert.equal(first.note, await note.textContent(), "the first paint says the same");
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), "no sideways scrolling");
      await note.getByRole("link", { name: "Only the phrase “university of”" }).click();
      await page.waitForFunction(() => new URLSearchParams(location.search).get("q") === '"university of"');
      await page.waitForFunction((n) => Number(document.querySelector(".results-h")?.dataset.total) < n && document.querySelector(".results-col")?.dataset.for === '"university of"', total);
      assert.equal(await page.locator(".results-note").count(), 0);
      // One word: nothing to explain.
      await page.goto(url + "?q=university");
      await appReady(page);
      await page.waitForSelector(".result");
      assert.equal(await page.locator(".results-note").count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
}

test("blank text in the URL (?q=%20) is no query: the page is titled as the start page", async () => {
  const { page } = t;
  await page.goto(t.url("?q=%20"));
  await appReady(page);
  await page.waitForSelector(".results-h");
  assert.equal(await page.title(), "Organization registry");
  await page.goto(t.url("?q=northfield%20"));
  await appReady(page);
  await page.waitForFunction(() => document.title === "northfield – Organization registry");
});

test("no console errors", () => {
  const intended = /status of (400|404)/; // the unknown-id and bad-query answers asked for above
  assert.deepEqual(t.errors.filter((e) => !intended.test(e)), []);
});
