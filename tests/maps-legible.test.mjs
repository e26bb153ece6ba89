// Maps that can be read at a glance (issue 38 item 9), at 1100 and 390 px:
// at world zoom the results map's clusters do not cover each other, each
// number sits inside its circle and inside the map, in type at least 11 px
// tall; with "Show on a world map" (the country facet) and "Map" (the
// results) both on, one world map is shown; the years histogram's axis
// labels are at least 11 px tall.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fresh, suite } from "./map-helpers.mjs";
import { appReady } from "./ui-helpers.mjs";
import { separate } from "../web/registry-dots.js";

const S = suite();

/** Rendered font size in CSS px of an element (an SVG text's scaled by its map). */
const renderedFontPx = (locator) =>
  locator.evaluateAll((els) =>
    els.map((e) => parseFloat(getComputedStyle(e).fontSize) * (e instanceof SVGElement ? e.getScreenCTM().a : 1)));

test("separate: no two clusters closer than their radii and the gap, every point kept, inside the box", () => {
  // A row of small clusters side by side (the means of neighbouring grid cells).
  const clusters = [];
  for (let i = 0; i < 30; i++) clusters.push({ points: Array.from({ length: 1 + (i % 4) }, (_, k) => ({ id: `${i}-${k}`, x: i * 7 + k * 0.1, y: 50 })) });
  clusters.push({ points: [{ id: "edge", x: 0.5, y: 0.5 }, { id: "edge2", x: 0.6, y: 0.4 }] });
  const out = separate(clusters, (c) => 6 + c.points.length, 2, [0, 0, 400, 200]);
  assert.equal(out.reduce((s, c) => s + c.points.length, 0), clusters.reduce((s, c) => s + c.points.length, 0));
  for (let i = 0; i < out.length; i++) {
    const c = out[i];
    assert.ok(c.x - c.r >= 0 && c.y - c.r >= 0 && c.x + c.r <= 400 && c.y + c.r <= 200, `inside: ${JSON.stringify([c.x, c.y, c.r])}`);
    for (const d of out.slice(i + 1)) assert.ok(Math.hypot(c.x - d.x, c.y - d.y) >= c.r + d.r + 2 - 1e-9);
  }
});

for (const width of [1100, 390]) {
  test(`results map at world zoom, ${width} px: clusters apart, their numbers inside them and the map, at least 11 px`, async () => {
    const { context, page, errors } = await fresh(S.browser, { width });
    try {
      await page.goto(S.server.url + "?q=university&view=map");
      await appReady(page);
      await page.waitForSelector(".results-map[data-ready=true] svg g.cluster");
      const marks = await page.locator(".results-map svg").evaluate((svg) => {
        const box = svg.getBoundingClientRect();
        const disc = (c) => {
          const b = c.getBoundingClientRect();
          return { x: b.x + b.width / 2, y: b.y + b.height / 2, r: b.width / 2 };
        };
        return {
          box: { x: box.x, y: box.y, right: box.right, bottom: box.bottom },
          clusters: [...svg.querySelectorAll("g.cluster")].map((g) => {
            const t = g.querySelector("text").getBoundingClientRect();
            return { ...disc(g.querySelector("circle")), text: { x: t.x, y: t.y, right: t.right, bottom: t.bottom }, label: g.querySelector("text").textContent };
          }),
          dots: [...svg.querySelectorAll("a.dot circle")].map(disc),
        };
      });
      assert.ok(marks.clusters.length >= 2, `clusters drawn: ${marks.clusters.length}`);
      const all = [...marks.clusters, ...marks.dots];
      for (let i = 0; i < all.length; i++)
        for (const b of all.slice(i + 1)) {
          const a = all[i];
          assert.ok(Math.hypot(a.x - b.x, a.y - b.y) >= a.r + b.r - 0.5, `overlap: ${JSON.stringify([a, b])}`);
        }
      for (const c of marks.clusters) {
        const t = c.text;
        // The number inside its circle (its box's corners may poke out of a round disc: the box's width and height within it).
        assert.ok(t.x >= c.x - c.r - 0.5 && t.right <= c.x + c.r + 0.5, `number ${c.label} wider than its circle: ${JSON.stringify(c)}`);
        assert.ok(t.x >= marks.box.x - 0.5 && t.right <= marks.box.right + 0.5 && t.y >= marks.box.y - 0.5 && t.bottom <= marks.box.bottom + 0.5, `number ${c.label} cut off by the map's edge`);
        assert.ok(c.x - c.r >= marks.box.x - 0.5 && c.x + c.r <= marks.box.right + 0.5, `cluster ${c.label} cut off by the map's edge`);
      }
      const sizes = await renderedFontPx(page.locator(".results-map svg g.cluster text"));
      assert.ok(Math.min(...sizes) >= 11, `cluster numbers ${Math.min(...sizes).toFixed(1)} px`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test(`one world map with both "Show on a world map" and "Map" on, ${width} px`, async () => {
    const { context, page, errors } = await fresh(S.browser, { width });
    try {
      await page.goto(S.server.url + "?q=university");
      await appReady(page);
      await page.waitForSelector(".result");
      if (width < 700) await page.locator(".facets-toggle").click();
      await page.locator(".map-toggle").click();
      await page.waitForSelector("#country-map svg");
      if (width < 700) await page.locator(".facets-toggle").click();
      await page.locator(".view-toggle [data-view=map]").click();
      await page.waitForSelector(".results-map[data-ready=true] svg");
      assert.equal(await page.locator("svg.world-map:visible, #country-map svg:visible").count(), 1, "one world map");
      // Back to the list: the country map the person opened is there again.
      await page.locator(".view-toggle [data-view=list]").click();
      await page.waitForSelector(".result");
      await page.waitForSelector("#country-map svg");
      assert.equal(await page.locator(".results-map").count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test(`years histogram axis labels at least 11 px, ${width} px`, async () => {
    const { context, page, errors } = await fresh(S.browser, { width });
    try {
      await page.goto(S.server.url + "?q=university");
      await appReady(page);
      await page.waitForSelector(".result");
      if (width < 700) await page.locator(".facets-toggle").click();
      await page.waitForSelector(".years[data-ready=true] .years-chart");
      const labels = page.locator(".years-chart .axis, .years-axis > *");
      const texts = await labels.evaluateAll((els) => els.map((e) => e.textContent));
      assert.equal(texts.length, 2, "first and last year");
      assert.ok(texts.every((t) => /^\d{3,4}$|before|–/.test(t.trim())), texts.join(" | "));
      // The chart may be drawn again (its counts once the whole data is in):
      // a label replaced between two reads has no computed style (NaN), so
      // its size is read from the chart as it stands once drawn.
      let sizes = [];
      for (const end = Date.now() + 10_000; Date.now() < end; await page.waitForTimeout(100)) {
        sizes = await renderedFontPx(page.locator(".years-chart .axis, .years-axis > *"));
        if (sizes.length === 2 && sizes.every(Number.isFinite)) break;
      }
      assert.ok(Math.min(...sizes) >= 11, `axis labels ${sizes.map((s) => s.toFixed(1)).join(", ")} px`);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}
