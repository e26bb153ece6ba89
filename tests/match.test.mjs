// The "Match a list" page (match.html) as a research office uses it: drop
// a CSV of 200 affiliation strings (the demo data's names, with
// departments, cities, typos and strings naming no organization), match
// them in the page's Worker, pick a candidate for an uncertain row, and
// download the result: every row, in order, with the picked id. Also: the
// search page links to it without loading any of it, and axe finds no
// serious violation at desktop and phone width.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { start, DEMO, display, axeViolations as scan } from "./ui-helpers.mjs";

let t;
before(async () => {
  t = await start();
});
after(async () => {
  await t?.close();
});

/** 200 strings: names as written in papers, and noise that names nothing. */
function strings() {
  const names = DEMO.filter((r) => r.status === "active").map(display);
  const noise = ["Independent researcher", "Department of Physics", "Retired", "xqzv kjw plo", "Private practice", "Faculty of Arts, Home"];
  const out = [];
  for (let k = 0; out.length < 200; k++) {
    const name = names[k % names.length];
    const words = name.split(" ");
    switch (k % 8) {
      case 0: out.push(name); break;
      case 1: out.push(`Department of Chemistry, ${name}`); break;
      case 2: out.push(`${name}, "Main campus"`); break;
      case 3: out.push(words.slice(0, Math.max(1, words.length - 1)).join(" ")); break; // a word short
      case 4: out.push(words.slice(-2).join(" ")); break; // only its last words
      case 5: out.push(noise[k % noise.length]); break;
      case 6: out.push(name.replace(/[aeiou](?=[a-z]{3})/, "")); break; // a typo
      default: out.push(`${words[0]} Institute`); break;
    }
  }
  return out;
}

const csvField = (s) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

/** Records of this page's CSV output (well-formed RFC 4180). */
function parseCsv(text) {
  const rows = [];
  let row = [], field = "", quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += c;
  }
  assert.equal(row.length + field.length, 0, "the output ends with a whole record");
  return rows;
}

test("the search page links to the match page and loads none of it", async () => {
  const { page } = t;
  const requested = [];
  page.on("request", (r) => requested.push(r.url()));
  await page.goto(t.url("?q=university"));
  await page.waitForSelector(".result");
  await page.waitForTimeout(500);
  const link = page.locator('footer a[href="match.html"]');
  assert.equal(await link.textContent(), "Match a list");
  assert.deepEqual(requested.filter((u) => /match/.test(new URL(u).pathname)), []);
});

for (const width of [1100, 390]) {
  test(`drop a CSV of 200 strings, review, pick, download (${width} px)`, async () => {
    const { page, errors } = t;
    await page.setViewportSize({ width, height: 850 });
    try {
      errors.length = 0;
      await page.goto(t.url("match.html"));
      const list = strings();
      const csv = "n,affiliation,note\r\n" + list.map((s, k) => [String(k + 1), s, k % 3 ? "x" : "a, b"].map(csvField).join(",")).join("\r\n") + "\r\n";
      // A drop, as a person drags the file onto the page.
      await page.evaluate((csv) => {
        const dt = new DataTransfer();
        dt.items.add(new File([csv], "authors.csv", { type: "text/csv" }));
        document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, csv);
      await page.waitForFunction(() => /200 rows from authors\.csv/.test(document.getElementById("loaded").textContent));
      assert.equal(await page.locator("#column").inputValue(), "1", "the affiliation column is guessed");
      await page.locator("#match").click();
      await page.waitForFunction(() => /^Done: 200 rows/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
      const status = await page.locator("#status").textContent();
      const [, chosen, review, none] = /(\d+) matched with confidence, (\d+) to review, (\d+) with no candidate/.exec(status).map(Number);
      assert.ok(chosen > 50 && review > 0 && none > 0, status);

      // The closest call comes first; pick its second candidate (else its first).
      const rows = page.locator(".review-row");
      assert.equal(await rows.count(), Math.min(review, 50));
      const first = rows.first();
      const options = first.locator(".option label");
      const pickIndex = (await options.count()) > 2 ? 1 : 0;
      const pickedName = (await options.nth(pickIndex).evaluate((l) => l.firstChild.textContent)).trim();
      const line = Number(/line (\d+)/.exec(await first.locator("legend .line").textContent())[1]);
      await options.nth(pickIndex).click();
      assert.ok(await first.locator("input[type=radio]").nth(pickIndex).isChecked());
      // "None of these" on the next row.
      await rows.nth(1).locator("label", { hasText: "None of these" }).click();
      const noneLine = Number(/line (\d+)/.exec(await rows.nth(1).locator("legend .line").textContent())[1]);

      assert.deepEqual(await scan(page), []);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scrolling");

      const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
      assert.equal(download.suggestedFilename(), "authors-matched.csv");
      const out = parseCsv(fs.readFileSync(await download.path(), "utf8"));
      const header = out.shift();
      assert.deepEqual(header, ["n", "affiliation", "note", "id", "name", "score", "chosen", "matching_type", "second_id", "second_name", "second_score", "error", "reviewed"]);
      assert.equal(out.length, 200);
      const col = (name) => header.indexOf(name);
      out.forEach((r, k) => {
        assert.equal(r.length, header.length, `row ${k + 1}`);
        assert.equal(r[0], String(k + 1), "rows in order");
        assert.equal(r[1], list[k], "the input kept as it was");
      });
      const picked = out[line - 2]; // line 1 is the header
      const pickedId = DEMO.find((rec) => display(rec) === pickedName)?.id;
      assert.ok(pickedId, pickedName);
      assert.deepEqual([picked[col("id")], picked[col("name")], picked[col("chosen")], picked[col("reviewed")]], [pickedId, pickedName, "true", "picked"]);
      assert.deepEqual([out[noneLine - 2][col("id")], out[noneLine - 2][col("reviewed")]], ["", "none"]);
      assert.equal(out.filter((r) => r[col("chosen")] === "true").length, chosen + 1);
      assert.equal(out.filter((r) => r[col("id")] === "" ).length, none + 1);
      assert.deepEqual(errors, []);
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
    }
  });
}

test("pasted lines, and a CSV whose rows cannot all be read", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await page.locator("#pasted").fill("Northfield University\n\nIndependent researcher\n");
  await page.locator("#use-pasted").click();
  await page.waitForFunction(() => /2 rows from pasted lines/.test(document.getElementById("loaded").textContent));
  assert.ok(await page.locator("#column-row").isHidden());
  await page.locator("#match").click();
  await page.waitForFunction(() => /^Done: 2 rows/.test(document.getElementById("status").textContent));

  // (A quote never closed is last: an earlier one would be closed by the next quote in the file.)
  const csv = 'id,affiliation\n1,Northfield University\n3\n4,Cape "Fynbos" Herbarium\n2,"never closed\n';
  await page.locator("#file").setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await page.waitForFunction(() => /4 rows from bad\.csv/.test(document.getElementById("loaded").textContent));
  await page.locator("#match").click();
  await page.waitForFunction(() => /^Done: 4 rows/.test(document.getElementById("status").textContent));
  assert.match(await page.locator("#status").textContent(), /3 with errors/);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
  const out = parseCsv(fs.readFileSync(await download.path(), "utf8"));
  assert.equal(out.length, 5);
  const errors = out.slice(1).map((r) => r[out[0].indexOf("error")]);
  assert.equal(errors[0], "");
  assert.match(errors[1], /^line 3: 1 fields where the header has 2/);
  assert.match(errors[2], /^line 4: a quote inside unquoted field 2/);
  assert.match(errors[3], /^line 5: field 2 opens a quote that is never closed/);
  assert.equal(out[1][out[0].indexOf("name")], "Northfield University");
});
