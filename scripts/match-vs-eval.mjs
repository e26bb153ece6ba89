// Checks that `registry match` answers as `registry eval-affiliation`
// counts: reads match's JSON-lines output of a gold set (each row keeps its
// `gold` and `source`, and has `id` and `chosen` added), counts the rows as
// eval-affiliation does (precision = correct chosen / chosen on rows with a
// gold id; a chosen on an empty-gold row counted apart), per source and
// overall, for the whole set and its even/odd halves, and compares every
// count with eval-affiliation's printed lines.
//
//   registry match ../shared/eval/affiliation-dev.jsonl --field affiliation -o /tmp/m.jsonl
//   registry eval-affiliation > /tmp/eval.txt
//   node scripts/match-vs-eval.mjs /tmp/m.jsonl /tmp/eval.txt
//
// Exit status 1 when a count differs (or a line is missing).
import { readFileSync } from "node:fs";

const [matchOut, evalOut] = process.argv.slice(2);
if (!matchOut || !evalOut) {
  console.error("usage: node scripts/match-vs-eval.mjs <match output .jsonl> <eval-affiliation output>");
  process.exit(2);
}

const empty = () => ({ rows: 0, chosen: 0, correct: 0, empty_gold: 0, chosen_on_empty: 0 });
const counts = new Map(); // source or "overall" → [whole, half A, half B]
const lines = readFileSync(matchOut, "utf8").split("\n").filter((l) => l.trim());
lines.forEach((line, n) => {
  const row = JSON.parse(line);
  if (row.error) throw new Error(`match output line ${n + 1} has an error: ${row.error}`);
  const chosen = row.chosen === true ? row.id : null;
  for (const key of [row.source, "overall"]) {
    if (!counts.has(key)) counts.set(key, [empty(), empty(), empty()]);
    for (const c of [counts.get(key)[0], counts.get(key)[1 + (n % 2)]]) {
      c.rows++;
      if (row.gold.length === 0) {
        c.empty_gold++;
        if (chosen) c.chosen_on_empty++;
      } else if (chosen) {
        c.chosen++;
        if (row.gold.includes(chosen)) c.correct++;
      }
    }
  }
});

// eval-affiliation's lines: "<label> rows N chosen N correct N ... empty gold E: A answered
// with nothing", where chosen counts the chosen on empty-gold rows too (E − A of them).
const sections = ["whole set:", "half A (even rows):", "half B (odd rows):"];
const printed = new Map();
let section = -1;
for (const l of readFileSync(evalOut, "utf8").split("\n")) {
  const s = sections.indexOf(l.trim());
  if (s >= 0) section = s;
  const m = /^\s+(\S+)\s+rows\s+(\d+)\s+chosen\s+(\d+)\s+correct\s+(\d+)\s.*empty gold (\d+): (\d+) answered with nothing/.exec(l);
  if (m && section >= 0 && !printed.has(`${section} ${m[1]}`)) {
    const [empty, unanswered] = [+m[5], +m[6]];
    printed.set(`${section} ${m[1]}`, {
      rows: +m[2],
      chosen: +m[3] - (empty - unanswered),
      correct: +m[4],
      chosen_on_empty: empty - unanswered,
      empty_gold: empty,
    });
  }
  if (/^latency/.test(l)) section = -1; // the cross-source checks that follow refit the model
}

let differ = 0;
for (const [key, parts] of counts) {
  parts.forEach((c, s) => {
    const want = printed.get(`${s} ${key}`);
    const p = c.correct / c.chosen;
    const r = c.correct / (c.rows - c.empty_gold);
    const same = want && Object.keys(want).every((k) => want[k] === c[k]);
    differ += same ? 0 : 1;
    console.log(
      `${same ? "same" : "DIFFERENT"}  ${sections[s].padEnd(20)} ${key.padEnd(10)} rows ${c.rows}  chosen ${c.chosen}  correct ${c.correct}  ` +
        `P ${p.toFixed(4)}  R ${r.toFixed(4)}  chosen-on-empty ${c.chosen_on_empty}/${c.empty_gold}` +
        (same ? "" : `  eval-affiliation: ${JSON.stringify(want ?? "missing")}`),
    );
  });
}
console.log(differ ? `${differ} lines differ` : `all ${[...counts.values()].length * 3} lines agree with eval-affiliation`);
process.exit(differ ? 1 : 0);
