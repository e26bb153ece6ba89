// The "Match a list" page (match.html): a CSV (one column of affiliation
// strings) or pasted lines in, the registry's matches out, as a CSV with
// the columns `registry match` writes plus `reviewed`. Matching runs in
// match-worker.js over the site's own data: nothing leaves the browser.
// Rows without a confident (`chosen`) match are listed for review, closest
// calls first (smallest margin between the first two candidates), each
// with its candidates and "none of these" to pick from.

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
function parseCsv(text) {
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
        if (i < n && !",\r\n".includes(text[i])) error ??= `text after the closing quote of field ${k}`;
      }
      while (i < n && text[i] !== "," && text[i] !== "\n") {
        if (text[i] === '"') error ??= `a quote inside unquoted field ${k}`;
        field += text[i++];
      }
      if (text[i] === ",") {
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
      records.push({ line: startLine, fields: text.slice(start, end).replace(/\r$/, "").split(","), error: `field ${fields.length + 1} opens a quote that is never closed` });
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

/** The page's state: the input table and, once matched, one result per row. */
const state = { name: "list", header: [], rows: [], column: 0, results: null, decisions: new Map(), shown: PAGE };

/** Reads a CSV's text: header, then rows ({line, fields, error}); blank lines are no rows. */
function loadCsv(text, name) {
  const records = parseCsv(text.replace(/^\uFEFF/, "")).filter((r) => r.error || r.fields.some((f) => f.trim()));
  const head = records.shift();
  if (!head) throw new Error("the file is empty: a CSV needs a header line naming its columns");
  state.header = head.fields.map((f) => f.trim());
  state.rows = records.map((r) => ({
    line: r.line,
    fields: r.fields,
    error: r.error ? `line ${r.line}: ${r.error}` : r.fields.length !== state.header.length ? `line ${r.line}: ${r.fields.length} fields where the header has ${state.header.length}` : null,
  }));
  state.name = name;
  const guess = state.header.findIndex((h) => /affil|organi[sz]ation|institut|employer/i.test(h));
  state.column = guess >= 0 ? guess : 0;
}

/** Pasted text or a plain text file: one string a line, in a column named `text`. */
function loadLines(text, name) {
  state.header = ["text"];
  state.rows = [];
  text.replace(/^\uFEFF/, "").split("\n").forEach((l, k) => {
    l = l.replace(/\r$/, "");
    if (l.trim()) state.rows.push({ line: k + 1, fields: [l], error: null });
  });
  state.name = name;
  state.column = 0;
}

function showInput() {
  const select = $("column");
  select.replaceChildren(...state.header.map((h, k) => new Option(h || `(column ${k + 1})`, String(k), false, k === state.column)));
  $("column-row").hidden = state.header.length < 2;
  $("loaded").textContent = `${state.rows.length} rows from ${state.name}.`;
  $("match").disabled = state.rows.length === 0;
  state.results = null;
  $("results").hidden = true;
}

async function readFile(file) {
  const text = await file.text();
  if (/\.(txt|lst)$/i.test(file.name)) loadLines(text, file.name);
  else loadCsv(text, file.name);
}

function fail(e) {
  $("status").textContent = e.message ?? String(e);
  $("status").classList.add("error");
}

function clearStatus() {
  $("status").textContent = "";
  $("status").classList.remove("error");
}

let workerReady = null;
/** The matching Worker, with the data loaded (once per page). */
function openWorker() {
  workerReady ??= new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./match-worker.js", import.meta.url), { type: "module" });
    worker.onmessage = ({ data }) => (data.type === "opened" ? resolve({ worker, ...data }) : reject(new Error(data.message)));
    worker.onerror = (e) => reject(new Error(`the matching worker failed: ${e.message}`));
    worker.postMessage({ type: "open", dataUrl: String(new URL("./data/", document.baseURI)) });
  });
  workerReady.catch(() => (workerReady = null)); // a retry starts anew
  return workerReady;
}

async function matchAll() {
  clearStatus();
  $("match").disabled = true;
  const bar = $("progress");
  bar.hidden = false;
  bar.value = 0;
  bar.max = state.rows.length;
  $("status").textContent = "Loading the registry…";
  const { worker, records } = await openWorker();
  const rows = state.rows;
  const results = new Array(rows.length);
  const started = performance.now();
  for (let start = 0; start < rows.length; start += BATCH) {
    const slice = rows.slice(start, start + BATCH);
    const texts = slice.map((r) => (r.error ? "" : r.fields[state.column] ?? ""));
    const answer = await new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => (data.type === "matched" ? resolve(data.results) : reject(new Error(data.message)));
      worker.postMessage({ type: "match", start, texts });
    });
    answer.forEach((r, k) => (results[start + k] = slice[k].error ? { candidates: [], error: slice[k].error } : r.error ? { ...r, error: `line ${slice[k].line}: ${r.error}` } : r));
    bar.value = start + slice.length;
    $("status").textContent = `Matched ${start + slice.length} of ${rows.length} strings against ${records} records…`;
  }
  const secs = (performance.now() - started) / 1000;
  state.results = results;
  state.decisions = new Map();
  state.shown = PAGE;
  const chosen = results.filter((r) => r.candidates[0]?.chosen).length;
  const none = results.filter((r) => !r.error && r.candidates.length === 0).length;
  const errors = results.filter((r) => r.error).length;
  $("status").textContent =
    `Done: ${rows.length} rows in ${secs.toFixed(1)} s — ${chosen} matched with confidence, ` +
    `${rows.length - chosen - none - errors} to review, ${none} with no candidate, ${errors} with errors.`;
  $("match").disabled = false;
  showResults();
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
    ? `${list.length} rows have candidates but no confident match. Pick the right organization, or "none of these"; rows you leave keep the best candidate, marked as not chosen.`
    : "Every row with a candidate has a confident match.";
  const box = $("review");
  box.replaceChildren();
  for (const { r, k } of list.slice(0, state.shown)) box.append(reviewRow(r, k));
  $("more").hidden = list.length <= state.shown;
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
  const option = (value, label, detail) => {
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
    return d;
  };
  result.candidates.forEach((c, j) => fs.append(option(String(j), c.name, `${c.place ? c.place + " · " : ""}score ${c.score.toFixed(2)}`)));
  fs.append(option("none", "None of these", ""));
  return fs;
}

/** The output CSV: the input's columns, then ADDED (prefixed `match_` where a name is taken). */
function outputCsv() {
  const names = ADDED.map((n) => {
    while (state.header.includes(n)) n = `match_${n}`;
    return n;
  });
  const lines = [[...state.header, ...names].map(csvField).join(",")];
  state.rows.forEach((row, k) => {
    const r = state.results[k];
    const decision = state.decisions.get(k);
    const second = r.candidates[1];
    let first = r.candidates[0];
    let chosen = r.error ? "" : String(Boolean(first?.chosen));
    let reviewed = "";
    if (decision === "none") [first, chosen, reviewed] = [undefined, "false", "none"];
    else if (decision !== undefined) [first, chosen, reviewed] = [r.candidates[+decision], "true", "picked"];
    const fields = [...row.fields];
    while (fields.length < state.header.length) fields.push("");
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
  const a = Object.assign(document.createElement("a"), {
    href: URL.createObjectURL(blob),
    download: `${state.name.replace(/\.[^.]*$/, "")}-matched.csv`,
  });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

function init() {
  const drop = $("drop");
  const take = (f) => f && readFile(f).then(showInput, fail).then(clearStatus);
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
    loadLines($("pasted").value, "pasted lines");
    showInput();
  });
  $("column").addEventListener("change", (e) => (state.column = +e.target.value));
  $("match").addEventListener("click", () => matchAll().catch((e) => (fail(e), ($("match").disabled = false))));
  $("more").addEventListener("click", () => {
    state.shown += PAGE;
    showResults();
  });
  $("download").addEventListener("click", download);
}

init();
