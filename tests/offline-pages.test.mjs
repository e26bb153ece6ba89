// Offline after one visit (issue 38 item 5): a visit to a results page
// that opened neither the "Match a list" page nor any map leaves both
// working offline: the match page and its Worker (matching from the
// offline copy of the data), a record page's map and the results map. The
// page itself still fetches no map file (the service worker saves it with
// the offline copy of the data, once the page has shown its answer).
import { test } from "node:test";
import assert from "node:assert/strict";
import { fresh, suite } from "./map-helpers.mjs";
import { DEMO, appReady, offlineReady } from "./ui-helpers.mjs";
import { goOffline } from "./server.mjs";

const S = suite();
// A demo record with one located place: Edinburgh.
const RECORD = DEMO.find((r) => r.locations?.length === 1 && r.locations[0].geonames_details?.name === "Edinburgh");
const RECORD_ID = RECORD.id.split("/").pop();

test("after one visit to a results page, the match page and the maps work offline", async () => {
  const { context, page, errors } = await fresh(S.browser);
  try {
    const fromPage = [];
    page.on("request", (r) => fromPage.push(r.url()));
    await page.goto(S.server.url + "?q=university");
    await appReady(page);
    await page.waitForSelector(".result");
    await offlineReady(page);
    assert.deepEqual(fromPage.filter((u) => /match|world-map/.test(new URL(u).pathname)), [], "the visit opened neither the match page nor a map");
    await goOffline(context, page);

    // "Match a list", and its Worker matching from the offline copy.
    await page.goto(S.server.url + "match.html");
    await page.locator("#pasted").fill("Northfield University\nIndependent researcher\n");
    await page.locator("#use-pasted").click();
    await page.waitForFunction(() => /2 rows from pasted lines/.test(document.getElementById("loaded").textContent));
    await page.locator("#match").click();
    await page.waitForFunction(() => /^Done: 2 rows/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
    assert.match(await page.locator("#status").innerText(), /1 matched with confidence/);

    // A record page's map, never shown online.
    await page.goto(S.server.url + `?id=${RECORD_ID}`);
    await page.waitForSelector(".record-map[data-ready=true] svg circle.dot");
    assert.equal(await page.locator(".record-map path.here").count(), 1);
    assert.equal(await page.locator(".record-map .error").count(), 0);

    // The results map, never shown online.
    await page.goto(S.server.url + "?q=university&view=map");
    await page.waitForSelector(".results-map[data-ready=true] svg");
    assert.ok((await page.locator(".results-map svg a.dot, .results-map svg g.cluster").count()) > 0);
    assert.deepEqual(errors.filter((e) => /ERR_FAILED|ERR_INTERNET_DISCONNECTED|could not be loaded|not been saved/.test(e)), []);
  } finally {
    await context.setOffline(false);
    await context.close();
  }
});
