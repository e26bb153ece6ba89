// Renders the SVG icons to the PNG sizes the web manifest lists (run once;
// the PNGs are committed): node crates/ui/scripts/render-icons.mjs
import fs from "node:fs/promises";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "../../../tests/server.mjs";

const dir = new URL("../../../web/static/icons/", import.meta.url);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
for (const [svg, size, out] of [
  ["icon.svg", 192, "icon-192.png"],
  ["icon.svg", 512, "icon-512.png"],
  ["icon-maskable.svg", 512, "icon-maskable-512.png"],
]) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  const text = await fs.readFile(new URL(svg, dir), "utf8");
  await page.setContent(`<html><body style="margin:0;background:transparent">${text.replace("<svg ", `<svg width="${size}" height="${size}" `)}</body></html>`);
  await fs.writeFile(new URL(out, dir), await page.screenshot({ omitBackground: true }));
  await page.close();
}
await browser.close();
