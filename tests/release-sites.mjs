// Sites of data releases for the browser tests that deploy one release
// after another (release.test.mjs, release-base.test.mjs): each built with
// `registry site` (the app from target/site, data from a dump) into a
// temporary folder, and one served folder whose target is swapped between
// page loads, as a static host receiving a new deploy.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

export const APP = path.resolve("target/site");
export const REGISTRY = path.resolve("target/release/registry");

/**
 * A temporary folder for a test file's sites, and `live`, the folder a
 * server serves (a link to one site at a time: `deploy`). Throws when the
 * app or the CLI has not been built.
 */
export function releaseFolder(prefix) {
  for (const f of [APP, REGISTRY]) assert.ok(fs.existsSync(f), `${f} is missing: run scripts/build-web.sh first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const live = path.join(tmp, "live");
  return {
    tmp,
    live,
    /** Points the served folder at `dir` (the "deploy"). */
    deploy(dir) {
      fs.rmSync(live, { force: true });
      fs.symlinkSync(dir, live);
    },
    /**
     * Builds a site named `name` from `records` (an array, written as a dump
     * here, or the path of a dump) as release `release`; returns its folder.
     * `split`: pieces split like a large registry's (see ui-helpers'
     * splitSite), so that a page reads many of them as it goes;
     * `previous`: the last release's site (`--previous`).
     */
    site(name, records, release, { split = false, previous = null } = {}) {
      let dump = records;
      if (typeof records !== "string") {
        dump = path.join(tmp, `${name}.json`);
        fs.writeFileSync(dump, JSON.stringify(records));
      }
      const out = path.join(tmp, name);
      const pieces = split ? ["--piece-bytes", "600", "--head", "12"] : [];
      const earlier = previous ? ["--previous", previous] : [];
      execFileSync(REGISTRY, ["site", dump, "-o", out, "--app", APP, "--release", release, "--level", "3", ...pieces, ...earlier], { stdio: "pipe" });
      return out;
    },
    /** `registry synth --next-release` of the dump at `from`, written to `<name>.json`; returns its path. */
    nextRelease(name, from) {
      const out = path.join(tmp, `${name}.json`);
      execFileSync(REGISTRY, ["synth", from, "--next-release", "-o", out, "-q"], { stdio: "pipe" });
      return out;
    },
    remove() {
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The manifest of the data folder of site `dir`. */
export const manifestOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "data/manifest.json"), "utf8"));
