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
import { start, DEMO, display, axeViolations as scan, SITE, PREFIX } from "./ui-helpers.mjs";
import { serve } from "./server.mjs";

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
      const firstName = (await options.nth(0).evaluate((l) => l.firstChild.textContent)).trim();
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
      // After a decision the runner-up columns name another organization, or none after "None of these".
      assert.notEqual(picked[col("second_id")], picked[col("id")], "the picked organization is not its own runner-up");
      if (pickIndex === 1) assert.equal(picked[col("second_name")], firstName, "the best candidate becomes the runner-up");
      assert.deepEqual(["second_id", "second_name", "second_score"].map((c) => out[noneLine - 2][col(c)]), ["", "", ""]);
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
  // A blank line is a row, as `registry match` writes it: 3 lines in, 3 rows out.
  await page.locator("#pasted").fill("Northfield University\n  \nIndependent researcher\n");
  await page.locator("#use-pasted").click();
  await page.waitForFunction(() => /3 rows from pasted lines/.test(document.getElementById("loaded").textContent));
  assert.ok(await page.locator("#column-row").isHidden());
  await page.locator("#match").click();
  await page.waitForFunction(() => /^Done: 3 rows/.test(document.getElementById("status").textContent));
  const pasted = await downloadRows(page);
  const h = pasted.rows[0];
  assert.deepEqual(pasted.rows.slice(1).map((r) => r[0]), ["Northfield University", "  ", "Independent researcher"]);
  assert.deepEqual(["id", "chosen", "error"].map((c) => pasted.rows[2][h.indexOf(c)]), ["", "false", ""], "the blank row: no candidate, no error");

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
  assert.match(errors[1], /^line 3: 1 field where the header has 2/);
  assert.match(errors[2], /^line 4: a quote inside unquoted field 2/);
  assert.match(errors[3], /^line 5: field 2 opens a quote that is never closed/);
  assert.equal(out[1][out[0].indexOf("name")], "Northfield University");
});

/** Loads a file into the page as a person choosing it would. */
async function choose(page, name, content) {
  await page.locator("#file").setInputFiles({ name, mimeType: "application/octet-stream", buffer: Buffer.from(content) });
}

/** Pastes `text` at once (typing thousands of lines would take minutes). */
async function paste(page, text) {
  await page.locator("#pasted").evaluate((el, text) => (el.value = text), text);
  await page.locator("#use-pasted").click();
}

async function downloadRows(page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#download").click()]);
  return { name: download.suggestedFilename(), rows: parseCsv(fs.readFileSync(await download.path(), "utf8")) };
}

const loaded = (page, re) => page.waitForFunction((re) => new RegExp(re).test(document.getElementById("loaded").textContent), re.source);
const done = (page, n) => page.waitForFunction((n) => document.getElementById("status").textContent.startsWith(`Done: ${n} row`), n, { timeout: 120_000 });

test("the affiliation column is guessed by whole words, never an id column, and an empty column is said", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await choose(page, "authors.csv", "author_id,name,institution_id,affiliation,country\n1,Ana,,Northfield University,AR\n2,Ken,,Kestrel Quantum,JP\n");
  await loaded(page, /2 rows from authors\.csv/);
  assert.equal(await page.locator("#column").inputValue(), "3", "'affiliation', not 'institution_id'");
  assert.ok(await page.locator("#column-note").isHidden());
  await choose(page, "ids.csv", "org_id,institution\nX1,Northfield University\n");
  await loaded(page, /1 row from ids\.csv/);
  assert.equal(await page.locator("#column").inputValue(), "1");
  // An affiliation column left empty: said before anything is matched.
  // (A row of empty fields is a row, as in `registry match`; the blank line is none.)
  await choose(page, "blank.csv", "name,affiliation\nAna,\n\nKen,\n,\n");
  await loaded(page, /3 rows from blank\.csv/);
  assert.match(await page.locator("#column-note").textContent(), /"affiliation" is empty in every row/);
});

test("a new list, a new column or Cancel stops a run; results always belong to the rows shown", async () => {
  const { page, errors } = t;
  errors.length = 0;
  await page.goto(t.url("match.html"));
  const big = Array.from({ length: 3000 }, (_, k) => `Department ${k}, Northfield University`).join("\n");
  await paste(page, big);
  await loaded(page, /3000 rows from pasted lines/);
  await page.locator("#match").click();
  await page.waitForFunction(() => /^Matched \d+ of 3000/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
  assert.match(await page.locator("#status").textContent(), /against \d+ records/, "the record count is known");
  // A new list while the run goes on.
  await page.locator("#pasted").fill("Kestrel Quantum\nIndependent researcher\n");
  await page.locator("#use-pasted").click();
  await loaded(page, /2 rows from pasted lines/);
  assert.match(await page.locator("#status").textContent(), /stopped/);
  assert.ok(await page.locator("#results").isHidden());
  await page.locator("#match").click();
  await done(page, 2);
  const { name, rows } = await downloadRows(page);
  assert.equal(name, "pasted-lines-matched.csv");
  assert.deepEqual(rows.slice(1).map((r) => r[0]), ["Kestrel Quantum", "Independent researcher"]);
  assert.match(rows[1][1], /ror\.org/);

  // Cancel.
  await paste(page, big);
  await loaded(page, /3000 rows/);
  await page.locator("#match").click();
  await page.waitForFunction(() => /^Matched \d+ of 3000/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
  await page.locator("#cancel").click();
  assert.match(await page.locator("#status").textContent(), /cancelled/);
  assert.ok(await page.locator("#cancel").isHidden());
  assert.ok(await page.locator("#match").isEnabled());
  assert.ok(await page.locator("#progress").isHidden());
  await page.waitForTimeout(1000); // the batch that was under way when cancelled comes back, and is dropped
  assert.match(await page.locator("#status").textContent(), /cancelled/);

  // A new column after matching: the results of the old one go.
  await choose(page, "two.csv", "a,affiliation\nKestrel Quantum,Northfield University\n");
  await loaded(page, /1 row from two\.csv/);
  await page.locator("#match").click();
  await done(page, 1);
  await page.locator("#column").selectOption("0");
  assert.ok(await page.locator("#results").isHidden());
  await page.locator("#match").click();
  await done(page, 1);
  const after = await downloadRows(page);
  assert.match(after.rows[1][after.rows[0].indexOf("name")], /Kestrel/);
  assert.deepEqual(errors, []);
});

test("files that are not UTF-8 text are refused, and the error stays with no list loaded", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  const latin1 = Buffer.concat([Buffer.from("id,affiliation\n1,Universit"), Buffer.from([0xe9]), Buffer.from(" de Lyon\n")]);
  await choose(page, "latin1.csv", latin1);
  await loaded(page, /not valid UTF-8; save the file as UTF-8/);
  assert.ok(await page.locator("#match").isDisabled());
  await choose(page, "image.csv", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0x2c, 0x0a]));
  await loaded(page, /not a text file/);
  assert.ok(await page.locator("#match").isDisabled());
  await choose(page, "unicode.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Kestrel Quantum\n", "utf16le")]));
  await loaded(page, /UTF-16 text, not UTF-8/);

  // An empty file after a list: the error stays, the old list is not used.
  await page.locator("#pasted").fill("Kestrel Quantum\nNorthfield University\n");
  await page.locator("#use-pasted").click();
  await loaded(page, /2 rows from pasted lines/);
  await choose(page, "empty.csv", "");
  await loaded(page, /empty/);
  await page.waitForTimeout(500); // (it used to vanish at once)
  assert.match(await page.locator("#loaded").textContent(), /empty\.csv.*empty.*No list is loaded/);
  assert.ok(await page.locator("#match").isDisabled(), "the earlier list is not matched");
});

test("rows with too many fields or an unclosed quote keep the output's columns in place", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await choose(page, "ragged.csv", 'id,affiliation\n1,Rangitoto Polytechnic, Auckland\n2,Cape Fynbos Herbarium\n3\n4,"unterminated, Kestrel,c\n');
  await loaded(page, /4 rows from ragged\.csv/);
  await page.locator("#match").click();
  await done(page, 4);
  const { rows } = await downloadRows(page);
  const header = rows[0];
  assert.deepEqual(header.slice(0, 5), ["id", "affiliation", "extra_1", "extra_2", "match_id"]);
  const col = (n) => header.indexOf(n);
  for (const r of rows) assert.equal(r.length, header.length);
  assert.deepEqual(rows[1].slice(0, 3), ["1", "Rangitoto Polytechnic", " Auckland"]);
  assert.equal(rows[1][col("match_id")], "");
  assert.match(rows[1][col("error")], /line 2: 3 fields where the header has 2/);
  assert.match(rows[2][col("match_id")], /^https:\/\/ror\.org\//);
  assert.match(rows[4][col("error")], /never closed/);
  assert.equal(rows[4][col("match_id")], "");
});

test("rows with no candidate and rows with an error are listed on the page", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await choose(page, "mixed.csv", "id,affiliation\n1,Northfield University\n2,xqzv kjw plo\n3\n");
  await loaded(page, /3 rows from mixed\.csv/);
  await page.locator("#match").click();
  await done(page, 3);
  assert.match(await page.locator("#none-list summary").textContent(), /^1 row with no candidate/);
  assert.match(await page.locator("#none-list li").first().textContent(), /line 3: xqzv kjw plo/);
  assert.match(await page.locator("#error-list summary").textContent(), /^1 row with an error/);
  assert.match(await page.locator("#error-list li").first().textContent(), /line 4.*1 field where the header has 2/);
  await page.locator("#pasted").fill("Northfield University\n");
  await page.locator("#use-pasted").click();
  await loaded(page, /^1 row from pasted lines/);
});

test("the live region hears the start, the end and little between; focus goes to the summary", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await paste(page, Array.from({ length: 800 }, (_, k) => `Institute ${k}, Kestrel Quantum`).join("\n"));
  await loaded(page, /800 rows/);
  await page.evaluate(() => {
    window.liveTexts = [];
    for (const el of document.querySelectorAll("[aria-live], [role=status]"))
      new MutationObserver(() => window.liveTexts.push(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });
  const t0 = Date.now();
  await page.locator("#match").click();
  await done(page, 800);
  const secs = (Date.now() - t0) / 1000;
  const texts = await page.evaluate(() => window.liveTexts);
  assert.ok(texts.length <= 3 + Math.ceil(secs / 10), `${texts.length} announcements in ${secs} s`);
  assert.match(texts[0], /Matching 800 rows/);
  assert.match(texts.at(-1), /finished/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), "status");
});

test("semicolon and tab separated files, and a text list with no .txt", async () => {
  const { page } = t;
  await page.goto(t.url("match.html"));
  await choose(page, "export.csv", "id;affiliation\n1;Rangitoto Polytechnic, Auckland\n2;Cape Fynbos Herbarium\n");
  await loaded(page, /2 rows from export\.csv/);
  assert.equal(await page.locator("#column").inputValue(), "1");
  await page.locator("#match").click();
  await done(page, 2);
  assert.match(await page.locator("#status").textContent(), /0 with errors/);
  await choose(page, "list", "Northfield University\nKestrel Quantum\n");
  await loaded(page, /2 rows from list/);
  assert.ok(await page.locator("#column-row").isHidden(), "one string a line");
  await choose(page, "list.dat", "affiliation\tcountry\nNorthfield University\tUS\n");
  await loaded(page, /1 row from list\.dat/);
  assert.ok(await page.locator("#column-row").isVisible(), "two columns, split at the tab");
  assert.equal(await page.locator("#column").inputValue(), "0");
});

for (const width of [1100, 390]) {
  test(`"Done" says the run's real time, loading the registry included; review candidates link to their records (${width} px)`, async () => {
    const { page, errors } = t;
    // The whole data's files answer 1.5 s late: a run that waits for them takes at least that.
    const HOLD_MS = 1500;
    const slow = await serve(SITE, PREFIX, { hold: (rel) => (/^data\/[^/]+\.shard$/.test(rel) ? new Promise((r) => setTimeout(r, HOLD_MS)) : null) });
    await page.setViewportSize({ width, height: 850 });
    try {
      errors.length = 0;
      await page.goto(slow.url + "match.html");
      const list = strings();
      await page.locator("#pasted").fill(list.join("\n"));
      await page.locator("#use-pasted").click();
      await page.waitForFunction(() => /200 rows from pasted lines/.test(document.getElementById("loaded").textContent));
      const clicked = Date.now();
      await page.locator("#match").click();
      await page.waitForFunction(() => /^Done: 200 rows/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
      const waited = (Date.now() - clicked) / 1000;
      const status = await page.locator("#status").textContent();
      const m = /^Done: 200 rows in ([\d.]+) (ms|s) /.exec(status);
      assert.ok(m, status);
      const said = m[2] === "ms" ? Number(m[1]) / 1000 : Number(m[1]);
      assert.ok(said >= HOLD_MS / 1000 && said <= waited + 0.1, `${status} (waited ${waited} s)`);
      // Every candidate to review links to its record page, in a new tab.
      const rows = page.locator(".review-row");
      assert.ok((await rows.count()) > 0);
      const links = await rows.first().locator(".option").evaluateAll((opts) =>
        opts.map((o) => ({ name: o.querySelector("label").firstChild.textContent.trim(), a: o.querySelector("a.record-link") && { href: o.querySelector("a.record-link").href, target: o.querySelector("a.record-link").target } })),
      );
      const candidates = links.filter((l) => l.name !== "None of these");
      assert.ok(candidates.length > 0);
      for (const { name, a } of candidates) {
        assert.ok(a, `${name}: no link`);
        const url = new URL(a.href);
        assert.equal(url.pathname, new URL(slow.url).pathname);
        const rec = DEMO.find((r) => r.id.endsWith("/" + url.searchParams.get("id")));
        assert.equal(rec && display(rec), name, a.href);
        assert.equal(a.target, "_blank");
      }
      assert.equal(links.find((l) => l.name === "None of these").a, null);
      // The link opens the record.
      const [tab] = await Promise.all([page.context().waitForEvent("page"), rows.first().locator("a.record-link").first().click()]);
      await tab.waitForSelector("#record-title");
      assert.match(await tab.locator("#record-title").innerText(), new RegExp(`^${candidates[0].name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
      await tab.close();
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scrolling");
      assert.deepEqual(await scan(page), []);
      assert.deepEqual(errors, []);
    } finally {
      await page.setViewportSize({ width: 1100, height: 850 });
      await slow.close();
    }
  });
}
