// The offline world map (web/registry-map.js, world-map.json): the record
// page's dot sits at the record's coordinates through the projection, the
// map works offline after one visit, passes axe in light and dark schemes,
// and a results page or the widget never fetch the map file (counted at
// the server, so service-worker and Worker requests count too), which the
// service worker saves with the offline copy of the data, after the answer.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { axeSerious, equalEarth, fresh, offlineReload, suite } from "./map-helpers.mjs";
import { SITE, DEMO, DOCS, SHOTS, appReady, offlineReady, api } from "./ui-helpers.mjs";

const MAP = JSON.parse(fs.readFileSync(path.join(SITE, "world-map.json"), "utf8"));

// A demo record with one located place: Edinburgh.
const RECORD = DEMO.find((r) => r.locations?.length === 1 && r.locations[0].geonames_details?.name === "Edinburgh");
const RECORD_ID = RECORD.id.split("/").pop();

const S = suite();

/** Writes a README screenshot of `locator` as docs/img/<name> (the demo data at "/" only). */
async function shot(locator, name) {
  if (!SHOTS) return;
  fs.mkdirSync(path.join(DOCS, "img"), { recursive: true });
  await locator.screenshot({ path: path.join(DOCS, "img", name) });
}

async function mapShown(page) {
  await page.waitForSelector(".record-map[data-ready=true] svg circle.dot");
}

test("map file: every ISO country the demo data uses has a shape or a marker", () => {
  const codes = new Set(DEMO.flatMap((r) => r.locations.map((l) => l.geonames_details?.country_code)).filter(Boolean));
  const missing = [...codes].filter((c) => !MAP.countries[c] && !MAP.markers?.[c]);
  assert.deepEqual(missing, []);
  assert.equal(MAP.projection, "equal-earth");
});

test("map file: no outline crosses the world (rings cut at the antimeridian), every ring closed", async () => {
  const { ringBoxes } = await import("../web/registry-map.js");
  const half = MAP.box[2] / 2;
  const wide = [];
  for (const [code, d] of Object.entries(MAP.countries)) {
    // Antarctica's edge along the pole is a line of the projection itself.
    if (code !== "AQ") for (const b of ringBoxes(d)) if (b[2] - b[0] > half) wide.push(code);
    assert.equal((d.match(/[Mm]/g) ?? []).length, (d.match(/z/g) ?? []).length, code);
  }
  assert.deepEqual(wide, []);
});

test("legend steps: increasing, ending at the largest count; small counts one step each", async () => {
  const { scaleSteps } = await import("../web/registry-map.js");
  assert.deepEqual(scaleSteps(1), [1]);
  assert.deepEqual(scaleSteps(2), [1, 2]);
  assert.deepEqual(scaleSteps(5), [1, 2, 3, 4, 5]);
  for (const max of [6, 7, 19, 100, 3456]) {
    const s = scaleSteps(max);
    assert.ok(s.length >= 2 && s.length <= 5, `${max}: ${s}`);
    assert.equal(s.at(-1), max);
    assert.ok(s.every((v, i) => i === 0 || v > s[i - 1]), `${max}: ${s}`);
  }
});

test("record page: a dot at the record's coordinates through Equal Earth, its country outlined, the city named, an OpenStreetMap link", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    await page.goto(S.server.url + `?id=${RECORD_ID}`);
    await mapShown(page);
    const g = RECORD.locations[0].geonames_details;
    const [ex, ey] = equalEarth(g.lng, g.lat, MAP.scale);
    const dot = await page.locator(".record-map circle.dot").evaluate((c) => ({ x: +c.getAttribute("cx"), y: +c.getAttribute("cy") }));
    assert.ok(Math.abs(dot.x - ex) < 1e-6 && Math.abs(dot.y - ey) < 1e-6, `dot at ${dot.x},${dot.y}, expected ${ex},${ey}`);
    // Zoomed to the region: the view holds the dot and is far smaller than the world.
    const [vx, vy, vw, vh] = (await page.locator(".record-map svg").getAttribute("viewBox")).split(" ").map(Number);
    assert.ok(ex > vx && ex < vx + vw && ey > vy && ey < vy + vh, "the dot is inside the view");
    assert.ok(vw < MAP.box[2] / 4, `zoomed in: view ${vw} wide of ${MAP.box[2]}`);
    assert.deepEqual(await page.locator(".record-map path.here").evaluateAll((p) => p.map((x) => x.dataset.code)), [g.country_code]);
    assert.equal(await page.locator(".record-map text.label").textContent(), g.name);
    const osm = await page.locator(".record-map a.osm").getAttribute("href");
    assert.equal(osm, `https://www.openstreetmap.org/?mlat=${g.lat}&mlon=${g.lng}#map=12/${g.lat}/${g.lng}`);
    assert.match(await page.locator(".record-map svg").getAttribute("aria-label"), new RegExp(g.name));
    assert.deepEqual(errors, []);
    await page.setViewportSize({ width: 820, height: 850 });
    await shot(page.locator("section[aria-labelledby=h-loc]"), "record-map.png");
  } finally {
    await context.close();
  }
});

test("a results page and the widget never fetch the map file; the offline copy saves it after the answer", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    S.requested.length = 0;
    const fromPage = [];
    page.on("request", (r) => fromPage.push(r.url()));
    await page.goto(S.server.url + "?q=university");
    await appReady(page);
    await page.waitForSelector(".result");
    const beforeAnswer = S.requested.slice();
    // Not through the service worker's install either (it does not precache
    // the map); it comes with the offline copy of the data, made once the
    // page has shown its answer, so that a map opens offline (issue 38 item 5).
    await offlineReady(page);
    assert.deepEqual(beforeAnswer.filter((r) => /world-map/.test(r)), []);
    assert.deepEqual(fromPage.filter((r) => /world-map/.test(r)), [], "the page fetched no map");
    assert.deepEqual(S.requested.filter((r) => /world-map/.test(r)), ["world-map.json"], "saved once, with the offline copy");
    S.requested.length = 0;
    const widget = await fresh(S.browser);
    try {
      await widget.page.goto(S.server.url + "widget-demo.html");
      await widget.page.locator("#affiliation-picker-input").fill("univ");
      await widget.page.waitForSelector("#affiliation-picker-input[aria-expanded=true]");
      assert.deepEqual(widget.errors, []);
    } finally {
      await widget.context.close();
    }
    assert.ok(S.requested.length > 5, "requests were counted");
    assert.deepEqual(S.requested.filter((r) => /world-map/.test(r)), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("the record page's map works offline after one visit", async () => {
  const { context, page } = await fresh(S.browser);
  try {
    await page.goto(S.server.url + `?id=${RECORD_ID}`);
    await mapShown(page);
    await offlineReload(context, page, mapShown);
    assert.equal(await page.locator(".record-map path.here").count(), 1);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ["light", "dark"]) {
  test(`record page map, ${colorScheme} scheme: readable colours and no serious axe violation`, async () => {
    const { context, page } = await fresh(S.browser, { colorScheme });
    try {
      await page.goto(S.server.url + `?id=${RECORD_ID}`);
      await appReady(page);
      await mapShown(page);
      const lum = (css) => {
        const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map((v) => {
          const c = v / 255;
          return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const colours = await page.evaluate(() => {
        const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
        return { sea: css(".record-map svg", "backgroundColor"), land: css(".record-map path.land:not(.here)", "fill"), label: css(".record-map text.label", "fill") };
      });
      const [sea, land, label] = [lum(colours.sea), lum(colours.land), lum(colours.label)];
      if (colorScheme === "dark") assert.ok(sea < 0.1 && land < 0.1 && label > 0.6, JSON.stringify(colours));
      else assert.ok(sea > 0.5 && land > 0.5 && label < 0.1, JSON.stringify(colours));
      assert.deepEqual(await axeSerious(page), []);
    } finally {
      await context.close();
    }
  });
}

/** The results page for `q` with the country map shown through its toggle. */
async function facetMapShown(page, q) {
  await page.goto(S.server.url + `?q=${q}`);
  await appReady(page);
  await page.waitForSelector(".result");
  await page.locator(".map-toggle").click();
  await page.waitForSelector(".country-map[data-ready=true] .counted");
}

test("country facet map: every country shaded by its exact count; a click filters and changes the URL exactly as ticking the list", async () => {
  // The URL the list gives.
  const list = await fresh(S.browser);
  let listed;
  try {
    await list.page.goto(S.server.url + "?q=university");
    await appReady(list.page);
    await list.page.waitForSelector(".result");
    await list.page.locator("#f-country-us").click();
    await list.page.waitForFunction(() => /filter=/.test(location.search));
    listed = await list.page.evaluate(() => location.search);
  } finally {
    await list.context.close();
  }
  const { context, page, errors } = await fresh(S.browser);
  try {
    await facetMapShown(page, "university");
    // Every country with a match is shaded and labelled with its count over
    // all matches (the registry's own count), not only the list's ten.
    const listCounts = await page.locator("[data-facet=country] li").evaluateAll((li) =>
      Object.fromEntries(li.map((x) => [x.querySelector("input").value.toUpperCase(), +x.querySelector(".count").textContent])));
    const shaded = await page.locator(".facet-map .counted").evaluateAll((p) =>
      Object.fromEntries(p.map((x) => [x.dataset.code, +x.getAttribute("aria-label").match(/: (\d+) match/)[1]])));
    const all = await api(page, "/v2/organizations?query=university&mode=typed&facet_size=all");
    assert.deepEqual(shaded, Object.fromEntries(all.body.meta.countries.map((c) => [c.id.toUpperCase(), c.count])));
    for (const [code, n] of Object.entries(listCounts)) assert.equal(shaded[code], n, code);
    const counts = shaded;
    assert.ok(await page.locator(".map-legend .swatch").count() >= 2, "a legend with the scale");
    // The pointer over Kansas (the US outline's box reaches the Aleutians: its centre is sea).
    const [kx, ky] = equalEarth(-98, 39, MAP.scale);
    const at = await page.locator(".facet-map").evaluate((svg, [x, y]) => {
      const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
      return { x: p.x, y: p.y };
    }, [kx, ky]);
    await page.mouse.move(at.x, at.y);
    assert.match(await page.locator(".map-status").textContent(), new RegExp(`^United States.*: ${counts.US} match`));
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction(() => /filter=/.test(location.search));
    assert.equal(await page.evaluate(() => location.search), listed);
    assert.equal(await page.locator("#f-country-us").isChecked(), true);
    await page.waitForSelector(".facet-map [data-code=US][aria-pressed=true]");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test("country facet map with more countries than the list's ten", async () => {
  const { context, page } = await fresh(S.browser);
  try {
    await facetMapShown(page, "a");
    const listed = await page.locator("[data-facet=country] li").count();
    const shaded = await page.locator(".facet-map .counted").count();
    const all = await api(page, "/v2/organizations?query=a&mode=typed&facet_size=all");
    assert.equal(shaded, all.body.meta.countries.length);
    assert.ok(shaded > listed, `${shaded} countries on the map, ${listed} in the list`);
    assert.match(await page.locator(".country-map .hint").textContent(), new RegExp(`Every country with a match \\(${shaded}\\)`));
    await shot(page.locator(".country-map"), "facet-map.png");
  } finally {
    await context.close();
  }
});

test("country facet map by keyboard alone: open it, reach a country with Tab, filter with Enter", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    await page.goto(S.server.url + "?q=university");
    await appReady(page);
    await page.waitForSelector(".result");
    await page.locator(".map-toggle").focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector(".country-map[data-ready=true] .counted");
    // The map sits above the filters: back from the toggle.
    let code = null;
    for (let i = 0; i < 60 && !code; i++) {
      await page.keyboard.press("Shift+Tab");
      code = await page.evaluate(() => document.activeElement?.closest(".facet-map") && document.activeElement.dataset.code);
    }
    assert.ok(code, "a country of the map takes the focus");
    assert.match(await page.locator(".map-status").textContent(), /match/);
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => /filter=/.test(location.search));
    assert.match(await page.evaluate(() => location.search), new RegExp(`filter=country%3A${code.toLowerCase()}`));
    await page.waitForSelector(`.facet-map [data-code=${code}][aria-pressed=true]`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ["light", "dark"]) {
  test(`country facet map, ${colorScheme} scheme: no serious axe violation`, async () => {
    const { context, page } = await fresh(S.browser, { colorScheme });
    try {
      await facetMapShown(page, "university");
      assert.deepEqual(await axeSerious(page), []);
    } finally {
      await context.close();
    }
  });
}
