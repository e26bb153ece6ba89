// The results as dots on the world map (`?view=map`, web/registry-dots.js
// over the router's `places=all`): the list stays the default; the toggle
// is in the URL; every match's located place is drawn (clusters count
// theirs), each dot where its coordinates project and linking to its
// record; a cluster zooms in, a place lists its records; by keyboard
// alone too, at desktop and phone widths, offline after one visit, without
// serious axe violations in light and dark schemes; a list page never
// loads the map's code or file.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { axeSerious, equalEarth, fresh, offlineReload, suite } from "./map-helpers.mjs";
import { SITE, DOCS, SHOTS, appReady, api, offlineReady } from "./ui-helpers.mjs";
import { cluster, clusterView } from "../web/registry-dots.js";

const MAP = JSON.parse(fs.readFileSync(path.join(SITE, "world-map.json"), "utf8"));

const S = suite();

const mapShown = (page) => page.waitForSelector(".results-map[data-ready=true] svg");

/** What the map shows: the records of its dots and the counts of its clusters. */
const marks = (page) =>
  page.locator(".results-map svg").evaluate((svg) => ({
    dots: [...svg.querySelectorAll("a.dot")].map((a) => ({ href: a.getAttribute("href"), x: +a.firstChild.getAttribute("cx"), y: +a.firstChild.getAttribute("cy") })),
    clusters: [...svg.querySelectorAll("g.cluster")].map((g) => +g.dataset.points),
    records: [...svg.querySelectorAll("g.cluster")].map((g) => +g.dataset.count),
    viewBox: svg.getAttribute("viewBox").split(" ").map(Number),
  }));

test("cluster: every point in one cluster, largest first", () => {
  const pts = [0, 0.1, 0.2, 5, 5.1, 9].map((x, i) => ({ x, y: 0, id: String(i) }));
  const c = cluster(pts, 1);
  assert.deepEqual(c.map((x) => x.points.length), [3, 2, 1]);
  assert.equal(c.flatMap((x) => x.points).length, pts.length);
  assert.ok(Math.abs(c[0].x - 0.1) < 1e-9);
});

test("clusterView: a cluster zooms to a view holding all its points, a lone outlier too", () => {
  const inside = (v, p) => p.x > v[0] && p.x < v[0] + v[2] && p.y > v[1] && p.y < v[1] + v[3];
  // Five points together and one below them (the newcomer's Duluth): the
  // mean sits near the five; a view centred there left the sixth out.
  const pts = [[0, 0], [0.01, 0], [0, 0.01], [0.01, 0.01], [0.005, 0.005], [0.02, 0.9]].map(([x, y]) => ({ x, y }));
  let seed = 3;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const sets = [pts, ...Array.from({ length: 200 }, () => Array.from({ length: 2 + Math.floor(rnd() * 8) }, () => ({ x: rnd() * 3, y: rnd() * 3 })))];
  for (const set of sets) {
    const v = clusterView(set, 0.01);
    assert.ok(Math.abs(v[2] - 2 * v[3]) < 1e-9, "twice as wide as high");
    for (const p of set) assert.ok(inside(v, p), `${JSON.stringify(p)} in ${v}`);
  }
  assert.ok(clusterView([{ x: 1, y: 1 }, { x: 1, y: 1 }], 0.01)[2] >= 0.01, "never narrower than the deepest zoom");
});

test("the list is the default; Map shows every match's located place, in the URL; dots sit at their coordinates and link to their records", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    S.requested.length = 0;
    const fromPage = [];
    page.on("request", (r) => fromPage.push(r.url()));
    await page.goto(S.server.url + "?q=university");
    await appReady(page);
    await page.waitForSelector(".result");
    assert.equal(await page.locator(".view-toggle [data-view=list]").getAttribute("aria-pressed"), "true");
    const beforeAnswer = S.requested.slice();
    await page.waitForTimeout(500);
    // The page loads none of the map; the service worker keeps the small
    // module for offline use, and the map file only with the offline copy
    // of the data, made after the page has shown its answer (counted at the server).
    assert.deepEqual(fromPage.filter((r) => /registry-dots|registry-world|world-map/.test(r)), [], "a list page loads none of the map");
    assert.deepEqual(beforeAnswer.filter((r) => /world-map/.test(r)), []);
    await page.locator(".view-toggle [data-view=map]").click();
    await page.waitForFunction(() => location.search.includes("view=map"));
    await mapShown(page);
    const answer = (await api(page, "/v2/organizations?query=university&mode=typed&places=all")).body;
    const points = answer.meta.places.points;
    assert.ok(points.length > 3, `${points.length} points`);
    const m = await marks(page);
    // Every point is drawn once: as a dot, or counted by a cluster.
    assert.equal(m.dots.length + m.clusters.reduce((s, n) => s + n, 0), points.length);
    m.records.forEach((n, i) => assert.ok(n >= 1 && n <= m.clusters[i], "a cluster counts its records"));
    assert.equal(+(await page.locator(".results-map").getAttribute("data-shown")), points.length);
    for (const d of m.dots) {
      const id = d.href.replace("?id=", "");
      // One of the record's located places (a record may have several).
      const at = points.filter((q) => q.id === id).map((p) => equalEarth(p.lng, p.lat, MAP.scale));
      assert.ok(at.some(([ex, ey]) => Math.abs(d.x - ex) < 1e-6 && Math.abs(d.y - ey) < 1e-6), `${id} at ${d.x},${d.y}, expected one of ${JSON.stringify(at)}`);
    }
    assert.match(await page.locator(".results-map .hint").textContent(), new RegExp(`^${new Set(points.map((p) => p.id)).size} organizations? with coordinates`));
    await shot(page.locator(".results-col"), "results-map.png");
    // Back to the list: the URL and the list.
    await page.locator(".view-toggle [data-view=list]").click();
    await page.waitForFunction(() => !location.search.includes("view=map"));
    await page.waitForSelector(".result");
    await page.goBack();
    await mapShown(page);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** Writes a README screenshot (the demo data at "/" only). */
async function shot(locator, name) {
  if (!SHOTS) return;
  fs.mkdirSync(path.join(DOCS, "img"), { recursive: true });
  await locator.screenshot({ path: path.join(DOCS, "img", name) });
}

/** Zooms into the largest cluster until a place's list or dots alone are left; returns the steps taken. */
async function zoomIn(page, press) {
  for (let step = 0; step < 12; step++) {
    const m = await marks(page);
    if (!m.clusters.length || (await page.locator(".results-map .place-list").count())) return step;
    await press(page.locator(".results-map g.cluster").first());
    await page.waitForFunction(
      ([vb]) => document.querySelector(".results-map svg").getAttribute("viewBox") !== vb || document.querySelector(".results-map .place-list"),
      [m.viewBox.join(" ")],
    );
  }
  throw new Error("the clusters never came apart");
}

test("a cluster zooms in, a place lists its records, a dot opens its record", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    await page.goto(S.server.url + "?q=a&view=map");
    await appReady(page);
    await mapShown(page);
    const world = (await marks(page)).viewBox;
    assert.ok((await marks(page)).clusters.length > 0, "the world view has clusters");
    await zoomIn(page, (l) => l.click());
    const zoomed = await marks(page);
    assert.ok(zoomed.viewBox[2] < world[2], "zoomed in");
    assert.ok(await page.locator(".zoom-world").isVisible());
    const link = (await page.locator(".results-map .place-list a").count())
      ? page.locator(".results-map .place-list a").first()
      : page.locator(".results-map a.dot").first();
    const href = await link.getAttribute("href");
    await link.click();
    await page.waitForFunction((h) => location.search === h, href);
    await page.waitForSelector(".record, article, h1");
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

for (const width of [1100, 390]) {
  test(`keyboard alone at ${width} px: the toggle, a cluster, a dot`, async () => {
    const { context, page, errors } = await fresh(S.browser, { width });
    try {
      await page.goto(S.server.url + "?q=a");
      await appReady(page);
      await page.waitForSelector(".result");
      await page.locator("a.brand").focus();
      const tabTo = async (test) => {
        for (let i = 0; i < 200; i++) {
          await page.keyboard.press("Tab");
          if (await page.evaluate(test)) return;
        }
        throw new Error(`not reached by Tab: ${test}`);
      };
      await tabTo(() => document.activeElement?.dataset.view === "map");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => location.search.includes("view=map"));
      await mapShown(page);
      await zoomIn(page, async (l) => {
        await l.focus();
        await page.keyboard.press("Enter");
      });
      const before = page.url();
      await page.locator("a.brand").focus();
      await tabTo(() => document.activeElement?.matches(".results-map a.dot, .results-map .place-list a"));
      assert.match(await page.locator(".results-map .map-status").textContent(), /./);
      await page.keyboard.press("Enter");
      await page.waitForFunction((b) => location.href !== b && location.search.startsWith("?id="), before);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test("the results map works offline after one visit, also when shown after the app was saved for offline use", async () => {
  const { context, page } = await fresh(S.browser);
  try {
    // The service worker is installed (and its offline copy complete)
    // before the map is ever shown, so the map file is fetched after install.
    await page.goto(S.server.url + "?q=university");
    await appReady(page);
    await page.waitForSelector(".result");
    await offlineReady(page);
    await page.locator(".view-toggle [data-view=map]").click();
    await mapShown(page);
    const online = await marks(page);
    assert.deepEqual(await offlineReload(context, page, mapShown, marks), online);
  } finally {
    await context.close();
  }
});

for (const colorScheme of ["light", "dark"]) {
  for (const width of [1100, 390]) {
    test(`results map, ${colorScheme} scheme, ${width} px: no serious axe violation`, async () => {
      const { context, page } = await fresh(S.browser, { colorScheme, width });
      try {
        await page.goto(S.server.url + "?q=university&view=map");
        await appReady(page);
        await mapShown(page);
        assert.deepEqual(await axeSerious(page), []);
      } finally {
        await context.close();
      }
    });
  }
}
