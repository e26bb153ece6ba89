import { chromium } from "playwright-core";
import { serve, CHROMIUM_ARGS, watchErrors } from "./server.mjs";
const srv = await serve(process.cwd() + "/target/cold-bench/x1/site");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
for (const [w, h] of [[390, 844], [1280, 900]]) {
  for (const link of ["?q=university&filter=country:KE", "?q=%22university%20of%22", "?q=institute&filter=type:education&page=2"]) {
    const context = await browser.newContext({ viewport: { width: w, height: h } });
    const page = await context.newPage();
    const errors = [];
    watchErrors(page, errors);
    const reqs = [];
    page.on("request", (r) => reqs.push(r.url().split("/").pop().split("?")[0]));
    const t0 = Date.now();
    await page.goto(srv.url + "index.html" + link);
    await page.waitForSelector(".results li, ol.results > li, [role=listitem]", { timeout: 60000 }).catch(() => {});
    const ms = Date.now() - t0;
    const text = await page.evaluate(() => document.querySelector("main")?.innerText.slice(0, 300).replace(/\s+/g, " "));
    const whole = reqs.filter((n) => /^(records|summary|names)\./.test(n));
    const pieces = reqs.filter((n) => /^(k|kc|kt|pk|pg|g)-/.test(n));
    console.log(`${w}px ${link}: ${ms} ms; whole-registry files before: ${whole.length}; pieces ${pieces.join(" ")}\n   ${text}\n   errors: ${errors.join(" | ")}`);
    await page.screenshot({ path: `/work/bench/newcomer-${w}-${link.replace(/[^a-z0-9]+/gi, "_")}.png` });
    await context.close();
  }
}
await browser.close();
await srv.close();
