// The framework examples (web/examples/react, web/examples/vue), built with
// esbuild against the npm package (scripts/build-npm.sh, installed from its
// tarball into a scratch project): the picker inside a React and a Vue form,
// a keyboard pick reaches the framework's state and the form's submission.
//
// Needs the site built by scripts/build-web.sh (target/site).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { chromium } from "playwright-core";
import { serve, watchErrors, CHROMIUM_ARGS } from "./server.mjs";
import { installPackage } from "./npm-package.mjs";

const SITE = path.resolve("target/site");
let server, browser, page, dir;
const errors = [];

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "picker-examples-"));
  const { pkg } = installPackage(dir, SITE);
  // What the examples' host serves: the package, a data folder, the built pages.
  const www = path.join(dir, "www");
  fs.cpSync(pkg, path.join(www, "registry-picker"), { recursive: true });
  fs.cpSync(path.join(SITE, "data"), path.join(www, "registry-data"), { recursive: true });
  const esbuild = path.resolve("node_modules/.bin/esbuild");
  for (const name of ["react", "vue"]) {
    fs.mkdirSync(path.join(www, name), { recursive: true });
    fs.copyFileSync(path.resolve(`web/examples/${name}/index.html`), path.join(www, name, "index.html"));
    execFileSync(esbuild, [
      path.resolve(`web/examples/${name}/main.js`), "--bundle", "--format=esm", "--log-level=error",
      `--outfile=${path.join(www, name, "main.js")}`,
      "--define:process.env.NODE_ENV=\"production\"", "--define:__VUE_OPTIONS_API__=true",
      "--define:__VUE_PROD_DEVTOOLS__=false", "--define:__VUE_PROD_HYDRATION_MISMATCH_DETAILS__=false",
    ]);
  }
  server = await serve(www, "/");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
  page = await (await browser.newContext()).newPage();
  page.setDefaultTimeout(30_000);
  watchErrors(page, errors);
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

for (const name of ["react", "vue"]) {
  test(`${name}: a keyboard pick reaches the framework's state and the submitted form`, async () => {
    await page.goto(server.url + `${name}/index.html`);
    const input = page.locator("#aff-picker-input");
    await input.waitFor();
    assert.equal(await page.locator("#picked").innerText(), "nothing picked");
    await input.fill("northfield univ");
    await page.locator("#aff-picker-list [role=option]").first().waitFor();
    await input.press("ArrowDown");
    await input.press("Enter");
    await page.waitForFunction(() => /^https:\/\/ror\.org\/0/.test(document.getElementById("picked").textContent));
    const id = await page.locator("#picked").innerText();
    await Promise.all([page.waitForURL(/affiliation_id=/), page.locator("#send").click()]);
    const sent = new URL(page.url()).searchParams;
    assert.equal(sent.get("affiliation_id"), id);
    assert.equal(sent.get("affiliation"), "Northfield University");
    assert.deepEqual(errors, []);
  });
}
