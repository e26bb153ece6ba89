// Which API URLs the pieces answer (registry-pieces.js): the record piece an
// id's URL reads (recordKey; the service worker and a shared `?id=` link ask
// for that piece alone, so an id that is no record's, wrong check digits,
// asks for none), and the results URLs they may answer (listQuery; the
// rest goes to the router, which also says what is wrong with a bad one).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { recordKey, listQuery, slotKey, nameKey } from "../web/registry-pieces.js";

const DEMO = JSON.parse(fs.readFileSync(new URL("../data/demo/registry-demo.json", import.meta.url), "utf8"));
const bare = (r) => r.id.split("/").pop();

test("every record's id, in every form people paste, keys its piece", () => {
  for (const r of DEMO) {
    const id = bare(r);
    for (const form of [id, id.toUpperCase(), r.id, encodeURIComponent(r.id), `ror.org/${id}/`, ` ${id} `]) {
      assert.equal(recordKey(`/v2/organizations/${form}`), id.slice(0, 4), form);
    }
    assert.equal(recordKey(`/organizations/${id}`, 99), id);
  }
});

test("an id whose check digits are wrong keys no piece (nothing to fetch; the whole registry says which digits)", () => {
  for (const r of DEMO) {
    const id = bare(r);
    for (let d = 0; d < 100; d++) {
      const digits = String(d).padStart(2, "0");
      if (digits === id.slice(7)) continue;
      assert.equal(recordKey(`/v2/organizations/${id.slice(0, 7)}${digits}`), null, `${id.slice(0, 7)}${digits}`);
    }
  }
  assert.equal(recordKey("/v2/organizations/0zzzzzz00"), null);
  assert.equal(recordKey("/v2/organizations/not-an-id"), null);
});

test("a results URL whose percent-escapes do not decode is the router's (its 400 names the escape), not the pieces' 200", () => {
  for (const q of ["query=%ZZ", "query=univ%", "query=Universit%E9+Paris", "query=x&filter=types:education%2"]) {
    assert.equal(listQuery(`/v2/organizations?${q}`), null, q);
  }
  assert.equal(listQuery("/v2/organizations?query=100%25%20sure").query, "100% sure");
  assert.equal(listQuery("/v1/organizations?query=%E6%9D%B1+x&page=2").query, "東 x");
});

test("a packed folder's slots are found as the build made them (registry_contract::slot_key, name_key's vectors)", () => {
  for (const [name, key] of [
    ["g-756e6976.shard", "756e6976"],
    ["c-756e6976.shard", "756e6976"],
    ["t-756e6976.shard", "756e6976"],
    ["k-756e6976-0.shard", "756e6976"],
    ["k-756e6976-11.shard", "756e6976"],
    ["g-6f66-756e6976.shard", "6f66-756e6976"],
    ["k-6f66-756e6976-1.shard", "6f66-756e6976"],
    ["g-61-62-63.shard", "g-61-62-63.shard"],
    ["k-61-62-63-0.shard", "k-61-62-63-0.shard"],
    ["kc-756e6976-6e67-0.shard", "kc-756e6976-6e67-0.shard"],
    ["s-75.shard", "s-75.shard"],
    ["search.stats", "search.stats"],
    ["r-041q.json", "r-041q"],
    ["r-041q.shard", "r-041q"],
    ["6165.shard", "6165.shard"],
    ["61.h.shard", "61.h.shard"],
  ])
    assert.equal(slotKey(name), key, name);
  assert.equal(nameKey(""), 0xcbf29ce484222325n);
  assert.equal(nameKey("a"), 0xaf63dc4c8601ec8cn);
});
