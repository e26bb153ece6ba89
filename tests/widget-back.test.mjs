// Back to a submitted form (issue 38 item 8): the browser restores a plain
// input's value when the page is loaded again from history; the picker
// restores its text and picked id the same way (a form-associated custom
// element's saved state), so the form can be sent again unchanged. Checked
// with and without the back/forward cache (a page loaded again from history
// is the case that lost the pick), for a picker with the page's own early
// input and one without, a pick and free text, and a `multiple` list.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { SITE, PREFIX } from "./ui-helpers.mjs";

let server;
before(async () => {
  server = await serve(SITE, PREFIX);
});
after(async () => {
  await server?.close();
});

const FORM = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>form</title>
<script type="module" src="registry-picker.js"></script></head><body>
<form id="f" method="get" action="sent.html">
  <label for="author">Name</label> <input name="author" id="author">
  <registry-picker id="aff" name="affiliation" label="Affiliation"><label for="aff-in">Affiliation</label><input id="aff-in" name="affiliation"></registry-picker>
  <registry-picker id="fun" name="funder" label="Funder"></registry-picker>
  <registry-picker id="other" name="other" label="Other"></registry-picker>
  <registry-picker id="many" name="many" label="Several" multiple></registry-picker>
  <button id="send">Send</button>
</form></body></html>`;

/** The form's fields as it would send them now. */
const sent = (page) => page.evaluate(() => [...new FormData(document.getElementById("f"))].map(([k, v]) => `${k}=${v}`));

for (const bfcache of [false, true]) {
  test(`Back to a submitted form restores each picker's text and id (back/forward cache ${bfcache ? "enabled" : "disabled"})`, async () => {
    const args = bfcache ? CHROMIUM_ARGS : [...CHROMIUM_ARGS, "--disable-features=BackForwardCache"];
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args });
    try {
      const page = await (await browser.newContext({ viewport: { width: 1100, height: 850 } })).newPage();
      page.setDefaultTimeout(20_000);
      const errors = [];
      watchErrors(page, errors);
      const url = server.url + "back-form.html";
      await page.route(url, (r) => r.fulfill({ contentType: "text/html", body: FORM }));
      await page.route(server.url + "sent.html*", (r) => r.fulfill({ contentType: "text/html", body: "<!doctype html><html lang=en><title>sent</title><p>sent</p></html>" }));
      await page.goto(url);
      await page.locator("#author").fill("Ada");
      for (const id of ["aff", "fun"]) {
        const input = page.locator(`#${id}-picker-input`);
        await input.waitFor();
        await input.fill("northfield univ");
        await page.locator(`#${id}-picker-list [role=option]`).first().waitFor();
        await input.press("ArrowDown");
        await input.press("Enter");
      }
      await page.locator("#other-picker-input").fill("Nowhere Institute");
      await page.locator("#other-picker-input").press("Tab");
      // `multiple`: a pick and a text kept with Enter.
      const many = page.locator("#many-picker-input");
      await many.fill("northfield univ");
      await page.locator("#many-picker-list [role=option]").first().waitFor();
      await many.press("ArrowDown");
      await many.press("Enter");
      await many.fill("Some Lab");
      await many.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll("#many .rp-item").length === 2);
      const before = await sent(page);
      assert.match(before.find((f) => f.startsWith("affiliation_id=")), /^affiliation_id=https:\/\/ror\.org\/0/);
      assert.ok(before.includes("other=Nowhere Institute") && before.includes("other_id="), before.join("\n"));
      assert.deepEqual(before.filter((f) => f.startsWith("many=")), ["many=Northfield University", "many=Some Lab"]);
      await Promise.all([page.waitForURL(/sent\.html/), page.locator("#send").click()]);
      await page.goBack();
      await page.locator("#author").waitFor();
      assert.equal(await page.locator("#author").inputValue(), "Ada");
      await page.waitForFunction(() => document.querySelectorAll("registry-picker input[role=combobox]").length === 4);
      await page.waitForFunction(() => document.querySelectorAll("#many .rp-item").length === 2);
      // What is shown and what would be sent again are what was sent.
      await page.waitForFunction(() => document.getElementById("fun-picker-input")?.value === "Northfield University");
      assert.equal(await page.locator("#aff-picker-input").inputValue(), "Northfield University");
      assert.equal(await page.locator("#other-picker-input").inputValue(), "Nowhere Institute");
      assert.deepEqual(await sent(page), before);
      assert.equal(await page.evaluate(() => document.getElementById("aff").value?.id), before.find((f) => f.startsWith("affiliation_id=")).slice("affiliation_id=".length));
      // The restored pick is a pick: an edit makes it text as typed again.
      await page.locator("#fun-picker-input").press("End");
      await page.locator("#fun-picker-input").press("Backspace");
      assert.ok((await sent(page)).includes("funder_id="));
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
}
