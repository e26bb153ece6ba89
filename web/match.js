// The "Match a list" page (match.html): a CSV (one column of affiliation
// strings) or pasted lines in, the registry's matches out, as a CSV with
// the columns `registry match` writes plus `reviewed`. Matching runs in
// match-worker.js over the site's own data: nothing leaves the browser.
// Rows without a confident (`chosen`) match are listed for review, closest
// calls first (smallest margin between the first two candidates), each
// with its candidates and "none of these" to pick from. How a file is laid
// out (delimiter, or one string a line) and which column to match are the
// core's rule, asked of the Worker's wasm: `registry match` follows the same.

const $ = (id) => document.getElementById(id);
/** Strings sent to the Worker at a time: progress moves often, messages stay few. */
const BATCH = 25;
/** Rows of the review list shown before "Show more". */
const PAGE = 50;
/** The columns added to each row (as `registry match` writes them) and the person's decision. */
const ADDED = ["id", "name", "score", "chosen", "matching_type", "second_id", "second_name", "second_score", "error", "reviewed"];

/**
 * RFC 4180 records of `text`: [{line, fields, error}]. A quoting mistake is
 * the record's error, and a quote never closed ends its record at its first
 * line, so one stray quote cannot swallow the rest of the file (the rules of
 * `registry match`).
 */
function parseCsv(text, sep = ",") {
  const records = [];
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const start = i;
    const startLine = line;
    const fields = [];
    let error = null;
    let unclosed = false;
    for (;;) {
      let field = "";
      const k = fields.length + 1;
      if (text[i] === '"') {
        i++;
        let closed = false;
        while (i < n) {
          if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
          else if (text[i] === '"') {
            i++;
            closed = true;
            break;
          } else {
            if (text[i] === "\n") line++;
            field += text[i++];
          }
        }
        if (!closed) {
          unclosed = true;
          break;
        }
        if (i < n && text[i] !== sep && text[i] !== "\r" && text[i] !== "\n") error ??= `text after the closing quote of field ${k}`;
      }
      while (i < n && text[i] !== sep && text[i] !== "\n") {
        if (text[i] === '"') error ??= `a quote inside unquoted field ${k}`;
        field += text[i++];
      }
      if (text[i] === sep) {
        fields.push(field);
        i++;
        continue;
      }
      if (text[i] === "\n" && field.endsWith("\r")) field = field.slice(0, -1);
      fields.push(field);
      if (i < n) (i++, line++);
      break;
    }
    if (unclosed) {
      let end = text.indexOf("\n", start);
      if (end < 0) end = n;
      records.push({ line: startLine, fields: text.slice(start, end).replace(/\r$/, "").split(sep), error: `field ${fields.length + 1} opens a quote that is never closed` });
      i = end + 1;
      line = startLine + 1;
      continue;
    }
    records.push({ line: startLine, fields, error });
  }
  return records;
}

/** One CSV field, quoted when it must be. */
function csvField(v) {
  const s = String(v ?? "");
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The page's state: the input table and, once matched, one result per row.
 * `run` counts runs: a new list, a new column or Cancel bumps it, so an
 * older run sees it is stale and never writes its results over other rows.
 */
const state = { name: "", header: [], rows: [], column: 0, results: null, decisions: new Map(), shown: PAGE, run: 0, running: false };

/**
 * Reads a CSV's text: header (the first record with text), then rows
 * ({line, fields, error}); blank lines are no rows, but a row of empty
 * fields is one (no candidate), as `registry match` reads it. The column is
 * guessed later.
 */
function loadCsv(text, name, sep) {
  const records = parseCsv(text, sep);
  const at = records.findIndex((r) => r.fields.some((f) => f.trim()));
  if (at < 0) throw new Error(`${name}: the file is empty: a CSV needs a header line naming its columns`);
  const header = records[at].fields.map((f) => f.trim());
  const blankLine = (r) => !r.error && r.fields.length === 1 && !r.fields[0].trim();
  const rows = records.slice(at + 1).filter((r) => !blankLine(r)).map((r) => ({
    line: r.line,
    fields: r.fields,
    error: r.error ? `line ${r.line}: ${r.error}` : r.fields.length !== header.length ? `line ${r.line}: ${plural(r.fields.length, "field")} where the header has ${header.length}` : null,
  }));
  return { header, rows, name, column: 0 };
}

/**
 * Pasted text or a plain text file: one string a line, in a column named
 * `text`. A blank line is a row too (no candidate, kept in the download), so
 * the output has a row for every line, as `registry match` writes it.
 */
function loadLines(text, name) {
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const rows = lines.map((l, k) => ({ line: k + 1, fields: [l.replace(/\r$/, "")], error: null }));
  return { header: ["text"], rows, name, column: 0 };
}

/** Stops the run in progress, if any, and forgets results: they belonged to other rows or another column. */
function cancelRun(note) {
  state.run++;
  if (state.results) clearStatus();
  state.results = null;
  state.decisions = new Map();
  $("results").hidden = true;
  if (state.running) {
    state.running = false;
    runEnded();
    $("status").textContent = note;
    announce(note);
  }
}

/** Makes `table` the list (or, when null, leaves no list loaded). */
function setList(table) {
  cancelRun("Matching stopped: a new list was loaded.");
  Object.assign(state, table ?? { header: [], rows: [], name: "", column: 0 });
  showInput();
}

function showInput() {
  const select = $("column");
  select.replaceChildren(...state.header.map((h, k) => new Option(h || `(column ${k + 1})`, String(k), false, k === state.column)));
  $("column-row").hidden = state.header.length < 2;
  const loaded = $("loaded");
  loaded.classList.remove("error");
  loaded.textContent = state.name ? `${plural(state.rows.length, "row")} from ${state.name}.` : "No list loaded.";
  showColumnNote();
  $("match").disabled = state.rows.length === 0;
}

/** Says so when the chosen column holds nothing to match. */
function showColumnNote() {
  const empty = state.rows.length > 0 && state.rows.every((r) => r.error || !(r.fields[state.column] ?? "").trim());
  const note = $("column-note");
  note.hidden = !empty;
  note.textContent = empty ? `The column "${state.header[state.column] || state.column + 1}" is empty in every row: choose the column with the affiliation strings.` : "";
}

/** Decodes a file's bytes: UTF-8 text, or an error (nothing is guessed or replaced). */
function decode(bytes, name) {
  if (bytes.length === 0) throw new Error(`${name}: the file is empty.`);
  // Excel's "Unicode text" is UTF-16, whose NUL bytes would otherwise read as binary.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new Error(`${name} is UTF-16 text, not UTF-8; save the file as UTF-8 (in a spreadsheet: "CSV UTF-8").`);
  // Text never holds NUL bytes: spreadsheets, images and archives do.
  if (bytes.subarray(0, 65536).includes(0)) throw new Error(`${name} is not a text file (it holds binary data): save the list as CSV (UTF-8) or plain text.`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new Error(`${name} is not valid UTF-8; save the file as UTF-8 (in a spreadsheet: "CSV UTF-8").`);
  }
}

/** The start of a file sent for its layout: the rule reads only the first line that is not blank. */
const HEAD = 1 << 20;

/** Reads a file's text by the rule `registry match` follows too (the core's, in the Worker's wasm). */
async function readText(text, name) {
  const { delimiter } = await request({ type: "layout", name, head: text.slice(0, HEAD) });
  if (!delimiter) return loadLines(text, name);
  const table = loadCsv(text, name, delimiter);
  const filled = table.header.map((_, k) => table.rows.some((r) => !r.error && (r.fields[k] ?? "").trim() !== ""));
  const { column } = await request({ type: "column", header: table.header, filled });
  return { ...table, column };
}

async function readFile(file) {
  return readText(decode(new Uint8Array(await file.arrayBuffer()), file.name), file.name);
}

/** A file that cannot be loaded: its error stays, and no earlier list stays loaded unseen. */
function loadFailed(e) {
  setList(null);
  const loaded = $("loaded");
  loaded.textContent = `${e.message ?? e} No list is loaded.`;
  loaded.classList.add("error");
}

function fail(e) {
  $("status").textContent = e.message ?? String(e);
  $("status").classList.add("error");
}

function clearStatus() {
  $("status").textContent = "";
  $("status").classList.remove("error");
}

/** The polite live region: told only the start, about every ANNOUNCE_MS, and the end, not every batch. */
const ANNOUNCE_MS = 10_000;
function announce(text) {
  $("announce").textContent = text;
}

let worker = null;
let seq = 0;
const pending = new Map();
/** The Worker (started once per page), which answers each request by its number. */
function theWorker() {
  if (worker) return worker;
  worker = new Worker(new URL("./match-worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    // A cancelled run's late answer finds no one waiting.
    const wait = pending.get(data.seq);
    if (!wait) return;
    pending.delete(data.seq);
    data.type === "error" ? wait.reject(new Error(data.message)) : wait.resolve(data);
  };
  worker.onerror = (e) => {
    // A Worker that fails to start answers nothing: every request waiting fails, and the next one starts anew.
    for (const wait of pending.values()) wait.reject(new Error(`the matching worker failed: ${e.message}`));
    pending.clear();
    worker = null;
    workerReady = null;
  };
  return worker;
}

function request(message) {
  return new Promise((resolve, reject) => {
    const n = ++seq;
    pending.set(n, { resolve, reject });
    theWorker().postMessage({ ...message, seq: n });
  });
}

let workerReady = null;
/** The matching Worker, with the data loaded (once per page). */
function openWorker() {
  workerReady ??= request({ type: "open", dataUrl: String(new URL("./data/", document.baseURI)) });
  workerReady.catch(() => (workerReady = null)); // a retry starts anew
  return workerReady;
}

function ask(start, texts) {
  return request({ type: "match", start, texts }).then((data) => data.results);
}

function runEnded() {
  $("progress").hidden = true;
  $("cancel").hidden = true;
  $("match").disabled = state.rows.length === 0;
}

async function matchAll() {
  clearStatus();
  const run = ++state.run;
  const stale = () => run !== state.run;
  state.running = true;
  state.results = null;
  $("results").hidden = true;
  $("match").disabled = true;
  $("cancel").hidden = false;
  const bar = $("progress");
  bar.hidden = false;
  bar.value = 0;
  bar.max = state.rows.length;
  $("status").textContent = "Loading the registry…";
  const { rows, column } = state;
  announce(`Matching ${plural(rows.length, "row")}…`);
  // The run's time is the person's wait: from the click, loading the registry included.
  const started = performance.now();
  const { records } = await openWorker();
  if (stale()) return;
  const results = new Array(rows.length);
  let announced = performance.now();
  for (let start = 0; start < rows.length; start += BATCH) {
    const slice = rows.slice(start, start + BATCH);
    const texts = slice.map((r) => (r.error ? "" : r.fields[column] ?? ""));
    const answer = await ask(start, texts);
    if (stale()) return;
    answer.forEach((r, k) => (results[start + k] = slice[k].error ? { candidates: [], error: slice[k].error } : r.error ? { ...r, error: `line ${slice[k].line}: ${r.error}` } : r));
    bar.value = start + slice.length;
    const progress = `Matched ${start + slice.length} of ${rows.length} strings against ${records} records…`;
    $("status").textContent = progress;
    if (performance.now() - announced >= ANNOUNCE_MS) {
      announced = performance.now();
      announce(progress);
    }
  }
  const took = elapsed(performance.now() - started);
  state.running = false;
  state.results = results;
  state.decisions = new Map();
  state.shown = PAGE;
  const chosen = results.filter((r) => r.candidates[0]?.chosen).length;
  const none = results.filter((r) => !r.error && r.candidates.length === 0).length;
  const errors = results.filter((r) => r.error).length;
  const done =
    `Done: ${plural(rows.length, "row")} in ${took} — ${chosen} matched with confidence, ` +
    `${rows.length - chosen - none - errors} to review, ${none} with no candidate, ${errors} with ${errors === 1 ? "an error" : "errors"}.`;
  $("status").textContent = done;
  runEnded();
  showResults();
  announce("Matching finished.");
  // The button that started the run is disabled now: focus goes to what it produced.
  $("status").focus();
}

/** A run's duration as people read it: "850 ms", "2.4 s", "75 s". */
function elapsed(ms) {
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** Rows to review: candidates but none chosen, the closest calls first. */
function uncertain() {
  const margin = (r) => r.candidates[0].score - (r.candidates[1]?.score ?? 0);
  return state.results
    .map((r, k) => ({ r, k }))
    .filter(({ r }) => !r.error && r.candidates.length > 0 && !r.candidates[0].chosen)
    .sort((a, b) => margin(a.r) - margin(b.r) || a.k - b.k);
}

function showResults() {
  $("results").hidden = false;
  const list = uncertain();
  $("review-count").textContent = list.length
    ? `${plural(list.length, "row has", "rows have")} candidates but no confident match. Pick the right organization, or "none of these"; rows you leave keep the best candidate, marked as not chosen.`
    : "Every row with a candidate has a confident match.";
  const box = $("review");
  box.replaceChildren();
  for (const { r, k } of list.slice(0, state.shown)) box.append(reviewRow(r, k));
  $("more").hidden = list.length <= state.shown;
  showUnmatched();
}

/** Rows shown in each list of rows without a candidate or with an error. */
const UNMATCHED_SHOWN = 200;

/** The rows with no candidate and the rows with an error, on the page (not only in the download). */
function showUnmatched() {
  const lists = [
    ["none-list", "no candidate", state.results.map((r, k) => ({ r, k })).filter(({ r }) => !r.error && r.candidates.length === 0), () => ""],
    ["error-list", "an error", state.results.map((r, k) => ({ r, k })).filter(({ r }) => r.error), (r) => r.error],
  ];
  for (const [id, what, items, detail] of lists) {
    const box = $(id);
    box.hidden = items.length === 0;
    const summary = document.createElement("summary");
    summary.textContent = `${plural(items.length, "row")} with ${what}`;
    const ul = document.createElement("ul");
    for (const { r, k } of items.slice(0, UNMATCHED_SHOWN)) {
      const row = state.rows[k];
      const li = document.createElement("li");
      li.textContent = `line ${row.line}: ${row.fields[state.column] ?? ""}`;
      const d = detail(r);
      if (d) li.append(Object.assign(document.createElement("span"), { className: "detail", textContent: ` — ${d}` }));
      ul.append(li);
    }
    box.replaceChildren(summary, ul);
    if (items.length > UNMATCHED_SHOWN) box.append(Object.assign(document.createElement("p"), { className: "note", textContent: `The first ${UNMATCHED_SHOWN} are listed; the download has them all.` }));
  }
}

function reviewRow(result, k) {
  const row = state.rows[k];
  const fs = document.createElement("fieldset");
  fs.className = "review-row";
  const legend = document.createElement("legend");
  legend.textContent = row.fields[state.column];
  const where = document.createElement("span");
  where.className = "line";
  where.textContent = ` line ${row.line}`;
  legend.append(where);
  fs.append(legend);
  const picked = state.decisions.get(k);
  const option = (value, label, detail, recordId) => {
    const id = `pick-${k}-${value}`;
    const input = Object.assign(document.createElement("input"), { type: "radio", name: `pick-${k}`, id, value, checked: picked === value });
    input.addEventListener("change", () => state.decisions.set(k, value));
    const l = Object.assign(document.createElement("label"), { htmlFor: id, textContent: label });
    const d = document.createElement("div");
    d.className = "option";
    d.append(input, l);
    if (detail) {
      const s = Object.assign(document.createElement("span"), { className: "detail", textContent: detail });
      l.append(" ", s);
    }
    // The candidate's record page, to check it before picking (a new tab: the review stays).
    if (recordId) {
      const bare = recordId.split("/").pop();
      const a = Object.assign(document.createElement("a"), {
        className: "record-link", href: `./?id=${encodeURIComponent(bare)}`, target: "_blank", rel: "noopener", textContent: "Record",
      });
      a.setAttribute("aria-label", `Record of ${label} (${bare}), in a new tab`);
      d.append(a);
    }
    return d;
  };
  result.candidates.forEach((c, j) => fs.append(option(String(j), c.name, `${c.place ? c.place + " · " : ""}score ${c.score.toFixed(2)}`, c.id)));
  fs.append(option("none", "None of these", ""));
  return fs;
}

/** The first and second organization of a row, after the person's decision. */
function decided(r, decision) {
  if (decision === "none") return { first: undefined, second: undefined, chosen: "false", reviewed: "none" };
  if (decision !== undefined) {
    const j = +decision;
    // The runner-up is the best candidate other than the one picked.
    return { first: r.candidates[j], second: r.candidates[j === 0 ? 1 : 0], chosen: "true", reviewed: "picked" };
  }
  return { first: r.candidates[0], second: r.candidates[1], chosen: r.error ? "" : String(Boolean(r.candidates[0]?.chosen)), reviewed: "" };
}

/**
 * The output CSV: the input's columns, then ADDED (prefixed `match_` where a
 * name is taken). A row with more fields than the header keeps them all, in
 * columns `extra_1`, … added to the header, so ADDED stay under their names.
 */
function outputCsv() {
  const width = Math.max(state.header.length, ...state.rows.map((r) => r.fields.length));
  const header = [...state.header];
  for (let k = 1; header.length < width; k++) if (!state.header.includes(`extra_${k}`)) header.push(`extra_${k}`);
  const names = ADDED.map((n) => {
    while (header.includes(n)) n = `match_${n}`;
    return n;
  });
  const lines = [[...header, ...names].map(csvField).join(",")];
  state.rows.forEach((row, k) => {
    const r = state.results[k];
    const { first, second, chosen, reviewed } = decided(r, state.decisions.get(k));
    const fields = [...row.fields];
    while (fields.length < width) fields.push("");
    const added = [
      first?.id, first?.name, first?.score?.toFixed(2), chosen, first?.matching_type,
      second?.id, second?.name, second?.score?.toFixed(2), r.error ?? "", reviewed,
    ];
    lines.push([...fields, ...added].map(csvField).join(","));
  });
  return lines.join("\r\n") + "\r\n";
}

function download() {
  const blob = new Blob([outputCsv()], { type: "text/csv;charset=utf-8" });
  // A name without spaces: "pasted lines" becomes pasted-lines-matched.csv.
  const base = state.name.replace(/\.[^.]*$/, "").trim().replace(/\s+/g, "-") || "list";
  const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: `${base}-matched.csv` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function init() {
  const drop = $("drop");
  const take = (f) => f && readFile(f).then(setList, loadFailed);
  $("file").addEventListener("change", (e) => take(e.target.files[0]));
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    take(e.dataTransfer.files[0]);
  });
  $("use-pasted").addEventListener("click", () => {
    clearStatus();
    setList(loadLines($("pasted").value.replace(/^\uFEFF/, ""), "pasted lines"));
  });
  $("column").addEventListener("change", (e) => {
    cancelRun("Matching stopped: the column changed.");
    state.column = +e.target.value;
    showColumnNote();
  });
  $("match").addEventListener("click", () => {
    const run = state.run + 1;
    matchAll().catch((e) => {
      if (run !== state.run) return; // a cancelled run's failure is no news
      state.running = false;
      runEnded();
      fail(e);
    });
  });
  $("cancel").addEventListener("click", () => {
    cancelRun("Matching cancelled.");
    $("match").focus();
  });
  $("more").addEventListener("click", () => {
    state.shown += PAGE;
    showResults();
  });
  $("download").addEventListener("click", download);
  showInput();
}

init();
