// Which record piece an id's URL reads (registry-pieces.js recordKey): the
// service worker and a shared `?id=` link ask for that piece alone, so an
// id that is no record's (wrong check digits) must ask for none.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { recordKey } from "../web/registry-pieces.js";

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
